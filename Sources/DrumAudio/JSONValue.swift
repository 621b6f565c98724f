/// A JSON document's value, parsed without Foundation (a kit.json on a pad's board, where the
/// binary carries no Foundation): RFC 8259's grammar, strict (no comments, no trailing commas,
/// no leading zeros), with `\uXXXX` escapes and surrogate pairs, nesting at most 64 deep.
///
/// Thread safety: values are immutable.
public enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// What is wrong with a document, and where: line and column (from 1).
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public let line: Int
        public let column: Int
        public let reason: String
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 64

    /// Parses a whole document (UTF-8); throws with its line and column.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == bytes.count else { throw parser.error("more after the document's end") }
        return value
    }

    /// The member `key` of an object, or nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, or nil for any other kind.
    public var string: String? { if case .string(let s) = self { s } else { nil } }
    /// The number, or nil for any other kind.
    public var number: Double? { if case .number(let n) = self { n } else { nil } }
    /// The elements, or nil for any other kind.
    public var array: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// Whether it is an object.
    public var isObject: Bool { if case .object = self { true } else { false } }

    private struct Parser {
        let bytes: [UInt8]
        var at = 0

        func error(_ reason: String) -> ParseError {
            var line = 1, column = 1
            for byte in bytes[..<min(at, bytes.count)] {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {
                    column += 1
                }
            }
            return ParseError(line: line, column: column, reason: reason)
        }

        mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        mutating func value(depth: Int) throws(ParseError) -> JSONValue {
            guard at < bytes.count else { throw error("a value was expected, the document ended") }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw error("a value was expected")
            }
        }

        mutating func literal(_ word: String) throws(ParseError) {
            let expected = Array(word.utf8)
            guard at + expected.count <= bytes.count, Array(bytes[at..<(at + expected.count)]) == expected else {
                throw error("\"\(word)\" was expected")
            }
            at += expected.count
        }

        mutating func object(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maxDepth else { throw error("nested more than \(JSONValue.maxDepth) deep") }
            at += 1
            var members: [String: JSONValue] = [:]
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "}") {
                at += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("a member's name in quotes was expected") }
                let key = try string()
                skipSpace()
                guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("\":\" was expected after \"\(key)\"") }
                at += 1
                skipSpace()
                guard members[key] == nil else { throw error("\"\(key)\" appears twice") }
                members[key] = try value(depth: depth)
                skipSpace()
                guard at < bytes.count else { throw error("the object was not closed") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                    continue
                }
                guard bytes[at] == UInt8(ascii: "}") else { throw error("\",\" or \"}\" was expected") }
                at += 1
                return .object(members)
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> JSONValue {
            guard depth <= JSONValue.maxDepth else { throw error("nested more than \(JSONValue.maxDepth) deep") }
            at += 1
            var elements: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == UInt8(ascii: "]") {
                at += 1
                return .array(elements)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                guard at < bytes.count else { throw error("the list was not closed") }
                if bytes[at] == UInt8(ascii: ",") {
                    at += 1
                    continue
                }
                guard bytes[at] == UInt8(ascii: "]") else { throw error("\",\" or \"]\" was expected") }
                at += 1
                return .array(elements)
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard at + 4 <= bytes.count else { throw error("\\u needs four hex digits") }
            var value: UInt32 = 0
            for byte in bytes[at..<(at + 4)] {
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw error("\\u needs four hex digits")
                }
                value = value << 4 | UInt32(digit)
            }
            at += 4
            return value
        }

        mutating func string() throws(ParseError) -> String {
            at += 1  // the opening quote
            var scalars = String.UnicodeScalarView()
            var run: [UInt8] = []  // raw UTF-8 between escapes
            func flush() throws(ParseError) {
                guard !run.isEmpty else { return }
                guard let text = String(validating: run, as: UTF8.self) else { throw error("the text is not UTF-8") }
                scalars.append(contentsOf: text.unicodeScalars)
                run.removeAll(keepingCapacity: true)
            }
            while true {
                guard at < bytes.count else { throw error("the text was not closed with \"") }
                let byte = bytes[at]
                if byte == UInt8(ascii: "\"") {
                    at += 1
                    try flush()
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw error("a control character inside a text (write it as \\u00XX)") }
                if byte != UInt8(ascii: "\\") {
                    run.append(byte)
                    at += 1
                    continue
                }
                try flush()
                at += 1
                guard at < bytes.count else { throw error("the text ended inside an escape") }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard at + 2 <= bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                            throw error("a lone surrogate \\u\(String(code, radix: 16))")
                        }
                        at += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("a lone surrogate \\u\(String(code, radix: 16))") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw error("a lone surrogate \\u\(String(code, radix: 16))") }
                    scalars.append(scalar)
                default: throw error("an unknown escape")
                }
            }
        }

        mutating func number() throws(ParseError) -> Double {
            let start = at
            func digits() -> Int {
                let from = at
                while at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) { at += 1 }
                return at - from
            }
            if bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard at < bytes.count else { throw error("a number was expected") }
            if bytes[at] == UInt8(ascii: "0") {
                at += 1
            } else {
                guard digits() > 0 else { throw error("a number was expected") }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
                at += 1
                guard digits() > 0 else { throw error("digits were expected after \".\"") }
            }
            if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
                at += 1
                if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
                guard digits() > 0 else { throw error("digits were expected in the exponent") }
            }
            if at < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[at]) {
                throw error("a number may not start with 0 and go on")
            }
            guard let text = String(validating: bytes[start..<at], as: UTF8.self), let value = Double(text), value.isFinite else {
                throw error("a number out of range")
            }
            return value
        }
    }
}

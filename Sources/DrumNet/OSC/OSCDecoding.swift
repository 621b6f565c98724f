/// Bytes to OSC 1.0 messages, strictly: every read is bounds-checked, strings must be UTF-8,
/// NUL-terminated and zero-padded to 4 bytes, and the message must be used up exactly. No input
/// can crash it; each way of being malformed has its own `DrumNetError`.
public enum OSCDecoding {
    /// Decodes one whole OSC message (the bytes after a packet's length prefix).
    public static func message(_ bytes: some Collection<UInt8>) throws(DrumNetError) -> OSCMessage {
        let array = Array(bytes)
        var reader = Reader(bytes: array)
        guard array.count % 4 == 0 else { throw .misaligned(size: array.count) }
        guard array.first == UInt8(ascii: "/") else {
            if array.first == UInt8(ascii: "#") { throw .bundleNotSupported }
            throw .badAddress
        }
        let address = try reader.string(field: "address")
        guard reader.remaining > 0, reader.peek() == UInt8(ascii: ",") else {
            throw .missingTypeTags(address: address)
        }
        let tags = try reader.string(field: "type tags").utf8.dropFirst()
        var arguments: [OSCArgument] = []
        arguments.reserveCapacity(tags.count)
        for tag in tags {
            switch tag {
            case UInt8(ascii: "i"):
                arguments.append(.int32(Int32(bitPattern: try reader.bigEndian(UInt32.self, field: "i"))))
            case UInt8(ascii: "h"):
                arguments.append(.int64(Int64(bitPattern: try reader.bigEndian(UInt64.self, field: "h"))))
            case UInt8(ascii: "f"):
                arguments.append(.float32(Float(bitPattern: try reader.bigEndian(UInt32.self, field: "f"))))
            case UInt8(ascii: "d"):
                arguments.append(.float64(Double(bitPattern: try reader.bigEndian(UInt64.self, field: "d"))))
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                arguments.append(.string(try reader.string(field: "string argument")))
            case UInt8(ascii: "b"):
                arguments.append(.blob(try reader.blob()))
            case UInt8(ascii: "t"):
                arguments.append(.timeTag(try reader.bigEndian(UInt64.self, field: "t")))
            case UInt8(ascii: "T"): arguments.append(.true)
            case UInt8(ascii: "F"): arguments.append(.false)
            case UInt8(ascii: "N"): arguments.append(.nil)
            case UInt8(ascii: "I"): arguments.append(.impulse)
            default:
                throw .unknownTypeTag(address: address, tag: tag)
            }
        }
        guard reader.remaining == 0 else {
            throw .trailingBytes(address: address, count: reader.remaining)
        }
        return OSCMessage(checkedAddress: address, arguments: arguments)
    }

    /// A bounds-checked cursor over a message's bytes.
    struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var remaining: Int { bytes.count - offset }

        func peek() -> UInt8 { bytes[offset] }

        mutating func bigEndian<T: FixedWidthInteger>(_: T.Type, field: String) throws(DrumNetError) -> T {
            let size = MemoryLayout<T>.size
            guard remaining >= size else { throw .truncated(field: field) }
            var value: T = 0
            for i in 0..<size { value = value << 8 | T(bytes[offset + i]) }
            offset += size
            return value
        }

        mutating func string(field: String) throws(DrumNetError) -> String {
            guard let end = bytes[offset...].firstIndex(of: 0) else { throw .truncated(field: field) }
            let padded = (end - offset + 1 + 3) / 4 * 4
            guard offset + padded <= bytes.count else { throw .truncated(field: field) }
            guard bytes[(end + 1)..<(offset + padded)].allSatisfy({ $0 == 0 }) else {
                throw .nonZeroPadding(field: field)
            }
            guard let text = String(validating: bytes[offset..<end], as: UTF8.self) else {
                throw .invalidUTF8(field: field)
            }
            offset += padded
            return text
        }

        mutating func blob() throws(DrumNetError) -> [UInt8] {
            let size = try bigEndian(UInt32.self, field: "blob size")
            guard size <= UInt32(remaining) else { throw .truncated(field: "blob") }
            let count = Int(size)
            let padded = (count + 3) / 4 * 4
            guard padded <= remaining else { throw .truncated(field: "blob padding") }
            guard bytes[(offset + count)..<(offset + padded)].allSatisfy({ $0 == 0 }) else {
                throw .nonZeroPadding(field: "blob")
            }
            let blob = Array(bytes[offset..<(offset + count)])
            offset += padded
            return blob
        }
    }
}

extension OSCMessage {
    /// A decoded message; its address was already checked.
    init(checkedAddress: String, arguments: [OSCArgument]) {
        self.address = checkedAddress
        self.arguments = arguments
    }
}

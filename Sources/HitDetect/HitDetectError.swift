/// Everything that can go wrong in HitDetect: reading sensor logs and label files, and invalid
/// settings given by a user.
///
/// Each description reads `file:line: what is wrong`, followed by the fix where there is one.
public enum HitDetectError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file has no header line: it is empty or holds only comments and blank lines.
    case missingHeader(file: String)
    /// The header lacks a required column (`t` or `z` for a sensor log, `t` for labels).
    case missingColumn(file: String, line: Int, column: String, found: [String])
    /// The header names the same column twice.
    case duplicateColumn(file: String, line: Int, column: String)
    /// A data row has more or fewer fields than the header.
    case wrongFieldCount(file: String, line: Int, expected: Int, found: Int)
    /// A field that must hold a number does not.
    case badNumber(file: String, line: Int, column: String, text: String)
    /// A field holds NaN or an infinity.
    case nonFiniteNumber(file: String, line: Int, column: String, text: String)
    /// A field holds a number beyond ±`SensorLogReader.largestValue`.
    case numberTooLarge(file: String, line: Int, column: String, text: String)
    /// The time column went backwards.
    case timeDecreased(file: String, line: Int, previous: Double, current: Double)
    /// A line is longer than the reader accepts; the file is probably not a sensor log.
    case lineTooLong(file: String, line: Int, limit: Int)
    /// A setting is out of its range (a negative threshold, an empty sweep grid, ...).
    case invalidSetting(name: String, value: String, expected: String)

    public var description: String {
        switch self {
        case .missingHeader(let file):
            return "\(file): no header line (the file is empty or holds only comments); "
                + "the first non-comment line must name the columns, such as t,x,y,z"
        case .missingColumn(let file, let line, let column, let found):
            return "\(file):\(line): header has no \"\(column)\" column (found: "
                + "\(found.joined(separator: ","))); add it, spelled exactly \"\(column)\""
        case .duplicateColumn(let file, let line, let column):
            return "\(file):\(line): header names column \"\(column)\" twice; keep one"
        case .wrongFieldCount(let file, let line, let expected, let found):
            return "\(file):\(line): expected \(expected) fields as in the header, found \(found)"
        case .badNumber(let file, let line, let column, let text):
            return "\(file):\(line): column \"\(column)\": \"\(text)\" is not a number"
        case .nonFiniteNumber(let file, let line, let column, let text):
            return "\(file):\(line): column \"\(column)\": \"\(text)\" is not a finite number"
        case .numberTooLarge(let file, let line, let column, let text):
            return "\(file):\(line): column \"\(column)\": \"\(text)\" is beyond ±1e12 "
                + "(more g than any sensor reads, more seconds than a log's clock holds)"
        case .timeDecreased(let file, let line, let previous, let current):
            return "\(file):\(line): t goes backwards (\(current) after \(previous)); "
                + "t must be non-decreasing"
        case .lineTooLong(let file, let line, let limit):
            return "\(file):\(line): line longer than \(limit) bytes; is this a sensor log CSV?"
        case .invalidSetting(let name, let value, let expected):
            return "\(name): \"\(value)\" is not valid; expected \(expected)"
        }
    }
}

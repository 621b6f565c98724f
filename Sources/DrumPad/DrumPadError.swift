#if canImport(Glibc)
import Glibc
#endif

/// Errors of the `drumpad` executable's own I/O; detector and log errors are `HitDetectError`.
enum DrumPadError: Error, CustomStringConvertible {
    /// A file could not be opened; carries `errno`.
    case cannotOpen(path: String, errno: Int32)
    /// Reading a file failed part-way; carries `errno`.
    case readFailed(path: String, errno: Int32)
    /// Writing standard output failed; carries `errno`.
    case writeFailed(what: String, errno: Int32)
    /// Writing a sensor log failed (a full disk); the file was cut back to its last whole row.
    case logWriteFailed(path: String, errno: Int32, rowsKept: Int)
    /// What was asked cannot be done as given; the message says why and the fix.
    case usage(String)

    var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            return "\(path): cannot open: \(String(cString: strerror(code)))"
        case .readFailed(let path, let code):
            return "\(path): read failed: \(String(cString: strerror(code)))"
        case .writeFailed(let what, let code):
            return "writing \(what) failed: \(String(cString: strerror(code)))"
        case .logWriteFailed(let path, let code, let rows):
            return "\(path): write failed: \(String(cString: strerror(code))); the \(rows) rows before are "
                + "kept and the file is a readable log; free some space, or record to another disk"
        case .usage(let message):
            return message
        }
    }
}

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

    var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            return "\(path): cannot open: \(String(cString: strerror(code)))"
        case .readFailed(let path, let code):
            return "\(path): read failed: \(String(cString: strerror(code)))"
        case .writeFailed(let what, let code):
            return "writing \(what) failed: \(String(cString: strerror(code)))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Whole small text files, read and written at once (the brain's state, replay's outputs).
///
/// Thread safety: any thread; the caller owns the path.
public enum TextFile {
    /// Why a file could not be read or written: `PATH: strerror`.
    public struct Failure: Error, CustomStringConvertible {
        /// `path: what went wrong`.
        public var description: String
    }

    /// The whole file, refused past `limit` bytes (an endless input stops there). The
    /// corresponding C functions are `open` and `read`.
    public static func readBytes(_ path: String, limit: Int = Int.max) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "\(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "\(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return bytes }
            guard n <= limit - bytes.count else { throw Failure(description: "\(path): larger than \(limit >> 20) MiB") }
            bytes.append(contentsOf: chunk[..<n])
        }
    }

    /// Writes `text` to `path`, replacing it; the folder above it is made if missing. The
    /// corresponding C functions are `mkdir`, `open` and `write`.
    public static func write(_ text: String, to path: String) throws(Failure) {
        for i in path.indices where path[i] == "/" && i != path.startIndex {
            mkdir(String(path[..<i]), 0o755)  // there already: fine; else open below says why
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var copy = text
        let ok = copy.withUTF8 { utf8 -> Bool in
            var offset = 0
            while offset < utf8.count {
                let n = Glibc.write(fd, utf8.baseAddress! + offset, utf8.count - offset)
                if n < 0 { if errno == EINTR { continue }; return false }
                offset += n
            }
            return true
        }
        guard ok else { throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))") }
    }
}

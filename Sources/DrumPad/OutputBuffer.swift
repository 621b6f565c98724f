#if canImport(Glibc)
import Glibc
#endif

/// Buffers bytes for a file descriptor and writes them in large writes.
struct OutputBuffer: ~Copyable {
    let descriptor: Int32
    let name: String
    var bytes: [UInt8] = []

    init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
        bytes.reserveCapacity(1 << 16)
    }

    /// Appends text.
    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Writes out once 64 KiB are waiting.
    mutating func flushIfFull() throws(DrumPadError) {
        if bytes.count >= 1 << 16 { try flush() }
    }

    /// Writes out everything buffered. The corresponding C function is `write`.
    mutating func flush() throws(DrumPadError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                write(descriptor, raw.baseAddress! + offset, raw.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(what: name, errno: errno)
            }
            offset += written
        }
        bytes.removeAll(keepingCapacity: true)
    }
}

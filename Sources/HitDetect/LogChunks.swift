#if canImport(Glibc)
import Glibc
#endif

/// A sensor log read from a file descriptor in large chunks through a `SensorLogReader`, each
/// chunk's partial last line carried over to the next, so that any input is read in constant
/// memory (an endless one, `/dev/zero`, stops at the reader's longest line). `drumpad` reads its
/// logs this way (its `FileChunks`), and `drumbrain replay` its pads' (`PadLogDetection`).
///
/// Thread safety: stateless. The corresponding C function is `read`.
public enum LogChunks {
    /// A `read` that failed (not interrupted), with its `errno`.
    public struct ReadFailed: Error, Sendable {
        public let errno: Int32
    }

    /// Feeds everything `descriptor` holds through `reader` into `batch`, `chunkBytes` at a time
    /// (more, where a line is longer), calling `body` after each chunk with the samples
    /// parsed from it and the bytes that chunk read; the batch is emptied after `body` returns
    /// unless `keepBatch`. When a row is bad, the rows before it are handed to `body` before the
    /// reader's error is thrown, so nothing already read is lost. Throws `ReadFailed`, the
    /// reader's errors, and `body`'s.
    public static func read(
        descriptor: Int32, chunkBytes: Int, with reader: inout SensorLogReader, into batch: inout SensorBatch,
        keepBatch: Bool = false, _ body: (inout SensorBatch, _ bytes: Int) throws -> Void
    ) throws {
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        var filled = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress! + filled, raw.count - filled)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw ReadFailed(errno: errno)
            }
            filled += got
            let isEnd = got == 0
            let consumed: Int
            do {
                consumed = try buffer.withUnsafeBytes { raw in
                    try reader.read(UnsafeRawBufferPointer(rebasing: raw[..<filled]), isEnd: isEnd, into: &batch)
                }
            } catch {
                try body(&batch, got)
                throw error
            }
            try body(&batch, got)
            if !keepBatch { batch.removeAll() }
            if isEnd { break }
            // Carry the partial line to the front; it is short (at most one line).
            if consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    let base = raw.baseAddress!
                    _ = memmove(base, base + consumed, filled - consumed)
                }
                filled -= consumed
            }
            // A line longer than a chunk: room for the rest of it (the reader stops a line at its
            // longest, so the buffer grows at most past that once).
            if filled == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
        }
        try reader.finish()
    }
}

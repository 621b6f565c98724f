#if canImport(Glibc)
import Glibc
#endif
import HitDetect

/// Reads a file in large chunks and hands them to a `SensorLogReader`, carrying each chunk's
/// partial last line over to the next, so any file is read in constant memory.
struct FileChunks: ~Copyable {
    /// Bytes read per chunk when reading as fast as possible (`drumpad replay`); larger than the
    /// reader's longest line.
    static let chunkBytes = 1 << 20
    /// Bytes read per chunk when replaying in real time (`drumpad run --replay`): a chunk's rows
    /// are held until they are due, and a pad on a board has little memory to hold them in
    /// (1 MiB of CSV is about 20,000 rows; this, about 2,600, is over a second at 1,600 Hz).
    static let realTimeChunkBytes = 1 << 17

    let path: String
    let descriptor: Int32
    /// Size of the file when opened, for progress (0 for pipes).
    let sizeBytes: Int
    private(set) var bytesRead = 0

    /// Opens `path` for reading. The corresponding C function is `open`.
    init(path: String) throws(DrumPadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var info = stat()
        sizeBytes = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : 0
        self.path = path
        descriptor = fd
        _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)  // a hint only; its failure changes nothing
    }

    deinit { close(descriptor) }


    /// The whole file at `path` (for small files such as evemu recordings).
    static func readAll(path: String) throws(DrumPadError) -> [UInt8] {
        let file = try FileChunks(path: path)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(file.descriptor, $0.baseAddress, $0.count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .readFailed(path: path, errno: errno) }
            if got == 0 { return bytes }
            bytes.append(contentsOf: buffer[0..<got])
        }
    }

    /// Feeds the whole file through `reader` into `batch`, calling `body` after each chunk with
    /// the samples parsed from it and the bytes read so far (the batch is emptied after `body`
    /// returns unless `keepBatch`), reading `chunkBytes` at a time (`LogChunks`: the rows before
    /// a bad one are handed on first).
    mutating func read(
        with reader: inout SensorLogReader, into batch: inout SensorBatch, keepBatch: Bool = false,
        chunkBytes: Int = Self.chunkBytes, _ body: (inout SensorBatch, _ bytesRead: Int) throws -> Void
    ) throws {
        var total = bytesRead
        defer { bytesRead = total }
        do {
            try LogChunks.read(descriptor: descriptor, chunkBytes: chunkBytes, with: &reader, into: &batch,
                               keepBatch: keepBatch) { batch, bytes in
                total += bytes
                try body(&batch, total)
            }
        } catch let failed as LogChunks.ReadFailed {
            throw DrumPadError.readFailed(path: path, errno: failed.errno)
        }
    }
}

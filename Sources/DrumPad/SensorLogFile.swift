#if canImport(Glibc)
import Glibc
#endif
import HitDetect
import PadSensors
import Monotonic

/// A sensor log being written to disk so that a power cut loses at most about a second: rows are
/// written out every quarter second and forced to the disk (`fdatasync`) every second. A failed
/// write (a full disk) cuts the file back to its last whole row, so what was written stays a
/// readable log, and then throws.
final class SensorLogFile {
    let path: String
    private let fd: Int32
    private var writer: SensorLogWriter
    private var committedBytes: Int64 = 0
    private var lastWriteMicros: Int64
    private var lastSyncMicros: Int64
    /// Rows written so far.
    private(set) var rows = 0
    private var committedRows = 0

    /// Creates (or truncates) `path` and writes the header with `metadata`.
    init(path: String, metadata: [(key: String, value: String)], valueDecimals: Int) throws(DrumPadError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        self.path = path
        writer = SensorLogWriter(metadata: metadata, timeDecimals: 6, valueDecimals: valueDecimals)
        let now = MonotonicClock.nowMicros()
        lastWriteMicros = now
        lastSyncMicros = now
        try writeOut()
    }

    deinit { close(fd) }

    /// Appends one row (in memory; `flushIfDue`, which the read loop calls after each read,
    /// writes it out).
    func append(time: Double, x: Double, y: Double, z: Double) {
        writer.append(time: time, x: x, y: y, z: z)
        rows += 1
    }

    /// Marks lost samples before the next row.
    func appendGap() {
        writer.appendGap()
    }

    /// Appends a `# key: value` comment (metadata learned while recording, such as the rate).
    func appendComment(_ text: String) {
        writer.appendComment(text)
    }

    /// Writes out every quarter second, syncs every second.
    func flushIfDue() throws(DrumPadError) {
        let now = MonotonicClock.nowMicros()
        if now - lastWriteMicros >= 250_000 || writer.bytes.count >= 1 << 16 {
            try writeOut()
            lastWriteMicros = now
        }
        if now - lastSyncMicros >= 1_000_000 {
            _ = fdatasync(fd)  // a failing sync shows up as a failing write next; the data is in the page cache
            lastSyncMicros = now
        }
    }

    /// Writes everything out and syncs; call before closing.
    func finish() throws(DrumPadError) {
        try writeOut()
        guard fsync(fd) == 0 else { throw .writeFailed(what: path, errno: errno) }
    }

    private func writeOut() throws(DrumPadError) {
        let bytes = writer.take()
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                let code = n < 0 ? errno : ENOSPC
                // Cut back to the last whole row, so the file stays a readable log.
                _ = ftruncate(fd, off_t(committedBytes))
                throw .logWriteFailed(path: path, errno: code, rowsKept: committedRows)
            }
            done += n
        }
        committedBytes += Int64(bytes.count)
        committedRows = rows
    }
}

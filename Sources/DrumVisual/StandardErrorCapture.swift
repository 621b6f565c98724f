#if canImport(Glibc)
import Glibc
#endif

/// While the visual owns the terminal, standard error goes into a pipe instead, so messages
/// (the brain's own, and C libraries' such as ALSA's) do not smear the picture. The render
/// thread shows the latest line in the status area; `finish` puts standard error back and
/// returns everything captured, for the caller to print on the restored screen.
///
/// Thread safety: `drain` from the render thread; `finish` from the control side after the
/// render thread has stopped.
public final class StandardErrorCapture: @unchecked Sendable {
    // @unchecked: `pending` and `lines` are touched by one thread at a time: the render thread
    // while it runs, then the control side after joining it.
    private let readEnd: Int32
    /// A descriptor of the original standard error.
    public let saved: Int32
    private var pending: [UInt8] = []
    private var lines: [String] = []
    private var droppedLines = 0
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    /// The most lines kept for printing afterwards.
    public static let keptLines = 500

    /// Redirects standard error into a pipe; nil if that cannot be done (it is left as it was).
    /// The corresponding C functions are `pipe`, `dup` and `dup2`.
    public init?() {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return nil }
        let saved = dup(2)
        guard saved >= 0, dup2(ends[1], 2) >= 0 else {
            close(ends[0]); close(ends[1])
            if saved >= 0 { close(saved) }
            return nil
        }
        close(ends[1])
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)  // blocking reads would only be slower to stop
        _ = fcntl(saved, F_SETFD, FD_CLOEXEC)  // children get the pipe as their stderr, not this
        readEnd = ends[0]
        self.saved = saved
    }

    deinit { buffer.deallocate() }

    /// Reads what arrived; returns the last complete line, if any arrived.
    public func drain() -> String? {
        var last: String?
        while true {
            let n = read(readEnd, buffer, 4096)
            guard n > 0 else { break }
            for byte in UnsafeBufferPointer(start: buffer, count: n) {
                if byte == 0x0A {
                    let line = String(decoding: pending, as: UTF8.self)
                    pending.removeAll(keepingCapacity: true)
                    if lines.count >= Self.keptLines {
                        lines.removeFirst()
                        droppedLines += 1
                    }
                    lines.append(line)
                    last = line
                } else {
                    pending.append(byte)
                }
            }
        }
        return last
    }

    /// Puts standard error back (if a signal path has not already) and returns every line
    /// captured, oldest first, ending with what an unfinished line held.
    public func finish() -> [String] {
        _ = dup2(saved, 2)  // idempotent: the restore path may have done it
        _ = drain()
        close(readEnd)
        close(saved)
        var all = lines
        if !pending.isEmpty { all.append(String(decoding: pending, as: UTF8.self)) }
        if droppedLines > 0 { all.insert("(\(droppedLines) earlier lines not kept)", at: 0) }
        return all
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The audio thread's timing, period by period, for measuring the legs of the audio clock
/// (`tools/bench/jitter --trace`): when each period began, how many frames had been rendered
/// before it, and how many frames the device said were written but not yet heard
/// (`snd_pcm_delay`, -1 where there is no device or it could not say).
///
/// Set `DRUMBRAIN_CLOCK_TRACE=FILE` for the brain to keep one; it is written as CSV
/// (`micros,rendered,delay`) when the brain stops. The first `capacity` periods are kept
/// (2^18: 12 minutes at 128 frames and 48 kHz).
///
/// Real-time safety: `record` writes into memory allocated (and touched) at creation, no
/// more; `write(to:)` runs on the control side after the audio thread has stopped.
public final class ClockTrace: @unchecked Sendable {
    // @unchecked: the audio thread writes while it runs; the control side reads only after
    // `AudioEngine.stop` has joined it.
    public static let capacity = 1 << 18
    private let values: UnsafeMutablePointer<Int64>
    private var count = 0

    public init() {
        values = .allocate(capacity: Self.capacity * 3)
        values.initialize(repeating: 0, count: Self.capacity * 3)
    }

    deinit { values.deallocate() }

    /// One period. Audio thread.
    @inline(__always)
    func record(micros: Int64, rendered: Int64, delay: Int64) {
        guard count < Self.capacity else { return }
        values[count * 3] = micros
        values[count * 3 + 1] = rendered
        values[count * 3 + 2] = delay
        count += 1
    }

    /// Writes the trace as CSV; false if the file could not be written.
    public func write(to path: String) -> Bool {
        guard let file = fopen(path, "w") else { return false }
        defer { fclose(file) }
        fputs("micros,rendered,delay\n", file)
        for i in 0..<count {
            fputs("\(values[i * 3]),\(values[i * 3 + 1]),\(values[i * 3 + 2])\n", file)
        }
        return ferror(file) == 0
    }
}

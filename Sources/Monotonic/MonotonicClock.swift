#if canImport(Glibc)
import Glibc
#endif

/// The system's monotonic clock (CLOCK_MONOTONIC), shared by every process on a host: pads stamp
/// hits with it, the brain measures arrival with it, and the audio thread times its periods by it.
///
/// Thread safety: safe anywhere. Real-time safety: `nowMicros` is a vDSO call, with no system
/// call, allocation or lock.
public enum MonotonicClock {
    /// Now, in µs. The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    @inline(__always)
    public static func nowMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// Sleeps until `micros` on this clock. The corresponding C function is
    /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`.
    public static func sleep(untilMicros micros: Int64) {
        var deadline = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}

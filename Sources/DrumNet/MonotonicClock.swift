#if canImport(Glibc)
import Glibc
#endif

/// The system's monotonic clock (CLOCK_MONOTONIC), shared by every process on a host: pads stamp
/// hits with it and the brain measures arrival with it.
public enum MonotonicClock {
    /// Now, in µs. The corresponding C function is `clock_gettime(CLOCK_MONOTONIC)`.
    ///
    /// Thread safety: safe anywhere. Real-time safety: a vDSO call; no allocation or lock.
    public static func nowMicros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}

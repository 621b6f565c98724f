#if canImport(Glibc)
import Glibc
#endif

/// The monotonic clock in µs, as the audio side reads it (the same clock as `DrumNet`'s and
/// the pads'). Real-time safe: vDSO, no system call, no lock.
@inline(__always)
func monotonicMicros() -> Int64 {
    var clock = timespec()
    clock_gettime(CLOCK_MONOTONIC, &clock)
    return Int64(clock.tv_sec) * 1_000_000 + Int64(clock.tv_nsec) / 1000
}

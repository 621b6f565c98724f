#if canImport(Glibc)
import Glibc
#endif

/// The adaptive detector's two measures of each sample, shared with calibration so both work in
/// the same units: `departure`, |h| where h is z through `HighPass` (the size of the shock: where
/// a strike began, its peak, the re-arm level), and `trigger`, |h'| where h' is h through a second
/// `HighPass` of the same time constant (what must pass the noise floor and the minimum: a short
/// shock keeps most of it, a slow bounce little).
///
/// Thread safety: a value type. Real-time safety: arithmetic only.
public struct ShockFilter: Sendable {
    private var first: HighPass
    private var second: HighPass
    /// The last sample's h, signed.
    public private(set) var h = 0.0

    /// Both stages with the low-pass time constant `timeConstantMs`.
    public init(timeConstantMs: Double) {
        first = HighPass(timeConstantMs: timeConstantMs)
        second = HighPass(timeConstantMs: timeConstantMs)
    }

    /// Starts from `z` (after a gap, or at the first sample): nothing has changed yet.
    public mutating func prime(_ z: Double) {
        first.prime(z)
        second.prime(0)
        h = 0
    }

    /// |h| and |h'| of `z`, taken `dt` seconds after the previous sample.
    public mutating func filter(_ z: Double, dt: Double) -> (departure: Double, trigger: Double) {
        let step = first.step(dt: dt)  // the stages share a time constant: one exp per sample
        h = first.filter(z, step: step)
        return (abs(h), abs(second.filter(h, step: step)))
    }
}

/// z minus a one-pole low-pass of itself: what is left of a signal once gravity, tilt and slow
/// handling are taken out. Each stage of `ShockFilter` (its only use). Time-aware: `dt` may vary from sample to
/// sample.
///
/// Thread safety: a value type. Real-time safety: arithmetic only.
struct HighPass: Sendable {
    /// The low-pass' time constant in ms.
    let timeConstantMs: Double
    private var lowPass = 0.0

    /// A filter with the low-pass time constant `timeConstantMs`.
    init(timeConstantMs: Double) {
        self.timeConstantMs = timeConstantMs
    }

    /// Starts from `z` (after a gap, or at the first sample): nothing has changed yet.
    mutating func prime(_ z: Double) {
        lowPass = z
    }

    /// How far the low-pass moves towards a sample taken `dt` seconds after the previous one.
    func step(dt: Double) -> Double {
        1 - exp(-dt * 1000 / timeConstantMs)
    }

    /// The high-passed value of `z`, the low-pass moving by `step` (from `step(dt:)`).
    mutating func filter(_ z: Double, step: Double) -> Double {
        let h = z - lowPass
        lowPass += step * h
        return h
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Noise for simulated sensors: a xorshift generator, the same draws on every run.
public struct Noise: Sendable {
    public var state: UInt64

    /// A generator from `state` (never 0).
    public init(state: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        self.state = state
    }

    /// The next draw, −1...1.
    public mutating func next() -> Double {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Double(state % 2_000_001) / 1_000_000 - 1  // −1...1
    }
}

/// A sensor's own low-pass, simulated: a second-order Butterworth at `cutoff` Hz (bilinear
/// transform) run at `rate` Hz, starting at rest on `initial`.
public struct SensorLowPass: Sendable {
    private let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    private var x1: Double, x2: Double, y1: Double, y2: Double

    /// The filter; see the type.
    public init(cutoff: Double, rate: Double, initial: Double = 0) {
        let k = tan(Double.pi * cutoff / rate), norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
        (x1, x2, y1, y2) = (initial, initial, initial, initial)
    }

    /// The filtered value of the next input `x`.
    public mutating func filter(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        (x2, x1, y2, y1) = (x1, x, y1, y)
        return y
    }
}

/// A stick's strike on a pad as a sensor at 100–250 Hz sees it, `age` s after its onset, in g
/// along the strike: a 2 ms shock into the pad of `amplitude`, then its mount swinging back at
/// 40 Hz with `swingBack` of it, dying over 20 ms.
public func strikeMotion(age: Double, amplitude: Double, swingBack: Double = 0.6) -> Double {
    var motion = 0.0
    if age < 0.002 { motion -= amplitude * sin(.pi * age / 0.002) }
    let swing = age - 0.002
    if swing >= 0 { motion += swingBack * amplitude * sin(2 * .pi * 40 * swing) * exp(-swing / 0.02) }
    return motion
}

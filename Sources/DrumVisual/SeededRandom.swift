/// A small, fast, seedable random number generator (SplitMix64), so the particle system is
/// deterministic in tests and cheap per particle.
///
/// Thread safety: a value type; each owner uses its own.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<1`.
    public mutating func unit() -> Float {
        Float(next() >> 40) / Float(1 << 24)
    }

    /// A uniform value in `range`.
    public mutating func float(in range: ClosedRange<Float>) -> Float {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }
}

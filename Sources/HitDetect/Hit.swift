/// One detected hit.
///
/// Thread safety: a plain value, safe to send anywhere.
/// Real-time safety: trivially copyable; creating one never allocates.
public struct Hit: Equatable, Sendable {
    /// 0-based index of the sample that fired, counting every sample the detector was given.
    public var index: Int
    /// When the strike happened, in seconds on the source's clock, by the detector's estimate:
    /// the time of the sample `index` (`sampleTime`), or, for the adaptive detector under 500 Hz,
    /// within half a sample period of it (where in its period the strike began, from how far
    /// that sample had moved). This is the time sent on the wire and scored.
    public var time: Double
    /// The time of the sample `index`, in seconds, as the source gave it.
    public var sampleTime: Double
    /// The detector's value that fired: the squared delta in g² for the default detector,
    /// |Δz| in g for `tvdrums`.
    public var strength: Double
    /// How hard the strike was, 0...1, from `strength` through a `VelocityCurve`.
    public var velocity: Double

    /// Creates a hit; `sampleTime` (the time of the sample `index`) is `time` unless given.
    @inlinable
    public init(index: Int, time: Double, strength: Double, velocity: Double, sampleTime: Double? = nil) {
        self.index = index
        self.time = time
        self.sampleTime = sampleTime ?? time
        self.strength = strength
        self.velocity = velocity
    }
}

/// Maps the size of the jump in z that fired a hit to a velocity in 0...1.
///
/// The mapping is linear in the jump's amplitude |Δz| (in g): a jump just over the detector's
/// threshold gets `floor`, a jump of `fullScale` g gets 1 − `headroom`, and everything between is
/// on the straight line joining them (or the `shape` between the same ends). Stronger jumps keep
/// rising towards 1 without reaching it (1 − headroom / p, p the amplitude's position, 1 at full
/// scale), so the order of loud strikes is kept: a sensor that reads strikes past full scale no
/// longer plays them all at 1, a tie. It is monotonic (increasing past the threshold), so a harder
/// strike never plays softer. `floor` keeps the softest detected strike audible.
///
/// Why the headroom: on the independent stand corpus (`tools/corpus/independent`) a third to
/// two thirds of the played strokes of 100-250 Hz pads read past the adaptive detector's 3 g
/// full scale, and their tie held the velocity's rank correlation with the strike strength to
/// 0.67 (phones), 0.79 (Joy-Con) and 0.79 (DualSense) at worst; kept in order, 0.71, 0.83 and
/// 0.87 (independent-stands-notebook-2.md, "Loud strikes kept in order").
///
/// Thread safety: a plain value. Real-time safety: `velocity(...)` is arithmetic only.
public struct VelocityCurve: Equatable, Sendable {
    /// Velocity of a hit whose amplitude is exactly at the threshold, 0...1.
    public var floor: Double
    /// Amplitude |Δz| in g that maps to velocity 1 − `headroom` (stronger ones rise towards 1).
    public var fullScale: Double
    /// How the position between threshold and full scale becomes velocity.
    public var shape: Shape
    /// The share of the velocity range kept for jumps past `fullScale`: a jump at full scale
    /// plays at 1 − headroom, stronger ones approach 1 (0: they all play at 1). At most half of
    /// what lies above `floor` is used, so the line from the floor always rises.
    public var headroom: Double

    /// The curve's shape over the position p (0 at the threshold, 1 at full scale).
    public enum Shape: String, CaseIterable, Sendable {
        /// p: velocity proportional to the strike's amplitude.
        case linear
        /// √p: soft strikes come out louder (a light touch, ghost notes).
        case soft
        /// p²: soft strikes come out softer (more dynamics for a heavy hitter).
        case hard
    }

    /// Creates a curve; the defaults suit a ±4 g sensor struck with a stick.
    public init(floor: Double = 0.1, fullScale: Double = 2.0, shape: Shape = .linear, headroom: Double = 0.05) {
        precondition(floor >= 0 && floor <= 1, "velocity floor must be within 0...1")
        precondition(fullScale > 0, "velocity full scale must be positive")
        precondition(headroom >= 0 && headroom <= 1, "velocity headroom must be within 0...1")
        self.floor = floor
        self.fullScale = fullScale
        self.shape = shape
        self.headroom = headroom
    }

    /// The velocity of a hit of amplitude `amplitude` when the threshold amplitude is
    /// `thresholdAmplitude` (both |Δz| in g).
    @inlinable
    public func velocity(amplitude: Double, thresholdAmplitude: Double) -> Double {
        let span = fullScale - thresholdAmplitude
        guard span > 0 else { return 1 }
        let position = (amplitude - thresholdAmplitude) / span
        let room = Swift.max(0, Swift.min(headroom, (1 - floor) / 2))
        if position > 1 && room > 0 { return 1 - room / position }
        let clamped = position < 0 ? 0 : (position > 1 ? 1 : position)
        let shaped: Double
        switch shape {
        case .linear: shaped = clamped
        case .soft: shaped = clamped.squareRoot()
        case .hard: shaped = clamped * clamped
        }
        return floor + (1 - room - floor) * shaped
    }
}

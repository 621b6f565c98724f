/// The default detector (docs/architecture.md, Detection): the squared difference of consecutive z readings
/// against a threshold, with a refractory period counted in samples.
///
/// For each sample n ≥ 1, `d[n] = (z[n] − z[n−1])²`; a hit fires at n when `d[n] > threshold`
/// (strictly) and n is not within the refractory period of the last hit: after a hit at n,
/// samples n+1 … n+R cannot fire and n+R+1 can. Sample 0, and the first sample after a gap, only
/// prime the previous value. The previous value updates on every sample, refractory or not.
///
///     ┌─────────┐ sample  ┌───────┐ d > threshold ┌────────────┐ R samples
///     │ unprimed├────────►│ armed ├──────────────►│ refractory ├──────────┐
///     └─────────┘         └───────┘◄──────────────┴────────────┘◄─────────┘
///          ▲ markGap() from any state
///
/// Thread safety: a value type; use each instance from one thread at a time.
/// Real-time safety: `process` does arithmetic only; it never allocates, locks or blocks.
public struct SquaredDeltaDetector: HitDetector, Sendable {
    /// The detector's settings.
    public struct Configuration: Equatable, Sendable {
        /// A hit needs a squared delta strictly above this, in g².
        public var threshold: Double
        /// Samples after a hit that cannot fire.
        public var refractorySamples: Int
        /// How strength becomes velocity.
        public var velocity: VelocityCurve

        /// Creates settings; the defaults are docs/architecture.md, Detection's.
        public init(threshold: Double = 0.4, refractorySamples: Int = 10,
                    velocity: VelocityCurve = VelocityCurve()) {
            precondition(threshold >= 0, "threshold must not be negative")
            precondition(refractorySamples >= 0, "refractory must not be negative")
            self.threshold = threshold
            self.refractorySamples = refractorySamples
            self.velocity = velocity
        }
    }

    /// The settings this detector runs with.
    public let configuration: Configuration
    @usableFromInline let threshold: Double
    @usableFromInline let refractory: Int
    @usableFromInline let thresholdAmplitude: Double
    @usableFromInline var previous: Double = 0
    @usableFromInline var primed = false
    /// Samples still blocked by the last hit's refractory period.
    @usableFromInline var blocked = 0
    @usableFromInline var samplesSeen = 0

    public var sampleCount: Int { samplesSeen }

    /// Creates a detector in its unprimed state.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.threshold = configuration.threshold
        self.refractory = configuration.refractorySamples
        self.thresholdAmplitude = configuration.threshold.squareRoot()
    }

    @inlinable
    public mutating func process(z: Double, time: Double) -> Hit? {
        let index = samplesSeen
        samplesSeen = index &+ 1
        let delta = z - previous
        previous = z
        let wasPrimed = primed
        primed = true
        if blocked > 0 {
            blocked &-= 1
            return nil
        }
        let strength = delta * delta
        guard wasPrimed && strength > threshold else { return nil }
        blocked = refractory
        return Hit(index: index, time: time, strength: strength,
                   velocity: configuration.velocity.velocity(
                       amplitude: strength.squareRoot(), thresholdAmplitude: thresholdAmplitude))
    }

    @inlinable
    public mutating func markGap() {
        primed = false
    }
}

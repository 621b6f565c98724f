/// The original tvOS app's detector, kept to compare against (docs/architecture.md, Detection, `tvdrums` mode).
///
/// The previous z starts at 0. A hit fires when `|Δz| > threshold` and `|Δz|` is greater than the
/// previous sample's `|Δz|`; after a hit the next `blockedSamples` (8 in the app) cannot fire.
/// The previous z and previous |Δz| update on every sample, blocked or not. Unlike the app, which
/// had no notion of one, a gap makes the next sample prime: it sets the previous z and a previous
/// |Δz| of 0 without firing.
///
/// Thread safety: a value type; use each instance from one thread at a time.
/// Real-time safety: `process` does arithmetic only; it never allocates, locks or blocks.
public struct TVDrumsDetector: HitDetector, Sendable {
    /// The detector's settings.
    public struct Configuration: Equatable, Sendable {
        /// A hit needs |Δz| strictly above this, in g.
        public var threshold: Double
        /// Samples after a hit that cannot fire.
        public var blockedSamples: Int
        /// How strength (|Δz|) becomes velocity.
        public var velocity: VelocityCurve

        /// Creates settings; the defaults are the app's.
        public init(threshold: Double = 0.4, blockedSamples: Int = 8,
                    velocity: VelocityCurve = VelocityCurve()) {
            precondition(threshold >= 0, "threshold must not be negative")
            precondition(blockedSamples >= 0, "blocked samples must not be negative")
            self.threshold = threshold
            self.blockedSamples = blockedSamples
            self.velocity = velocity
        }
    }

    /// The settings this detector runs with.
    public let configuration: Configuration
    @usableFromInline var previousZ: Double = 0
    @usableFromInline var previousDelta: Double = 0
    @usableFromInline var priming = false
    @usableFromInline var blocked = 0
    @usableFromInline var samplesSeen = 0

    public var sampleCount: Int { samplesSeen }

    /// Creates a detector with the previous z at 0, as the app started.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    @inlinable
    public mutating func process(z: Double, time: Double) -> Hit? {
        let index = samplesSeen
        samplesSeen = index &+ 1
        var delta = z - previousZ
        if delta < 0 { delta = -delta }
        previousZ = z
        if priming {
            priming = false
            previousDelta = 0
            if blocked > 0 { blocked &-= 1 }
            return nil
        }
        let rising = delta > previousDelta
        previousDelta = delta
        if blocked > 0 {
            blocked &-= 1
            return nil
        }
        guard delta > configuration.threshold && rising else { return nil }
        blocked = configuration.blockedSamples
        return Hit(index: index, time: time, strength: delta,
                   velocity: configuration.velocity.velocity(
                       amplitude: delta, thresholdAmplitude: configuration.threshold))
    }

    @inlinable
    public mutating func markGap() {
        priming = true
    }
}

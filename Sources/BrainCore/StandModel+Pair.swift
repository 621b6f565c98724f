extension StandModel {
    /// One ordered pair's evidence.
    public struct Pair: Sendable, Equatable {
        /// The coupling the responses show (receiver strength / source strength), nil before any.
        public var estimate: Double?
        /// Responses seen (decaying).
        public var responses: Double = 0
        /// Strikes strong enough to show through that were answered, as a running share.
        public var responseRate: Double = 1
        /// The coupling is below this, by the silences.
        public var upper: Double
        /// The stand's lag the responses show, µs (running mean).
        public var lagMicros: Double = 0
        /// The last `spreadResponses` responses' ratios, oldest first (not kept in the state
        /// file: after a restart a pair takes `margin` until it has answered that many again).
        public var lastRatios: [Double] = []
        /// The 14th of them in order (about their 85th percentile), once there are
        /// `spreadResponses` (`margin(_:estimate:)`).
        public var highRatio: Double?

        init(prior: Double) { upper = prior }
    }

    /// An ordered pair of pad numbers.
    public struct PairKey: Hashable, Sendable {
        /// The pad whose strike shakes the stand.
        public var source: Int
        /// The pad that feels it.
        public var receiver: Int
    }

    /// A pad's recent hit, kept for a window's worth of time.
    struct Recent: Sendable {
        var pad: Int
        var strikeMicros: Int64
        var strength: Double
        var id: UInt32
        /// Whether its silences have been taken into account.
        var settled = false
        /// Whether it can cause crosstalk: not itself explained as crosstalk.
        var isSource = true
        /// Whether the pad felt it as a push (not played).
        var felt = false
        /// The hit it was judged crosstalk of, if any.
        var cause: UInt32?
    }

    /// The coupled pairs now, for the brain to show: (source key, receiver key, coupling, lag µs).
    public var couplings: [(source: String, receiver: String, coupling: Double, lagMicros: Double)] {
        pairs.keys.sorted { ($0.source, $0.receiver) < ($1.source, $1.receiver) }.compactMap { key in
            guard let pair = pairs[key], let estimate = pair.estimate, coupling(key).coupled else { return nil }
            return (padKeys[key.source], padKeys[key.receiver], estimate, pair.lagMicros)
        }
    }
}

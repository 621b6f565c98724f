/// Cancels crosstalk across pads that share a stand: a strike on one pad shakes its neighbours,
/// which can fire weakly a few milliseconds later. As trigger modules do (Roland's crosstalk
/// cancel, Edrumulus), a hit is dropped when another pad of the group fired within `window`
/// seconds before it with a velocity of at least 1 / `ratio` times its own: a hit at velocity
/// 0.2 is crosstalk under a neighbour's 0.5 when `ratio` is 0.5.
///
/// Causal, as the brain sees hits: each is decided when it arrives, against the hits that came
/// before it (a cancelled hit cancels nothing). Feed hits in the order they arrive (live) or in
/// time order (offline).
///
/// Pads struck together on purpose (a flam, a soft hit under a loud one on another drum) are
/// crosstalk to this rule too, so only pads that share a stand belong in a group.
///
/// Thread safety: a value type; the brain keeps it on its network thread. Real-time safety:
/// fixed storage, allocation-free after `init`.
public struct CrosstalkCanceller: Sendable {
    /// The settings of a group.
    public struct Configuration: Equatable, Sendable {
        /// How long after a louder hit, in seconds, a quieter one on another pad is crosstalk.
        public var window = 0.025
        /// A hit is crosstalk when its velocity is at most `ratio` × the louder hit's.
        public var ratio = 0.5

        public init(window: Double = 0.025, ratio: Double = 0.5) {
            self.window = window
            self.ratio = ratio
        }
    }

    private struct Recent: Sendable {
        var source = -1
        var time = -Double.infinity  // an empty slot is never within the window
        var velocity = 0.0
    }

    public let configuration: Configuration
    /// Hits cancelled so far.
    public private(set) var cancelled = 0
    // The last admitted hits, a ring: enough for 16 pads striking within one window.
    private var recent = InlineArray<16, Recent>(repeating: Recent())
    private var next = 0

    /// A canceller with `configuration`.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Whether the hit of `source` (a pad or drum number) at `time` (seconds, one clock for
    /// every source) with `velocity` should sound: false when it is crosstalk of a louder hit of
    /// another source admitted before it (within the window either side: arrivals may be out of
    /// time order by a little).
    public mutating func admit(source: Int, time: Double, velocity: Double) -> Bool {
        let c = configuration
        for k in recent.indices {
            let earlier = recent[k]
            if earlier.source != source && abs(time - earlier.time) <= c.window
                && velocity <= c.ratio * earlier.velocity {
                cancelled += 1
                return false
            }
        }
        recent[next] = Recent(source: source, time: time, velocity: velocity)
        next = (next + 1) % recent.count
        return true
    }

    /// Offline: which of `hits` (each with its source, time and velocity, in any order) sound,
    /// deciding in time order as the brain would. Returns one flag per hit, in `hits`' order.
    public static func admitted(_ hits: [(source: Int, time: Double, velocity: Double)],
                                configuration: Configuration = Configuration()) -> [Bool] {
        var canceller = CrosstalkCanceller(configuration)
        var result = [Bool](repeating: true, count: hits.count)
        let order = hits.indices.sorted { (hits[$0].time, $0) < (hits[$1].time, $1) }
        for k in order {
            result[k] = canceller.admit(source: hits[k].source, time: hits[k].time, velocity: hits[k].velocity)
        }
        return result
    }
}

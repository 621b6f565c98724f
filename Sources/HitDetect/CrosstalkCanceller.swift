/// Cancels crosstalk across pads that share a stand: a strike on one pad shakes its neighbours,
/// which can fire weakly a few milliseconds later. As trigger modules do (Roland's crosstalk
/// cancel, Edrumulus), a hit is dropped when another pad of the group fired within `window`
/// seconds before it with a velocity of at least 1 / `ratio` times its own: a hit at velocity
/// 0.2 is crosstalk under a neighbour's 0.5 when `ratio` is 0.5.
///
/// Crosstalk fades, but a slow sensor can date it late: the stand's ringing, sampled at
/// 100–200 Hz, can take 30–40 ms to cross a pad's threshold. So for twice the window after a
/// louder hit, a hit of at most `ratio` / 2 of its velocity is crosstalk too. On the
/// corpus's crosstalk logs (17 seeds, with and without the jitter buffer) this took the
/// Joy-Con's seed 24 from F1 0.951 to 1.000 and the phone's cells up by up to 0.062, and
/// cancelled no strike.
///
/// Causal, as the brain sees hits: each is decided when it arrives, against the hits that came
/// before it (a cancelled hit cancels nothing). Feed hits in the order they arrive (live) or in
/// the order they would arrive (offline).
///
/// Hits do not always arrive in the order they were struck: a sensor that reports several
/// samples at once (a Joy-Con sends three every 15 ms) can deliver a neighbour's crosstalk
/// before the strike that caused it. When the brain holds hits before playing them (its jitter
/// buffer, `Configuration.hold`), a louder hit that arrives while an earlier quieter one still
/// waits takes that one back (`admit(…arrival:id:revoke:)`).
///
/// Pads struck together on purpose (a flam, a soft hit under a loud one on another drum, a much
/// softer one up to twice the window after it) are crosstalk to this rule too, so only pads
/// that share a stand belong in a group.
///
/// Thread safety: a value type; the brain keeps it on its network thread. Real-time safety:
/// fixed storage, allocation-free after `init`.
public struct CrosstalkCanceller: Sendable {
    /// The settings of a group.
    public struct Configuration: Equatable, Sendable {
        /// How long after a louder hit, in seconds, a quieter one on another pad is crosstalk.
        public var window: Double
        /// A hit is crosstalk when its velocity is at most `ratio` × the louder hit's. 0.6, not
        /// 0.5: velocity starts at the curve's floor (0.1), so a pad's crosstalk at the floor
        /// under a neighbour's modest 0.17–0.2 is 0.5–0.6 of it (a 100 Hz pad's strikes often
        /// measure that soft). On the corpus's crosstalk logs (17 seeds, with and without the
        /// jitter buffer), 0.6 raised the phone's cells by up to 0.075 and changed no other.
        public var ratio: Double
        /// How long after its own time a hit still waits to be played, in seconds (the brain's
        /// jitter buffer): until then a louder hit arriving later can take it back. 0: each
        /// hit is decided for good when it arrives.
        public var hold: Double

        /// How long after a louder hit a much quieter one is still crosstalk: twice the window.
        public var tailWindow: Double { 2 * window }
        /// How quiet that much quieter hit is, at most, against the louder: half the ratio.
        public var tailRatio: Double { ratio / 2 }

        /// Settings with `window` and `hold` in seconds; the defaults are drumbrain's.
        public init(window: Double = 0.025, ratio: Double = 0.6, hold: Double = 0) {
            self.window = window
            self.ratio = ratio
            self.hold = hold
        }

        /// What is wrong with the command-line options `--crosstalk-window-ms`,
        /// `--crosstalk-ratio` and `--jitter-buffer-ms` (the same for drumbrain and drumpad
        /// replay), or nil when they are in range.
        public static func optionProblem(windowMs: Double, ratio: Double, jitterBufferMs: Double) -> String? {
            guard (0...1000).contains(windowMs) else { return "--crosstalk-window-ms must be 0…1000, such as 25" }
            guard ratio > 0 && ratio <= 1 else { return "--crosstalk-ratio must be over 0 and at most 1, such as 0.6" }
            guard (0...200).contains(jitterBufferMs) else { return "--jitter-buffer-ms must be 0…200, such as 5" }
            return nil
        }

        /// Whether the `quiet` hit (time in seconds, velocity) is crosstalk of the `loud` one
        /// on another pad: within `window` either side (arrivals may be out of time order by a
        /// little) at most `ratio` as loud, or up to `tailWindow` after it at most `tailRatio`.
        func isCrosstalk(quiet: (time: Double, velocity: Double), loud: (time: Double, velocity: Double)) -> Bool {
            let after = quiet.time - loud.time
            if abs(after) <= window { return quiet.velocity <= ratio * loud.velocity }
            return after > 0 && after <= tailWindow && quiet.velocity <= tailRatio * loud.velocity
        }
    }

    private struct Recent: Sendable {
        var source = -1
        var time = -Double.infinity  // an empty slot is never within the window
        var velocity = 0.0
        var id: UInt32 = 0
    }

    public let configuration: Configuration
    /// Hits cancelled so far, when they arrived.
    public private(set) var cancelled = 0
    /// Hits taken back so far: admitted, then shown to be crosstalk by a louder hit that arrived
    /// while they waited (see `Configuration.hold`).
    public private(set) var revoked = 0
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
    /// time order by a little). Decided for good: nothing is taken back.
    public mutating func admit(source: Int, time: Double, velocity: Double) -> Bool {
        admit(source: source, time: time, velocity: velocity, arrival: .infinity, id: 0) { _ in }
    }

    /// As `admit(source:time:velocity:)` for a hit that arrived at `arrival` (the clock of
    /// `time`) and is known by `id`; when it sounds, each earlier admitted hit it shows to be
    /// crosstalk that still waits to be played (its time + `hold` is after `arrival`) is taken
    /// back: `revoke` gets its id, and it is forgotten (it cancels nothing more).
    ///
    /// Real-time safety: no allocation; `revoke` is called synchronously.
    public mutating func admit(source: Int, time: Double, velocity: Double, arrival: Double, id: UInt32,
                               revoke: (UInt32) -> Void) -> Bool {
        let c = configuration
        for k in recent.indices {
            let earlier = recent[k]
            if earlier.source != source && earlier.source >= 0
                && c.isCrosstalk(quiet: (time, velocity), loud: (earlier.time, earlier.velocity)) {
                cancelled += 1
                return false
            }
        }
        if c.hold > 0 {
            for k in recent.indices {
                let earlier = recent[k]
                if earlier.source != source && earlier.source >= 0
                    && c.isCrosstalk(quiet: (earlier.time, earlier.velocity), loud: (time, velocity))
                    && arrival < earlier.time + c.hold {
                    recent[k] = Recent()
                    revoked += 1
                    revoke(earlier.id)
                }
            }
        }
        recent[next] = Recent(source: source, time: time, velocity: velocity, id: id)
        next = (next + 1) % recent.count
        return true
    }

    /// Offline: which of `hits` (each with its source, time, velocity and when it would arrive,
    /// in any order) sound, deciding in order of arrival (then time) as the brain would, taking
    /// back waiting hits as `configuration.hold` allows. Returns one flag per hit, in `hits`' order.
    public static func admitted(_ hits: [(source: Int, time: Double, velocity: Double, arrival: Double)],
                                configuration: Configuration = Configuration()) -> [Bool] {
        var canceller = CrosstalkCanceller(configuration)
        var result = [Bool](repeating: true, count: hits.count)
        let order = hits.indices.sorted { (hits[$0].arrival, hits[$0].time, $0) < (hits[$1].arrival, hits[$1].time, $1) }
        for k in order {
            let hit = hits[k]
            result[k] = canceller.admit(source: hit.source, time: hit.time, velocity: hit.velocity,
                                        arrival: hit.arrival, id: UInt32(k)) { result[Int($0)] = false }
        }
        return result
    }
}

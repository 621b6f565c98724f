import Monotonic
import Synchronization

/// The brain's one latency from strike to sound, chosen from what it measures when the user sets
/// none (`drumbrain` without `--jitter-buffer-ms`; docs/timing.md).
///
/// Every hit of a pad with clock sync starts at its strike time plus this latency, so the
/// spacing the drummer played is kept: a hit's own delays (its detector's scan, a sensor that
/// reports in bursts, the network) vary from hit to hit, and a listener hears that variation
/// far more than a steady delay. The latency must cover the latest a hit arrives, so the brain
/// measures it per pad: how long after its strike each hit arrives (its *lateness*), the second
/// largest of the pad's last `window` (64) hits (one stray hit late by a network hiccup does not
/// move it). Until a pad has shown `window / 4` (16) hits, its lateness is assumed to be at least
/// four of its sensor periods + 2 ms (where a detector that dates strikes to their onset and
/// scans for their peak fires: 42 ms at 100 Hz, 18 ms at 250 Hz; a MIDI source,
/// dated exactly, is assumed nothing). The latency is the largest
/// over the pads heard from lately, plus the audio period (a hit must be queued before the
/// period it starts in is rendered) and `marginMicros`, plus the stands' decision hold below.
///
/// It rises at once when a pad needs it (the hits before played late, and are counted). It
/// falls only once a lower value has held for `fallAfterMicros`, and then only across a pause
/// in the playing (no hit from any pad for `pauseMicros`): a step in the middle of a groove is
/// heard as one uneven stroke (5-7 ms on a 100 Hz stand, `tools/bench/jitter`), across a pause
/// it is not. It falls to cover the latest of each pad's recent hits rather than the second
/// latest, so that the next late hit does not raise it again at once. It never exceeds
/// `maxMicros`: a pad later than that plays its hits late rather than hold every pad back.
///
/// **The stands' decision hold is part of it** (`crosstalkHold`): a weak hit may be crosstalk
/// of a strike on a neighbour that arrives after it, and waits for it up to one sensor period
/// + 1 ms of the two pads after its own arrival (`StandModel.hold`). Its slot is already that
/// far off for all but the latest-arriving hits: the audio period and margin are room the
/// latest pad's hits leave. So where two or more pads that send their rate play, the latency
/// adds what the longest hold exceeds that room by: the longest sensor period among them + 1 ms
/// − the audio period − the margin (7.3 ms at 100 Hz, 1.3 ms at 250 Hz, none at 1.6 kHz); so
/// does a pad alone while it is new (its neighbours may not have played yet: no step when they
/// do), until the latency next falls. A
/// weak hit then waits for its cause within its slot, and every hit keeps the one latency
/// (before, a 100 Hz stand's weak hits played up to 11 ms past their slots).
///
/// Thread safety: any thread (a mutex, uncontended: one producer of hits).
public final class LatencyChooser: Sendable {
    /// The chooser's settings.
    public struct Configuration: Sendable, Equatable {
        /// The audio period, µs (the live brain's; a replay uses the live default's).
        public var periodMicros: Int64
        /// Added on top, µs.
        public var marginMicros: Int64 = 1_000
        /// The most latency chosen, µs.
        public var maxMicros: Int64 = 100_000
        /// Hits per pad the lateness is taken from.
        public var window = 64
        /// A pad not heard from for this long no longer counts, µs.
        public var forgetMicros: Int64 = 30_000_000
        /// How long a lower latency must hold before the latency falls to it, µs.
        public var fallAfterMicros: Int64 = 10_000_000
        /// Pads followed at most (a brain's worth; hits of others play at the latency chosen).
        public var maxPads = 64
        /// A pause in the playing long enough for the latency to fall across it, µs.
        public var pauseMicros: Int64 = 1_000_000
        /// Whether weak hits may wait for their cause (the learned stands decide): the latency
        /// then covers that wait.
        public var crosstalkHold = true

        /// The defaults for an audio period of `periodMicros`.
        public init(periodMicros: Int64) {
            self.periodMicros = max(0, periodMicros)
        }
    }

    /// The live default's audio period: 128 frames at 48 kHz, µs.
    public static let defaultPeriodMicros: Int64 = 2_667

    fileprivate struct Pad {
        var recent: [Int64] = []
        var next = 0
        var seen = 0
        var periodMicros: Int64?
        /// Whether its lateness is assumed large while it is new (a pad's detector); a MIDI
        /// source's is what it shows from its first note.
        var prior = true
        var lastMicros: Int64 = 0
    }

    private struct State {
        var pads: [String: Pad] = [:]
        var latency: Int64
        var lowerSince: Int64?
        /// When the last hit with a time arrived, from any pad.
        var lastArrival: Int64?
    }

    /// The settings in force.
    public let configuration: Configuration
    private let state: Mutex<State>
    /// Told each rise (the new latency, µs, and the pad that needed it), on the deciding thread.
    private let onRise: @Sendable (_ latencyMicros: Int64, _ padKey: String) -> Void
    /// Told each fall (the new latency, µs), on the deciding thread.
    private let onFall: @Sendable (_ latencyMicros: Int64) -> Void

    /// A chooser starting from the audio period and margin alone.
    public init(_ configuration: Configuration, onRise: @escaping @Sendable (Int64, String) -> Void = { _, _ in },
                onFall: @escaping @Sendable (Int64) -> Void = { _ in }) {
        self.configuration = configuration
        self.onRise = onRise
        self.onFall = onFall
        state = Mutex(State(latency: min(configuration.maxMicros, configuration.periodMicros + configuration.marginMicros)))
    }

    /// The latency now, µs.
    public var latencyMicros: Int64 { state.withLock { $0.latency } }

    /// Takes a hit of pad `padKey` (sensor `rateHz` if known) that arrived at `arrivalMicros`,
    /// `latenessMicros` after its strike (nil: the pad has no clock sync), and returns the
    /// latency to schedule it with.
    public func note(padKey: String, rateHz: Double?, latenessMicros: Int64?, arrivalMicros: Int64, prior: Bool = true) -> Int64 {
        let (latency, moved) = choose(padKey: padKey, rateHz: rateHz, latenessMicros: latenessMicros, arrivalMicros: arrivalMicros,
                                      prior: prior)
        switch moved {
        case .some(true): onRise(latency, padKey)
        case .some(false): onFall(latency)
        case nil: break
        }
        return latency
    }

    /// Takes pad `padKey`'s hello (sensor `rateHz`) at `atMicros`: the pad counts from now as one
    /// heard from, its lateness assumed as for a new pad (four of its sensor periods + 2 ms), so
    /// the latency covers it before its first hit: a faster pad's weak hit struck with that first
    /// hit then waits for it within its slot. A pad already heard from keeps what it showed.
    /// Returns the latency.
    @discardableResult
    public func greet(padKey: String, rateHz: Double?, atMicros: Int64) -> Int64 {
        let (latency, rose) = state.withLock { s -> (Int64, Bool) in
            let c = configuration
            guard Self.admit(&s, c, padKey, at: atMicros, prior: true) else { return (s.latency, false) }
            s.pads[padKey]!.greet(at: atMicros, rateHz: rateHz)
            return Self.rise(&s, c, at: atMicros)
        }
        if rose { onRise(latency, padKey) }
        return latency
    }

    /// Makes `padKey` known if it is not, first forgetting the pads not heard from within
    /// `forgetMicros` when `maxPads` are known; false when there is still no room for it.
    private static func admit(_ s: inout State, _ c: Configuration, _ padKey: String, at micros: Int64, prior: Bool) -> Bool {
        guard s.pads[padKey] == nil else { return true }
        if s.pads.count >= c.maxPads { s.pads = s.pads.filter { micros.saturatingSubtract($0.value.lastMicros) <= c.forgetMicros } }
        guard s.pads.count < c.maxPads else { return false }
        s.pads[padKey] = Pad(prior: prior)
        return true
    }

    /// Raises the latency to what the pads heard from need now, if more; whether it rose.
    private static func rise(_ s: inout State, _ c: Configuration, at micros: Int64) -> (Int64, Bool) {
        let target = needs(s, c, at: micros).target
        guard target > s.latency else { return (s.latency, false) }
        s.latency = target
        s.lowerSince = nil
        return (target, true)
    }

    /// What the pads heard from in the last `forgetMicros` need: the latency covering their
    /// second latest recent hits (`target`), and their latest (`lower`, for a fall).
    private static func needs(_ s: State, _ c: Configuration, at micros: Int64) -> (target: Int64, lower: Int64) {
        var needed: Int64 = 0, latest: Int64 = 0, longestPeriod: Int64 = 0, timed = 0, learning = false
        for pad in s.pads.values where micros.saturatingSubtract(pad.lastMicros) <= c.forgetMicros {
            let lateness = pad.lateness(window: c.window)
            needed = max(needed, lateness.second)
            latest = max(latest, lateness.largest)
            if let period = pad.periodMicros {
                longestPeriod = max(longestPeriod, period)
                timed += 1
                learning = learning || pad.seen < max(2, c.window / 4)
            }
        }
        // The stands' hold, where two pads play, or while a pad is new (its neighbours may
        // not have played yet: covered from the start, no step when they do).
        let hold = c.crosstalkHold && (timed >= 2 || learning)
            ? max(0, longestPeriod + 1_000 - c.periodMicros - c.marginMicros) : 0
        let extra = c.periodMicros.saturatingAdd(c.marginMicros).saturatingAdd(hold)
        // A fall covers the latest of each pad's recent hits, not the second latest: room for
        // the next late one, so that it does not fall only to rise again.
        return (min(c.maxMicros, needed.saturatingAdd(extra)), min(c.maxMicros, latest.saturatingAdd(extra)))
    }

    private func choose(padKey: String, rateHz: Double?, latenessMicros: Int64?, arrivalMicros: Int64, prior: Bool)
        -> (latencyMicros: Int64, rose: Bool?)
    {
        state.withLock { s in
            guard let lateness = latenessMicros else { return (s.latency, nil) }
            let c = configuration
            guard Self.admit(&s, c, padKey, at: arrivalMicros, prior: prior) else { return (s.latency, nil) }
            s.pads[padKey]!.record(min(max(lateness, 0), c.maxMicros), at: arrivalMicros, rateHz: rateHz, window: c.window)
            let (target, lower) = Self.needs(s, c, at: arrivalMicros)
            let paused = s.lastArrival.map { arrivalMicros.saturatingSubtract($0) >= c.pauseMicros } ?? true
            s.lastArrival = max(s.lastArrival ?? arrivalMicros, arrivalMicros)
            if target > s.latency {
                s.latency = target
                s.lowerSince = nil
                return (target, true)
            }
            if lower < s.latency {
                let since = s.lowerSince ?? arrivalMicros
                s.lowerSince = since
                if paused && arrivalMicros.saturatingSubtract(since) >= c.fallAfterMicros {
                    s.latency = lower
                    s.lowerSince = nil
                    return (lower, false)
                }
            } else {
                s.lowerSince = nil
            }
            return (s.latency, nil)
        }
    }
}

extension LatencyChooser.Pad {
    /// Heard from (a hello) at `micros`, with no hit yet: its lateness is the new pad's prior.
    mutating func greet(at micros: Int64, rateHz: Double?) {
        lastMicros = max(lastMicros, micros)
        if let rateHz, rateHz.isFinite, rateHz >= 1 { periodMicros = Int64((1e6 / rateHz).rounded()) }
    }

    mutating func record(_ lateness: Int64, at micros: Int64, rateHz: Double?, window: Int) {
        if recent.count < window {
            recent.append(lateness)
        } else {
            recent[next] = lateness
        }
        next = (next + 1) % window
        seen += 1
        lastMicros = micros
        if let rateHz, rateHz.isFinite, rateHz >= 1 { periodMicros = Int64((1e6 / rateHz).rounded()) }
    }

    /// The pad's lateness: the second largest of its recent hits' and the largest, and while it
    /// has shown few, each at least four sensor periods + 2 ms.
    func lateness(window: Int) -> (second: Int64, largest: Int64) {
        var largest: Int64 = 0, second: Int64 = 0
        for value in recent {
            if value > largest {
                second = largest
                largest = value
            } else if value > second {
                second = value
            }
        }
        let measured = recent.count >= 2 ? second : largest
        guard prior && seen < max(2, window / 4) else { return (measured, largest) }
        let prior = 4 * (periodMicros ?? 4_000) + 2_000
        return (max(measured, prior), max(largest, prior))
    }
}

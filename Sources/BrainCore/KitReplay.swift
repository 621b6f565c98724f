import DrumNet
import HitDetect
import Monotonic
import Synchronization

/// Several pads' logs on one clock through the brain's decisions, exactly as live: each pad's
/// hits (from its own detection) are handed to the same `HitRouter` in the order the brain would
/// receive them (by when each hit's firing sample reached its pad: a sensor that reports in
/// bursts delivers crosstalk before its cause), with the strike time as the pad's synchronised
/// time and the arrival as the receive time. What the router plays, holds and takes back is
/// recorded instead of sounded (`drumbrain replay`).
///
/// Thread safety: used from one thread.
public struct KitReplay {
    /// One pad's hit as its detector found it.
    public struct PadHit: Sendable {
        /// Strike time on the shared clock, seconds.
        public var time: Double
        /// When the pad had it (its firing sample delivered), seconds.
        public var arrival: Double
        /// 0…1.
        public var velocity: Double
        /// The detector's deviation in g (what protocol 2 sends).
        public var strength: Double
        /// A push the detector felt through the stand and turned away (`/drum/felt`): the
        /// brain learns from it and never plays it.
        public var felt: Bool

        /// Creates a hit.
        public init(time: Double, arrival: Double, velocity: Double, strength: Double, felt: Bool = false) {
            self.time = time
            self.arrival = arrival
            self.velocity = velocity
            self.strength = strength
            self.felt = felt
        }
    }

    /// One pad: its name (the log's stem), the drum it plays, its sensor rate, its hits.
    public struct Pad: Sendable {
        /// The pad's name, as a live pad's hello would give it.
        public var name: String
        /// The drum it plays.
        public var drum: String
        /// Its sensor's rate, Hz, if known.
        public var rateHz: Double?
        /// Its hits, in any order.
        public var hits: [PadHit]

        /// Creates a pad.
        public init(name: String, drum: String, rateHz: Double?, hits: [PadHit]) {
            self.name = name
            self.drum = drum
            self.rateHz = rateHz
            self.hits = hits
        }
    }

    /// A hit the brain played.
    public struct Played: Sendable, Equatable {
        /// The pad's index in the input.
        public var pad: Int
        /// Its strike time, seconds.
        public var time: Double
        /// 0…1.
        public var velocity: Double
        /// The detector's deviation, g.
        public var strength: Double
        /// How long the brain's decisions held it past when it would have started (its slot at
        /// the latency, or its arrival), ms.
        public var delayMs: Double
    }

    /// One hit as the brain decided it, in the order it arrived.
    public struct Decision: Sendable {
        /// The pad's index in the input.
        public var pad: Int
        /// Strike time and arrival, seconds.
        public var time: Double
        /// When it reached the brain, seconds.
        public var arrival: Double
        /// The detector's deviation, g.
        public var strength: Double
        /// `played`, `held`, `crosstalk`, `taken_back` or `felt` (a push the pad felt: never played).
        public var outcome: String
        /// How long it was held, ms.
        public var holdMs: Double
    }

    /// What the replay gives.
    public struct Result: Sendable {
        /// Every hit in the order the brain received it, with what became of it.
        public var decisions: [Decision]
        /// The hits played, in strike order.
        public var played: [Played]
        /// Per pad: hits cancelled as crosstalk on arrival, and taken back while they waited.
        public var cancelled: [Int]
        /// Per pad: of those, the ones taken back.
        public var takenBack: [Int]
        /// Of all pads' hits cancelled on arrival, those a neighbour's sway explained
        /// (`StandModel.swayingPad`): the decisions' count since `stands` was made (this
        /// replay's where it was fresh, as `drumbrain replay`'s is).
        public var swayed: Int
        /// Of all pads' hits cancelled on arrival, those too weak for a stroke at their pad's rate
        /// (`StandModel.isTooWeak`), counted as `swayed` is.
        public var weak: Int
        /// Of all pads' hits cancelled on arrival or taken back, those a shake of the whole
        /// stand explained (`StandModel.shake`), counted as `swayed` is.
        public var shaken: Int
        /// The couplings learned, as the brain would show them.
        public var couplings: [(source: String, receiver: String, coupling: Double, lagMicros: Double)]
        /// The latency from strike to sound at the end (chosen, or the jitter buffer), µs.
        public var latencyMicros: Int64
    }

    /// Records what the router asks of the audio side.
    final class Recorder: HitPlayer, @unchecked Sendable {
        // @unchecked: one thread (the replay's).
        var queued: [UInt32: (drum: Int, atMicros: Int64?)] = [:]
        var takenBack: Set<UInt32> = []

        func play(drum: Int, velocity: Float, id: UInt32, kitGeneration: UInt32) -> Bool {
            queued[id] = (drum, nil)
            return true
        }

        func play(drum: Int, velocity: Float, atMicros brainMicros: Int64, delayMicros: Int64,
                  id: UInt32, kitGeneration: UInt32) -> Bool {
            queued[id] = (drum, brainMicros.saturatingAdd(delayMicros))
            return true
        }

        func takeBack(id: UInt32) -> Bool {
            takenBack.insert(id)
            return true
        }
    }

    /// Runs `pads` through the brain's decisions: learned stands by default (`stands`, fresh
    /// unless given), or `groups` of drum names as `--crosstalk-group` does, with `jitterMicros`.
    /// `drums` names the kit's drums (a pad whose drum is not among them plays nothing, as live).
    /// With `jitterMicros` 0, each hit starts at the latency `latency` chooses, as the live
    /// brain's default does (nil: at once).
    public static func run(_ pads: [Pad], drums: [String], stands: StandCrosstalk? = StandCrosstalk(),
                           groups: CrosstalkGroups? = nil, jitterMicros: Int64 = 0,
                           latency: LatencyChooser? = LatencyChooser(.init(periodMicros: LatencyChooser.defaultPeriodMicros)))
        -> Result
    {
        let recorder = Recorder()
        let map = DrumMap(names: drums)
        let router = HitRouter(player: recorder, drums: map, crosstalk: groups, stands: groups == nil ? stands : nil,
                               jitterMicros: jitterMicros, latency: latency)
        var order: [(pad: Int, hit: Int)] = []
        for (p, pad) in pads.enumerated() { for h in pad.hits.indices { order.append((p, h)) } }
        order.sort { a, b in
            let x = pads[a.pad].hits[a.hit], y = pads[b.pad].hits[b.hit]
            return (x.arrival, x.time, a.pad) < (y.arrival, y.time, b.pad)
        }
        // Each pad says hello before its first hit, as live, when the replay begins.
        if let first = order.first {
            let start = micros(pads[first.pad].hits[first.hit].arrival)
            for (p, pad) in pads.enumerated() {
                router.greet(padName: pad.name, connectionID: p + 1, rateHz: pad.rateHz, strengths: true, atMicros: start)
            }
        }
        var routed: [(pad: Int, hit: Int, result: RoutedHit)] = []
        var cancelled = [Int](repeating: 0, count: pads.count)
        for (p, h) in order {
            let pad = pads[p], hit = pad.hits[h]
            let arrival = micros(hit.arrival), strike = micros(hit.time)
            let received = ReceivedHit(
                hit: DrumHit(drum: pad.drum, velocity: Float(hit.velocity), padTimeMicros: strike,
                             strength: Float(hit.strength), felt: hit.felt),
                connectionID: p + 1, padName: pad.name, receivedMicros: arrival,
                latencyMicros: arrival - strike, rateHz: pad.rateHz.map(Float.init))
            let result = router.route(received)
            if result.disposition == .crosstalk { cancelled[p] += 1 }
            routed.append((p, h, result))
        }
        var played: [Played] = []
        var takenBack = [Int](repeating: 0, count: pads.count)
        for (p, h, result) in routed {
            guard case .queued(let number) = result.disposition else { continue }
            if recorder.takenBack.contains(number) {
                takenBack[p] += 1
                cancelled[p] += 1
                continue
            }
            let hit = pads[p].hits[h]
            played.append(Played(pad: p, time: hit.time, velocity: hit.velocity, strength: hit.strength,
                                 delayMs: Double(result.holdMicros) / 1000))
        }
        played.sort { ($0.time, $0.pad) < ($1.time, $1.pad) }
        let decisions = routed.map { p, h, result -> Decision in
            let hit = pads[p].hits[h]
            var outcome = result.holdMicros > 0 ? "held" : "played"
            switch result.disposition {
            case .crosstalk: outcome = "crosstalk"
            case .felt: outcome = "felt"
            case .queued(let number): if recorder.takenBack.contains(number) { outcome = "taken_back" }
            case .unknownDrum: outcome = "unknown_drum"
            case .queueFull: outcome = "dropped"
            }
            return Decision(pad: p, time: hit.time, arrival: hit.arrival, strength: hit.strength, outcome: outcome,
                            holdMs: Double(result.holdMicros) / 1000)
        }
        return Result(decisions: decisions, played: played, cancelled: cancelled, takenBack: takenBack,
                      swayed: stands?.counts.swayed ?? 0, weak: stands?.counts.weak ?? 0,
                      shaken: stands?.counts.shaken ?? 0, couplings: stands?.model.couplings ?? [], latencyMicros: router.latency?.latencyMicros ?? jitterMicros)
    }

    /// Seconds to µs on the replay's clock. The sensor-log reader keeps times within ±10¹² s
    /// (`SensorLogReader.largestValue`); beyond ±9·10¹² s (Int64's µs) this saturates rather
    /// than trap, whoever calls it.
    public static func micros(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return 0 }
        let limit = 9e12
        return Int64((max(-limit, min(limit, seconds)) * 1e6).rounded())
    }
}

import DrumAudio
import DrumNet
import Monotonic
import Synchronization

/// What plays hits for the router: the live `AudioEngine`, or a stand-in (the serve-path
/// fuzzer's mixer).
///
/// Thread safety: every call comes from the one network thread.
public protocol HitPlayer: Sendable {
    /// Queues a hit for the start of the next period; false if the queue was full.
    func play(drum: Int, velocity: Float, id: UInt32, kitGeneration: UInt32) -> Bool
    /// Queues a hit for the frame of `brainMicros + delayMicros`; false if the queue was full.
    func play(drum: Int, velocity: Float, atMicros brainMicros: Int64, delayMicros: Int64,
              id: UInt32, kitGeneration: UInt32) -> Bool
    /// Takes back the waiting hit numbered `id`; false if the queue was full.
    @discardableResult func takeBack(id: UInt32) -> Bool
}

extension AudioEngine: HitPlayer {}

/// A received hit and what the brain did with it, as the network thread hands it to the printer.
public struct RoutedHit: Sendable {
    /// What became of a hit on arrival.
    public enum Disposition: Sendable, Equatable {
        /// Handed to the audio thread as hit `number`; its start (or drop) is reported later.
        case queued(number: UInt32)
        /// Not played: the audio thread's queue was full.
        case queueFull
        /// Not played: crosstalk of a louder hit on its stand.
        case crosstalk
        /// Not played: the kit has no such drum.
        case unknownDrum
        /// Not played: a push its pad felt through the stand (`/drum/felt`), learned from.
        case felt
    }

    /// The hit as it arrived.
    public var received: ReceivedHit
    /// What became of it.
    public var disposition: Disposition
    /// Its drum's index in the kit, if the kit has it.
    public var drum: Int?
    /// How long crosstalk decisions hold it after its arrival, µs (0: not held).
    public var holdMicros: Int64

    /// Creates a routed hit.
    public init(received: ReceivedHit, disposition: Disposition, drum: Int?, holdMicros: Int64 = 0) {
        self.received = received
        self.disposition = disposition
        self.drum = drum
        self.holdMicros = holdMicros
    }
}

/// The brain's decisions for each received hit, on the network thread: which drum, whether it
/// is crosstalk, and when it plays. Shared by `drumbrain` and the serve-path fuzzer, so the
/// fuzzer runs the code the brain runs.
///
/// Times: a hit from a pad whose clock is synchronised carries its strike time on the brain's
/// clock (`ReceivedHit.strikeMicros`, within 10 s of arrival by the connection's checks). With a
/// jitter buffer it starts at that time plus the buffer, but never later than its arrival plus
/// the buffer (a pad whose clock runs ahead cannot park hits in the mixer). Crosstalk compares
/// strike times; for a pad with no clock sync the strike time is estimated as its arrival less
/// the network latency that synchronised pads show lately, so that a stand with both kinds
/// compares like with like.
///
/// Thread safety: `route` from one thread (the network thread); the counters from any.
public final class HitRouter<Player: HitPlayer>: Sendable {
    /// The kit's drums by name.
    public let drums: DrumMap
    /// The stands' cancellers of `--crosstalk-group`, if any.
    public let crosstalk: CrosstalkGroups?
    /// The learned stands' decisions, used for hits with a strength when no groups are given.
    public let stands: StandCrosstalk?
    /// The jitter buffer, µs (0: each hit at the next period, or at the latency `latency`
    /// chooses).
    public let jitterMicros: Int64
    /// Chooses the latency when no jitter buffer is set (nil: each hit at the next period).
    public let latency: LatencyChooser?
    private let player: Player
    private let numbers = HitNumbers()
    private let unknown = Atomic<Int>(0)
    private let queueFull = Atomic<Int>(0)
    /// Recent network latency of synchronised pads, µs, smoothed (1/16 per hit).
    private let typicalLatency = Atomic<Int64>(0)

    /// A router that plays through `player`.
    public init(player: Player, drums: DrumMap, crosstalk: CrosstalkGroups?, stands: StandCrosstalk? = nil,
                jitterMicros: Int64, latency: LatencyChooser? = nil) {
        precondition(jitterMicros >= 0 && jitterMicros <= 10_000_000, "a jitter buffer of 0…10 s")
        self.player = player
        self.latency = jitterMicros > 0 ? nil : latency
        self.drums = drums
        self.crosstalk = crosstalk
        self.stands = crosstalk == nil ? stands : nil
        self.jitterMicros = jitterMicros
    }

    /// Hits for drums the kit lacks, so far.
    public var unknownDrums: Int { unknown.load(ordering: .relaxed) }
    /// Hits not played because the audio queue was full, so far.
    public var queueFullHits: Int { queueFull.load(ordering: .relaxed) }

    /// Takes a pad's hello, its name `padName` (nil: the connection's number) and sensor
    /// `rateHz`, at `atMicros`: the latency covers the pad and, where its hits will carry their
    /// strength (`strengths`: protocol 2 on), the stands know it before its first hit, so the
    /// first strikes are judged as the later ones (a 1.6 kHz pad's weak hit struck with a 100 Hz
    /// pad's first strike waits for it, which arrives 20 ms later). A rate outside
    /// `plausibleRates` counts as none said. Network thread only.
    public func greet(padName: String?, connectionID: Int, rateHz: Double?, strengths: Bool, atMicros: Int64) {
        let padKey = padName ?? "connection-\(connectionID)"
        let rate = Self.plausible(rateHz)
        latency?.greet(padKey: padKey, rateHz: rate, atMicros: atMicros)
        if strengths { stands?.greet(padKey: padKey, rateHz: rate) }
    }

    /// The sensor rates the brain takes from a pad, Hz: from 25 Hz (a 40 ms period, beyond which
    /// a drum stroke is not seen) to 25.6 kHz. Another rate said is taken as none: a client's
    /// 1 Hz would have weak hits wait a second for it, and its latency cover four.
    public static var plausibleRates: ClosedRange<Double> { 25...25_600 }

    static func plausible(_ rateHz: Double?) -> Double? {
        rateHz.flatMap { plausibleRates.contains($0) ? $0 : nil }
    }

    /// Decides and queues `received`; returns what became of it. Network thread only.
    public func route(_ received: ReceivedHit) -> RoutedHit {
        let hit = received.hit
        let found = drums.lookup(hit.drum)
        // Every hit has its own number, a drum the kit lacks included: the stands keep, explain
        // and take back hits by it, and such a pad still shakes its stand.
        let number = numbers.next()
        let strike = received.strikeMicros
        if let latency = received.latencyMicros {
            let typical = typicalLatency.load(ordering: .relaxed)
            typicalLatency.store(typical + (latency - typical) / 16, ordering: .relaxed)  // both within ±10 s
        }
        let estimated = strike ?? received.receivedMicros.saturatingSubtract(typicalLatency.load(ordering: .relaxed))
        var holdMicros: Int64 = 0
        // With a jitter buffer or a chosen latency: its strike plus that, never later than its
        // arrival plus that (a pad whose clock runs ahead cannot park hits in the mixer).
        let padKey = received.padName ?? "connection-\(received.connectionID)"
        let rate = Self.plausible(received.rateHz.map(Double.init))
        var buffer = jitterMicros
        if let latency, strike != nil {
            // A MIDI source's notes are dated exactly: no detector's lateness to assume. A felt
            // push is never played: it waits as a hit would, but its lateness is not the pads'.
            buffer = hit.felt ? latency.latencyMicros
                : latency.note(padKey: padKey, rateHz: rate, latenessMicros: received.latencyMicros,
                               arrivalMicros: received.receivedMicros, prior: received.connectionID != MIDIInput.connectionID)
        }
        let slot = buffer > 0 ? strike.map { min($0, received.receivedMicros).saturatingAdd(buffer) } : nil
        if let crosstalk, !hit.felt {
            let player = self.player
            if !crosstalk.admit(drum: hit.drum, micros: estimated, arrivalMicros: received.receivedMicros,
                                velocity: hit.velocity, id: number, takeBack: { player.takeBack(id: $0) }) {
                return RoutedHit(received: received, disposition: .crosstalk, drum: nil)
            }
        } else if let stands, let strength = hit.strength {
            switch stands.decide(padKey: padKey, rateHz: rate, strikeMicros: estimated,
                                 arrivalMicros: received.receivedMicros, strength: Double(strength), id: number,
                                 slotMicros: slot, felt: hit.felt) {
            case .crosstalk:
                return RoutedHit(received: received, disposition: .crosstalk, drum: nil)
            case .shaken(let takeBack):
                for id in takeBack { player.takeBack(id: id) }
                return RoutedHit(received: received, disposition: .crosstalk, drum: nil)
            case .play(let hold, let takeBack):
                for id in takeBack { player.takeBack(id: id) }
                holdMicros = hold
            case .felt(let takeBack):
                for id in takeBack { player.takeBack(id: id) }
                return RoutedHit(received: received, disposition: .felt, drum: nil)
            }
        }
        // A felt push is never played; the learned stands, when there are any, learned from it above.
        if hit.felt { return RoutedHit(received: received, disposition: .felt, drum: nil) }
        guard let (index, generation) = found else {
            unknown.wrappingAdd(1, ordering: .relaxed)
            return RoutedHit(received: received, disposition: .unknownDrum, drum: nil)
        }
        let queued: Bool
        if let slot {
            // Its slot, and not before a crosstalk hold past it is over.
            let at = max(slot, received.receivedMicros).saturatingAdd(holdMicros)
            queued = player.play(drum: index, velocity: hit.velocity, atMicros: at, delayMicros: 0,
                                 id: number, kitGeneration: generation)
        } else if holdMicros > 0 {
            queued = player.play(drum: index, velocity: hit.velocity, atMicros: received.receivedMicros,
                                 delayMicros: holdMicros, id: number, kitGeneration: generation)
        } else {
            queued = player.play(drum: index, velocity: hit.velocity, id: number, kitGeneration: generation)
        }
        guard queued else {
            queueFull.wrappingAdd(1, ordering: .relaxed)
            return RoutedHit(received: received, disposition: .queueFull, drum: index, holdMicros: holdMicros)
        }
        return RoutedHit(received: received, disposition: .queued(number: number), drum: index, holdMicros: holdMicros)
    }
}

/// Numbers hits for the mixer's start reports; used on the network thread only, atomic anyway.
public final class HitNumbers: Sendable {
    private let counter = Atomic<UInt32>(0)

    /// A counter whose first number is 1.
    public init() {}

    /// The next number, never 0.
    public func next() -> UInt32 {
        let value = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return value == 0 ? counter.wrappingAdd(1, ordering: .relaxed).newValue : value
    }
}

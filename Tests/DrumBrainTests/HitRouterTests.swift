import BrainCore
@testable import DrumAudio
import DrumNet
import HitDetect
import Monotonic
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The brain's decisions per hit (`HitRouter`) and its printer (`HitPrinter`): times from the
/// wire never park a hit past its buffer, and a hit that will never start never holds up the
/// lines after it.
struct HitRouterTests {
    /// Records what the router asks of the audio side; refuses everything when `full`.
    final class RecordingPlayer: HitPlayer, Sendable {
        let calls = Mutex<[(drum: Int, atMicros: Int64?, delayMicros: Int64, id: UInt32)]>([])
        let full: Bool
        init(full: Bool = false) { self.full = full }
        func play(drum: Int, velocity: Float, id: UInt32, kitGeneration: UInt32) -> Bool {
            calls.withLock { $0.append((drum, nil, 0, id)) }
            return !full
        }
        func play(drum: Int, velocity: Float, atMicros brainMicros: Int64, delayMicros: Int64,
                  id: UInt32, kitGeneration: UInt32) -> Bool {
            calls.withLock { $0.append((drum, brainMicros, delayMicros, id)) }
            return !full
        }
        let takenBack = Mutex<[UInt32]>([])
        func takeBack(id: UInt32) -> Bool {
            takenBack.withLock { $0.append(id) }
            return true
        }
    }

    static let kit = Kit(name: "T", drums: ["kick", "snare", "racktom"].map {
        Kit.Drum(name: $0, azimuth: 0, gain: 1, layers: [Kit.Layer(buffer: AudioBuffer(interleaved: [0.5, 0.5], channels: 1,
                                                                                        sampleRate: 48_000), source: "x")])
    }, sampleRate: 48_000)

    static func received(_ drum: String, at: Int64, latency: Int64?, velocity: Float = 1, pad: String? = "p") -> ReceivedHit {
        ReceivedHit(hit: DrumHit(drum: drum, velocity: velocity), connectionID: 1, padName: pad, receivedMicros: at,
                    latencyMicros: latency)
    }

    @Test func aStrikeDatedAfterItsArrivalWaitsNoLongerThanTheBuffer() {
        let player = RecordingPlayer()
        let router = HitRouter(player: player, drums: DrumMap(kit: Self.kit, generation: 1), crosstalk: nil,
                               jitterMicros: 30_000)
        // A pad whose clock runs 9 s ahead: its strike "happened" 9 s after it arrived.
        _ = router.route(Self.received("snare", at: 1_000_000, latency: -9_000_000))
        // A sane one: struck 2 ms before it arrived.
        _ = router.route(Self.received("snare", at: 2_000_000, latency: 2_000))
        let calls = player.calls.withLock { $0 }
        #expect(calls.count == 2)
        #expect(calls[0].atMicros.map { $0 + calls[0].delayMicros } == 1_030_000)  // arrival + buffer
        #expect(calls[1].atMicros.map { $0 + calls[1].delayMicros } == 2_028_000)  // strike + buffer
    }

    /// A push a pad felt through its stand (`/drum/felt`) is never played: not with the learned
    /// stands, not with crosstalk groups, not with neither.
    @Test func aFeltPushIsNeverPlayed() {
        for mode in ["stands", "groups", "none"] {
            let player = RecordingPlayer()
            let router = HitRouter(player: player, drums: DrumMap(kit: Self.kit, generation: 1),
                                   crosstalk: mode == "groups" ? CrosstalkGroups([["snare", "racktom"]], .init(hold: 0)) : nil,
                                   stands: mode == "stands" ? StandCrosstalk() : nil, jitterMicros: 0)
            let push = ReceivedHit(hit: DrumHit(drum: "snare", velocity: 0.3, padTimeMicros: 1, sequence: 0, strength: 0.4, felt: true),
                                   connectionID: 1, padName: "p", receivedMicros: 1_000, latencyMicros: 500)
            #expect(router.route(push).disposition == .felt, "\(mode)")
            var hit = push
            hit.hit.felt = false
            #expect(router.route(hit).disposition != .felt, "\(mode)")
            #expect(player.calls.withLock { $0.count } == 1, "\(mode)")
        }
    }

    @Test func aFullAudioQueueIsKnownOnArrival() {
        let router = HitRouter(player: RecordingPlayer(full: true), drums: DrumMap(kit: Self.kit, generation: 1),
                               crosstalk: nil, jitterMicros: 0)
        #expect(router.route(Self.received("snare", at: 5, latency: nil)).disposition == .queueFull)
        #expect(router.route(Self.received("gong", at: 6, latency: nil)).disposition == .unknownDrum)
        #expect(router.queueFullHits == 1 && router.unknownDrums == 1)
    }

    /// An unsynced pad's hit is compared on its arrival less the latency synced pads show: here
    /// the synced snare arrives 4 ms after it was struck, and an unsynced racktom's crosstalk
    /// arrives 16 ms after the snare's strike. On arrival times alone it would be 12 ms after
    /// the snare's *arrival*, and on the snare's strike time 16 ms after: only the estimate puts
    /// it where it was struck, 12 ms after, inside the 15 ms window.
    @Test func crosstalkComparesUnsyncedPadsOnEstimatedStrikeTimes() {
        let crosstalk = CrosstalkGroups([["snare", "racktom"]], .init(window: 0.015, ratio: 0.6))
        let router = HitRouter(player: RecordingPlayer(), drums: DrumMap(kit: Self.kit, generation: 1),
                               crosstalk: crosstalk, jitterMicros: 0)
        for k in 0..<64 {  // the synced snare's usual latency, learned
            _ = router.route(Self.received("kick", at: Int64(k) * 1_000_000, latency: 4_000))
        }
        let strike: Int64 = 100_000_000
        #expect(router.route(Self.received("snare", at: strike + 4_000, latency: 4_000, velocity: 0.9)).disposition
                != .crosstalk)
        let routed = router.route(Self.received("racktom", at: strike + 16_000, latency: nil, velocity: 0.4))
        #expect(routed.disposition == .crosstalk)
    }

    @Test func linesEscapeEveryNameFromTheWire() {
        let routed = RoutedHit(received: Self.received("snare\nhit drum=forged", at: 100, latency: 20,
                                                       pad: "p\u{1B}]0;x\u{07}"),
                               disposition: .queued(number: 1), drum: 1)
        let lines = [
            BrainLines.hit(routed, started: StartedHit(id: 1, frame: 480, renderedMicros: 300), rate: 48_000),
            BrainLines.crosstalk(routed, takenBack: true),
            BrainLines.unknown(routed, kitDrums: ["kick"]),
            BrainLines.dropped(routed, reason: "queue_full"),
        ]
        #expect(lines[0] == "hit drum=snare\\x0Ahit\\x20drum=forged velocity=1.000 pad=p\\x1B]0;x\\x07 latency_us=20 strike_us=80 frame=480 brain_us=200")
        for line in lines { #expect(!line.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "\(line)") }
    }

    /// The printer's lines for hits that will never start come at once, and the hits after them
    /// are not held up: one refused by the audio queue, one the mixer dropped (its waiting
    /// hits full), one for a kit swapped out. Before, the printer waited its full deadline (5 s
    /// and more) for each, holding every later line.
    @Test func hitsThatNeverStartDoNotHoldUpThePrinter() {
        let queue = HitQueue(capacity: 1024)
        let mixer = Mixer(kit: Self.kit, queue: queue)
        let lines = Mutex<[String]>([])
        let printer = HitPrinter(started: mixer.started, rate: 48_000, startWaitMicros: 60_000_000,
                                 audioRunning: { true }, kitDrums: { ["kick", "snare", "racktom"] },
                                 sinks: .init(line: { line in lines.withLock { $0.append(line) } }))
        printer.start()
        // The mixer's 256 waiting slots filled with hits far ahead, then two more that it drops.
        for id in 1...256 { queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 1 << 40, id: UInt32(id))) }
        queue.push(ScheduledHit(drum: 1, velocity: 1, id: 257))
        queue.push(ScheduledHit(drum: 1, velocity: 1, id: 258, kitGeneration: 99))  // dropped too (full), not stale
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        mixer.render(into: out, frames: 128)
        let now = MonotonicClock.nowMicros()
        printer.hits.send(RoutedHit(received: Self.received("snare", at: now, latency: nil), disposition: .queued(number: 257), drum: 1))
        printer.hits.send(RoutedHit(received: Self.received("snare", at: now, latency: nil), disposition: .queueFull, drum: 1))
        printer.hits.send(RoutedHit(received: Self.received("snare", at: now, latency: nil), disposition: .queued(number: 258), drum: 1))
        let deadline = MonotonicClock.nowMicros() + 40_000_000
        while lines.withLock({ $0.count }) < 3 && MonotonicClock.nowMicros() < deadline { usleep(1_000) }
        let elapsed = MonotonicClock.nowMicros() - now
        printer.finish()
        let printed = lines.withLock { $0 }
        #expect(printed == ["dropped drum=snare velocity=1.000 pad=p reason=mixer_full",
                            "dropped drum=snare velocity=1.000 pad=p reason=queue_full",
                            "dropped drum=snare velocity=1.000 pad=p reason=mixer_full"])
        // A functional bound, not a timing figure: the printer's own deadline is 60 s, for each.
        #expect(elapsed < 30_000_000, "the printer took \(elapsed) µs")
        #expect(mixer.counters.droppedHits == 2)
    }

    @Test func aHitForASwappedOutKitIsReportedStale() {
        let queue = HitQueue(capacity: 16)
        let mixer = Mixer(kit: Self.kit, queue: queue)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        let generation = mixer.swap(to: Self.kit)
        queue.push(ScheduledHit(drum: 1, velocity: 1, id: 7, kitGeneration: generation - 1))
        queue.push(ScheduledHit(drum: 9, velocity: 1, id: 8, kitGeneration: generation))
        mixer.render(into: out, frames: 128)
        #expect(mixer.started.pop()?.outcome == .stale)
        #expect(mixer.started.pop()?.outcome == .unknownDrum)
        mixer.collectRetired()
    }

    /// The audio thread stopped (an output failure): the printer stops waiting at once.
    @Test func aStoppedAudioThreadEndsTheWait() {
        let mixer = Mixer(kit: Self.kit, queue: HitQueue(capacity: 16))
        let lines = Mutex<[String]>([])
        let printer = HitPrinter(started: mixer.started, rate: 48_000, startWaitMicros: 60_000_000,
                                 audioRunning: { false }, kitDrums: { [] },
                                 sinks: .init(line: { line in lines.withLock { $0.append(line) } }))
        printer.start()
        let start = MonotonicClock.nowMicros()
        printer.hits.send(RoutedHit(received: Self.received("kick", at: start, latency: nil), disposition: .queued(number: 1), drum: 0))
        printer.finish()
        #expect(lines.withLock { $0 } == ["hit drum=kick velocity=1.000 pad=p"])
        #expect(MonotonicClock.nowMicros() - start < 30_000_000)  // the printer's deadline is 60 s
    }
}

import BrainCore
import DrumAudio
import DrumNet
import Synchronization
import Testing

/// The latency the brain chooses when none is set (`LatencyChooser`): it covers the latest a
/// pad's hits arrive, rises at once, falls only after holding and then across a pause in the
/// playing, covers the stands' decision hold, and no pad can push it past its ceiling.
struct LatencyChooserTests {
    static let period: Int64 = 2_667

    /// Feeds `count` hits of `pad` 100 ms apart from `from` µs, each `lateness` µs after its strike.
    static func feed(_ chooser: LatencyChooser, _ pad: String, rateHz: Double?, lateness: (Int) -> Int64,
                     count: Int, from: Int64 = 0) -> Int64 {
        var latency: Int64 = 0
        for k in 0..<count {
            latency = chooser.note(padKey: pad, rateHz: rateHz, latenessMicros: lateness(k), arrivalMicros: from + Int64(k) * 100_000)
        }
        return latency
    }

    /// A 100 Hz pad's first hit: four periods + 2 ms before its hits show more, plus the audio
    /// period and 1 ms, plus the stands' hold while it is new (its neighbours may not have played
    /// yet); said once. Its hits then arrive at most 25 ms late (one stray at 90 ms):
    /// once it has shown 16 hits the latency falls, but only after the lower value held 10 s,
    /// and only across a pause of 1 s or more: never between two strokes of a groove.
    @Test func itCoversThePadsLatestHitsAndFallsOnlyAfterHolding() {
        let rises = Mutex<[Int64]>([]), falls = Mutex<[Int64]>([])
        let chooser = LatencyChooser(.init(periodMicros: Self.period), onRise: { micros, _ in rises.withLock { $0.append(micros) } },
                                     onFall: { micros in falls.withLock { $0.append(micros) } })
        #expect(chooser.latencyMicros == Self.period + 1_000)
        let first = chooser.note(padKey: "snare", rateHz: 100, latenessMicros: 12_000, arrivalMicros: 0)
        #expect(first == 42_000 + Self.period + 1_000 + (11_000 - Self.period - 1_000))
        #expect(rises.withLock { $0 } == [first])
        let lateness: (Int) -> Int64 = { $0 == 40 ? 90_000 : Int64(15_000 + ($0 % 11) * 1_000) }  // 15…25 ms, one at 90
        // 100 hits over 10 s: the prior has gone after 16, the lower value has held under 10 s.
        #expect(Self.feed(chooser, "snare", rateHz: 100, lateness: lateness, count: 100, from: 100_000) == first)
        // 200 more: it has held 10 s, but the playing has not paused.
        #expect(Self.feed(chooser, "snare", rateHz: 100, lateness: lateness, count: 200, from: 10_100_000) == first)
        // 0.9 s on is no pause; 1 s is: it falls to cover the latest of the last 64 (25 ms; the
        // stray 90 ms hit has left them), with no hold (the pad plays alone).
        #expect(chooser.note(padKey: "snare", rateHz: 100, latenessMicros: 20_000, arrivalMicros: 30_900_000) == first)
        let settled = chooser.note(padKey: "snare", rateHz: 100, latenessMicros: 20_000, arrivalMicros: 31_900_000)
        #expect(settled == 25_000 + Self.period + 1_000)
        #expect(rises.withLock { $0.count } == 1)
        #expect(falls.withLock { $0 } == [settled])
    }

    /// A slower pad joining raises the latency at its first hit; a pad gone for 30 s stops
    /// counting; a pad claiming its hits arrive seconds late cannot take it past 100 ms.
    @Test func slowPadsRaiseItGonePadsStopCountingAndItHasACeiling() {
        let chooser = LatencyChooser(.init(periodMicros: Self.period))
        _ = Self.feed(chooser, "fast", rateHz: 1600, lateness: { _ in 4_000 }, count: 40)
        // Its first hit set the 1.6 kHz prior (4 × 625 µs + 2 ms); 4 s on, the lower value measured has not held 10 s.
        #expect(chooser.latencyMicros == 4_500 + Self.period + 1_000)
        // Two pads that send their rates: the hold a weak hit may wait for its cause (the
        // Joy-Con's 5 ms period + 1 ms) beyond the room the audio period and margin leave.
        let joined = chooser.note(padKey: "joycon", rateHz: 200, latenessMicros: 31_000, arrivalMicros: 4_000_000)
        #expect(joined == 31_000 + Self.period + 1_000 + (6_000 - Self.period - 1_000))
        // 40 s later only the fast pad plays: after holding 10 s, and a pause, the latency is
        // back to it, and holds nothing for crosstalk (no other pad plays).
        _ = Self.feed(chooser, "fast", rateHz: 1600, lateness: { _ in 4_000 }, count: 150, from: 34_000_000)
        #expect(chooser.latencyMicros == joined)
        _ = chooser.note(padKey: "fast", rateHz: 1600, latenessMicros: 4_000, arrivalMicros: 50_000_000)
        #expect(chooser.latencyMicros == 4_000 + Self.period + 1_000)
        let hostile = Self.feed(chooser, "liar", rateHz: 250, lateness: { _ in 5_000_000 }, count: 20, from: 51_000_000)
        #expect(hostile == 100_000)
    }

    /// The decision hold is covered where it can wait past the room the latest pad leaves: two
    /// 100 Hz pads add 10 + 1 − 2.667 − 1 ms; two 1.6 kHz pads add nothing; without the learned
    /// stands (`crosstalkHold` false) nothing is added. A pad alone adds it only while new.
    @Test func theStandsDecisionHoldIsPartOfTheLatency() {
        for (rate, holds, added) in [(100.0, true, Int64(7_333)), (1_600.0, true, 0), (100.0, false, 0)] {
            var configuration = LatencyChooser.Configuration(periodMicros: Self.period)
            configuration.crosstalkHold = holds
            let chooser = LatencyChooser(configuration)
            // A new pad alone holds as much already: no step when its neighbours join.
            let alone = chooser.note(padKey: "a", rateHz: rate, latenessMicros: 1_000, arrivalMicros: 0)
            let prior = 4 * Int64((1e6 / rate).rounded()) + 2_000
            #expect(alone == prior + Self.period + 1_000 + added, "rate \(rate)")
            let two = chooser.note(padKey: "b", rateHz: rate, latenessMicros: 1_000, arrivalMicros: 1_000)
            #expect(two == prior + Self.period + 1_000 + added, "rate \(rate), hold \(holds)")
        }
        // A 100 Hz pad that stays alone: once it is known and a pause comes, the hold goes.
        let chooser = LatencyChooser(.init(periodMicros: Self.period))
        _ = Self.feed(chooser, "alone", rateHz: 100, lateness: { _ in 20_000 }, count: 20)
        #expect(chooser.latencyMicros == 42_000 + Self.period + 1_000 + 7_333)
        #expect(chooser.note(padKey: "alone", rateHz: 100, latenessMicros: 20_000, arrivalMicros: 13_000_000)
            == 20_000 + Self.period + 1_000)
    }

    /// A pad's hello counts as hearing from it: the latency covers a 100 Hz pad (its prior, and
    /// the stands' hold while it is new) before its first hit, as its first hit would, and says so
    /// once; its first hit then adds nothing. A pad that said hello and never played stops
    /// counting after 30 s, as one gone quiet does.
    @Test func aPadsHelloCountsBeforeItsFirstHit() {
        let rises = Mutex<[String]>([])
        let chooser = LatencyChooser(.init(periodMicros: Self.period), onRise: { _, pad in rises.withLock { $0.append(pad) } })
        let greeted = chooser.greet(padKey: "phone", rateHz: 100, atMicros: 0)
        #expect(greeted == 42_000 + Self.period + 1_000 + 7_333)
        #expect(chooser.note(padKey: "fast", rateHz: 1_600, latenessMicros: 4_000, arrivalMicros: 10_000) == greeted)
        #expect(chooser.note(padKey: "phone", rateHz: 100, latenessMicros: 20_000, arrivalMicros: 30_000) == greeted)
        #expect(rises.withLock { $0 } == ["phone"])
        let quiet = LatencyChooser(.init(periodMicros: Self.period))
        quiet.greet(padKey: "phone", rateHz: 100, atMicros: 0)
        _ = Self.feed(quiet, "fast", rateHz: 1_600, lateness: { _ in 4_000 }, count: 400, from: 1_000_000)
        // 41 s on, after a pause: the quiet phone no longer holds the fast pad back.
        #expect(quiet.note(padKey: "fast", rateHz: 1_600, latenessMicros: 4_000, arrivalMicros: 42_000_000)
            == 4_000 + Self.period + 1_000)
    }

    /// The first strike of a kit: a 100 Hz pad's arrives 25 ms after it was struck, a 1.6 kHz
    /// pad's crosstalk of it 4.5 ms after. Once both pads have said hello, the crosstalk waits in
    /// its slot for its cause and is taken back; unknown, the slow pad can neither hold the
    /// latency nor the decision, and the crosstalk plays.
    @Test func aHelloLetsTheFirstStrikesCrosstalkWaitForIt() {
        for greeted in [true, false] {
            let player = HitRouterTests.RecordingPlayer()
            let router = HitRouter(player: player, drums: DrumMap(kit: HitRouterTests.kit, generation: 1), crosstalk: nil,
                                   stands: StandCrosstalk(), jitterMicros: 0,
                                   latency: LatencyChooser(.init(periodMicros: Self.period)))
            if greeted {
                router.greet(padName: "snare-pad", connectionID: 1, rateHz: 100, strengths: true, atMicros: 0)
                router.greet(padName: "tom-pad", connectionID: 2, rateHz: 1_600, strengths: true, atMicros: 0)
            }
            let strike: Int64 = 1_000_000
            let crosstalk = router.route(ReceivedHit(hit: DrumHit(drum: "racktom", velocity: 0.3, strength: 0.4), connectionID: 2,
                                                     padName: "tom-pad", receivedMicros: strike + 4_500, latencyMicros: 4_500,
                                                     rateHz: 1_600))
            let cause = router.route(ReceivedHit(hit: DrumHit(drum: "snare", velocity: 1, strength: 2.5), connectionID: 1,
                                                 padName: "snare-pad", receivedMicros: strike + 25_000, latencyMicros: 25_000,
                                                 rateHz: 100))
            guard case .queued = crosstalk.disposition, case .queued = cause.disposition else {
                Issue.record("both queued at first: \(crosstalk.disposition), \(cause.disposition)")
                continue
            }
            #expect(player.takenBack.withLock { $0.count } == (greeted ? 1 : 0), "greeted \(greeted)")
            #expect(crosstalk.holdMicros == 0, "it waits within its slot: \(crosstalk.holdMicros) µs past it")
        }
    }

    /// What a hello says is checked before it counts: a rate outside 25 Hz…25.6 kHz is taken as
    /// none (a 1 Hz pad would have the latency cover four seconds and weak hits wait one), and a
    /// pad whose hits carry no strength (protocol 1) joins the latency but not the stands.
    @Test func aHellosRateAndVersionAreCheckedBeforeTheyCount() {
        let chooser = LatencyChooser(.init(periodMicros: Self.period))
        let stands = StandCrosstalk()
        let router = HitRouter(player: HitRouterTests.RecordingPlayer(), drums: DrumMap(kit: HitRouterTests.kit, generation: 1),
                               crosstalk: nil, stands: stands, jitterMicros: 0, latency: chooser)
        router.greet(padName: "liar", connectionID: 1, rateHz: 1, strengths: true, atMicros: 0)
        #expect(chooser.latencyMicros == 18_000 + Self.period + 1_000, "as a pad that said no rate")
        router.greet(padName: "old", connectionID: 2, rateHz: 200, strengths: false, atMicros: 0)
        #expect(stands.model.padKeys == ["liar"])
        #expect(chooser.latencyMicros == 22_000 + Self.period + 1_000 + (6_000 - Self.period - 1_000))
    }

    /// Through the router: a synced pad's hit starts at its strike plus the latency chosen.
    @Test func theRouterSchedulesEachHitAtItsStrikePlusTheLatency() {
        let player = HitRouterTests.RecordingPlayer()
        let chooser = LatencyChooser(.init(periodMicros: Self.period))
        let router = HitRouter(player: player, drums: DrumMap(kit: HitRouterTests.kit, generation: 1), crosstalk: nil,
                               jitterMicros: 0, latency: chooser)
        for k in 0..<20 {
            let arrival = Int64(k) * 200_000 + 1_000_000
            _ = router.route(ReceivedHit(hit: DrumHit(drum: "snare", velocity: 1), connectionID: 1, padName: "p",
                                         receivedMicros: arrival, latencyMicros: Int64(8_000 + (k % 3) * 2_000), rateHz: 250))
        }
        let calls = player.calls.withLock { $0 }
        #expect(calls.count == 20)
        for (k, call) in calls.enumerated() {
            let arrival = Int64(k) * 200_000 + 1_000_000
            let strike = arrival - Int64(8_000 + (k % 3) * 2_000)
            // The first 16 at the 250 Hz prior (18 ms + period + 1 ms, and the stands' hold while
            // the pad is new: 4 + 1 ms − period − 1 ms), then it holds (falling waits 10 s and a pause).
            #expect(call.atMicros.map { $0 + call.delayMicros } == strike + 18_000 + Self.period + 1_000 + (4_000 - Self.period),
                    "hit \(k)")
        }
    }
}

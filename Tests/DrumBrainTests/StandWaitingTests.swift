import BrainCore
import Synchronization
import Testing

/// Crosstalk that arrives before its cause (`StandCrosstalk.decide`): a weak hit that a
/// coupled neighbour's strike could explain waits for it, within its slot or the hold, and is
/// taken back when the strike arrives; crosstalk of pads struck together adds up.
struct StandWaitingTests {
    /// A 1.6 kHz pad dates its hits closely, so its crosstalk of a 100 Hz pad's strike shows
    /// the slow pad's lateness whole: dated 18 ms before the strike, it is still taken back.
    @Test func aFastPadsCrosstalkDatedAheadOfASlowPadsStrikeIsTakenBack() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        for k in 0..<30 {  // floortom (100 Hz) → ride (1.6 kHz) at 6 %
            let t = Int64(k) * 250_000
            id += 1
            _ = stands.decide(padKey: "floortom", rateHz: 100, strikeMicros: t, arrivalMicros: t + 30_000, strength: 3, id: id)
            id += 1
            _ = stands.decide(padKey: "ride", rateHz: 1600, strikeMicros: t + 1_000, arrivalMicros: t + 5_000, strength: 0.18, id: id)
        }
        id += 1
        let early = id
        guard case .play = stands.decide(padKey: "ride", rateHz: 1600, strikeMicros: 10_000_000, arrivalMicros: 10_025_000,
                                         strength: 0.3, id: early) else {
            Issue.record("the weak hit was not held")
            return
        }
        id += 1
        let strike = stands.decide(padKey: "floortom", rateHz: 100, strikeMicros: 10_018_000, arrivalMicros: 10_030_000,
                                   strength: 3.5, id: id)
        #expect(strike == .play(holdMicros: 0, takeBack: [early]))
    }

    /// Crosstalk that arrives before the strike that caused it (a slower detector on the struck
    /// pad) waits at most one sensor period + 1 ms, and the strike, arriving in time, takes it back.
    @Test func crosstalkArrivingFirstWaitsAndIsTakenBack() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        StandModelTests.teach(stands, "a", "b", strikes: 30, strength: 6, answer: 0.48, id: &id)
        id += 1
        let early = id
        guard case .play(let hold, _) = StandModelTests.decide(stands, "b", 10_001, 0.48, id: early, arrivalMs: 10_009) else {
            Issue.record("crosstalk arriving first was not held")
            return
        }
        #expect(hold > 0 && hold <= 4_000 + 1_000)
        id += 1
        let strike = StandModelTests.decide(stands, "a", 10_000, 6, id: id, arrivalMs: 10_012)
        #expect(strike == .play(holdMicros: 0, takeBack: [early]))
        #expect(stands.counts.takenBack == 1)
    }

    /// A pad between two pads struck together feels both: the crosstalk adds up. Each of a and
    /// b reaches r at 6 %; struck together at 3 g each, r reads 0.7 g, more than either alone
    /// explains (2.5 × 6 % × 3 g = 0.45 g, + r's softest hit, 0.18 g, for its own noise) and
    /// less than both do (1.08 g).
    @Test func crosstalkFromTwoPadsStruckTogetherAddsUp() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        StandModelTests.teach(stands, "a", "r", strikes: 30, strength: 3, answer: 0.18, id: &id)
        StandModelTests.teach(stands, "b", "r", strikes: 30, strength: 3, answer: 0.18, from: 10_000, id: &id)  // after a's lesson
        let t = 20_000.0
        id += 1
        _ = StandModelTests.decide(stands, "a", t, 3, id: id)
        id += 1
        #expect(StandModelTests.decide(stands, "r", t + 1, 0.7, id: id) != .crosstalk)  // a alone does not explain it
        id += 1
        _ = StandModelTests.decide(stands, "a", t + 500, 3, id: id)
        id += 1
        _ = StandModelTests.decide(stands, "b", t + 502, 3, id: id)
        id += 1
        #expect(StandModelTests.decide(stands, "r", t + 503, 0.7, id: id) == .crosstalk)
    }

    /// The same unison, but r's crosstalk arrives between the two strikes (b's detector sends
    /// its strike 0.9 ms after r's hit, as an idle pad on a simulated 200 Hz stand was found
    /// playing): a alone does not explain it, but what a and b can cause together does, so it
    /// waits, and b's strike takes it back. Broken (a hit waits only for what one pad alone can
    /// cause), it plays.
    @Test func crosstalkOfAUnisonArrivingBeforeItsSecondStrikeWaitsAndIsTakenBack() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        StandModelTests.teach(stands, "a", "r", strikes: 30, strength: 3, answer: 0.18, id: &id)
        StandModelTests.teach(stands, "b", "r", strikes: 30, strength: 3, answer: 0.18, from: 10_000, id: &id)
        let t = 20_000.0
        id += 1
        _ = StandModelTests.decide(stands, "a", t, 3, id: id, arrivalMs: t + 20)
        id += 1
        let crosstalk = id
        guard case .play = StandModelTests.decide(stands, "r", t + 1, 0.7, id: crosstalk, arrivalMs: t + 21) else {
            Issue.record("r's hit was judged before b's strike arrived")
            return
        }
        id += 1
        #expect(StandModelTests.decide(stands, "b", t + 0.5, 3, id: id, arrivalMs: t + 21.9) == .play(holdMicros: 0, takeBack: [crosstalk]))
    }

    /// In the first second nothing is known of the pads' loud strikes: a weak hit still waits
    /// for a neighbour's strike arriving just after it, which takes it back (an idle pad on a
    /// simulated 250 Hz stand played one such hit 1.2 s in, when the struck pad had sent only
    /// its crosstalk of another). Broken (no wait before a pad has played a loud hit), it plays.
    @Test func inTheFirstSecondAWeakHitWaitsForALoudStrikeArrivingJustAfter() {
        let stands = StandCrosstalk()
        var id: UInt32 = 1
        _ = StandModelTests.decide(stands, "a", 100, 0.07, id: id)  // a's first hit: crosstalk of something
        id += 1
        let crosstalk = id
        guard case .play = StandModelTests.decide(stands, "r", 1_000, 0.35, id: crosstalk, arrivalMs: 1_010) else {
            Issue.record("r's hit was cancelled with nothing to explain it")
            return
        }
        id += 1
        #expect(StandModelTests.decide(stands, "a", 1_002, 3.5, id: id, arrivalMs: 1_010.1) == .play(holdMicros: 0, takeBack: [crosstalk]))
    }

    /// A Joy-Con delivers in bursts of 15 ms: crosstalk can arrive 15 ms before its cause, past
    /// any hold of one period + 1 ms. With a latency (the slot, 30 ms after the strike) the weak
    /// hit waits for its cause until its slot, adding nothing, and is taken back; without one it
    /// has played by then.
    @Test func crosstalkWaitsUntilItsSlotForACauseDeliveredInALaterBurst() {
        for slotted in [true, false] {
            let stands = StandCrosstalk()
            var id: UInt32 = 0
            StandModelTests.teach(stands, "a", "b", strikes: 30, strength: 6, answer: 0.48, id: &id)
            id += 1
            let early = id
            let decision = stands.decide(padKey: "b", rateHz: 200, strikeMicros: 10_001_000, arrivalMicros: 10_012_000,
                                         strength: 0.48, id: early, slotMicros: slotted ? 10_031_000 : nil)
            #expect(decision == .play(holdMicros: slotted ? 0 : 6_000, takeBack: []), "slotted \(slotted)")
            id += 1
            let cause = stands.decide(padKey: "a", rateHz: 200, strikeMicros: 10_000_000, arrivalMicros: 10_027_000,
                                      strength: 6, id: id, slotMicros: slotted ? 10_030_000 : nil)
            #expect(cause == .play(holdMicros: 0, takeBack: slotted ? [early] : []), "slotted \(slotted)")
        }
    }
}

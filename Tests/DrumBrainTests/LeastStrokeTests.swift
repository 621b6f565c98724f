import BrainCore
import Testing

/// A hit too weak for a stroke at its pad's rate (`StandModel.Configuration.leastStrokeG`): from
/// about 170 to 500 Hz, on a pad that said its rate, a hit under 0.3 g never plays, whatever is
/// around it; it still waits to be marked as the crosstalk of a strike arriving later.
struct LeastStrokeTests {
    /// A pad at `rateHz` (nil: it never says its rate) plays three strokes of 2 g alone (a
    /// played pad), then, 1.5 s after the last with nothing around it, a hit of `strength` g: its
    /// decision, and the counts after.
    static func lone(_ strength: Double, rateHz: Double?, least: Double? = nil)
        -> (decision: StandCrosstalk.Decision, counts: (cancelled: Int, takenBack: Int, swayed: Int, weak: Int, shaken: Int)) {
        var configuration = StandModel.Configuration()
        if let least { configuration.leastStrokeG = least }
        let stands = StandCrosstalk(model: StandModel(configuration))
        for k in 0..<3 { _ = StandModelTests.decide(stands, "snare", 500 + Double(k) * 500, 2, id: UInt32(k + 1), rateHz: rateHz) }
        let decision = StandModelTests.decide(stands, "snare", 3_000, strength, id: 4, rateHz: rateHz)
        return (decision, stands.counts)
    }

    /// At 200 and 250 Hz (and 167 Hz, a period of 5988 µs: the range begins at 6000 µs, about
    /// 166.7 Hz) a lone hit of 0.25 g is cancelled and counted as too weak; one of 0.35 g plays;
    /// with the rule off (0) the weak one plays too.
    @Test(arguments: [200.0, 250.0, 167.0])
    func aWeakHitAtAGamepadsRateDoesNotPlay(rateHz: Double) {
        let weak = Self.lone(0.25, rateHz: rateHz)
        #expect(weak.decision == .crosstalk)
        #expect(weak.counts.weak == 1 && weak.counts.cancelled == 1 && weak.counts.swayed == 0)
        let stroke = Self.lone(0.35, rateHz: rateHz)
        #expect(stroke.decision == .play(holdMicros: 0, takeBack: []))
        #expect(stroke.counts.weak == 0)
        let off = Self.lone(0.25, rateHz: rateHz, least: 0)
        #expect(off.decision == .play(holdMicros: 0, takeBack: []))
    }

    /// At 100 Hz (a phone reads soft strokes that low), 166 Hz (a period of 6024 µs), and at
    /// 500 Hz and 1.6 kHz (the detector's bump test judges weak candidates) the rule does not
    /// apply, nor on a pad that never said its rate (its strength may be another detector's
    /// measure): the 0.25 g hit plays.
    @Test(arguments: [100.0, 166.0, 500.0, 1600.0, nil] as [Double?])
    func aWeakHitAtOtherRatesStillPlays(rateHz: Double?) {
        let weak = Self.lone(0.25, rateHz: rateHz)
        #expect(weak.decision == .play(holdMicros: 0, takeBack: []))
        #expect(weak.counts.weak == 0)
    }

    /// A weak hit still answers its neighbour's strikes: a 250 Hz pad answers every strike of
    /// 3 g at 6 % (0.18 g, too weak to play), each answer arriving before its strike (a scanning
    /// detector sends a strong strike later), so it is cancelled as too weak on arrival; the
    /// pair is learned from those answers all the same, and none of them plays. (That such a hit
    /// waits to be marked as its strike's crosstalk is judged by
    /// `StandModelTests.aSlowPadsStrikeReadLowIsWeighedByWhatTheOtherPadsFeltOfIt`.)
    @Test func weakAnswersStillTeachThePair() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        var played = 0
        for k in 0..<30 {
            let t = Double(k) * 250
            id += 1
            if StandModelTests.decide(stands, "b", t + 1, 0.18, id: id, arrivalMs: t + 3) != .crosstalk { played += 1 }
            id += 1
            _ = StandModelTests.decide(stands, "a", t, 3, id: id, arrivalMs: t + 8)
        }
        #expect(played == 0)
        #expect(stands.counts.weak == 30)
        let coupling = stands.model.couplings.first { $0.source == "a" && $0.receiver == "b" }
        #expect(coupling != nil && abs(coupling!.coupling - 0.06) < 0.02, "\(stands.model.couplings)")
    }

    /// A weak hit arriving before the strike that caused it is cancelled at once (counted as
    /// cancelled and too weak), and waits: the strike hands the router no id to take back and
    /// counts nothing as taken back, since it was never queued to play. (That the strike marks
    /// it as its crosstalk is judged by the witness test,
    /// `StandModelTests.aSlowPadsStrikeReadLowIsWeighedByWhatTheOtherPadsFeltOfIt`.)
    @Test func aWeakHitArrivingFirstIsMarkedNotTakenBack() {
        let run = StandModelTests.earlyHitThenStrike(felt: false)
        #expect(run.early == .crosstalk)
        #expect(run.strike == .play(holdMicros: 0, takeBack: []))
        let (before, after) = (run.before, run.stands.counts)
        #expect(after.cancelled == before.cancelled + 1 && after.weak == before.weak + 1)
        #expect(after.takenBack == before.takenBack && after.swayed == before.swayed)
        #expect(!run.stands.model.recentIsSource(id: run.earlyID))
    }
}

import BrainCore
import Testing

/// A hit too weak for a stroke at its pad's rate (`StandModel.Configuration.leastStrokeG`): from
/// about 170 to 500 Hz a hit under 0.3 g never plays, wherever it came from.
struct LeastStrokeTests {
    /// A pad at `rateHz` plays three strokes of 2 g alone (a played pad), then, a second later
    /// with nothing around it, a hit of `strength` g: its decision, and the counts after.
    static func lone(_ strength: Double, rateHz: Double, least: Double? = nil)
        -> (decision: StandCrosstalk.Decision, counts: (cancelled: Int, takenBack: Int, swayed: Int, weak: Int)) {
        var configuration = StandModel.Configuration()
        if let least { configuration.leastStrokeG = least }
        let stands = StandCrosstalk(model: StandModel(configuration))
        for k in 0..<3 { _ = StandModelTests.decide(stands, "snare", 500 + Double(k) * 500, 2, id: UInt32(k + 1), rateHz: rateHz) }
        let decision = StandModelTests.decide(stands, "snare", 3_000, strength, id: 4, rateHz: rateHz)
        return (decision, stands.counts)
    }

    /// At 200 and 250 Hz (and 170 Hz, where the rule's range begins) a lone hit of 0.25 g is
    /// cancelled and counted as too weak; one of 0.35 g plays; with the rule off (0) the weak one
    /// plays too.
    @Test(arguments: [200.0, 250.0, 170.0])
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

    /// At 100 Hz (a phone reads soft strokes that low) and at 1.6 kHz (its detector's bump test
    /// judges weak candidates) the rule does not apply: the 0.25 g hit plays.
    @Test(arguments: [100.0, 1600.0])
    func aWeakHitAtOtherRatesStillPlays(rateHz: Double) {
        let weak = Self.lone(0.25, rateHz: rateHz)
        #expect(weak.decision == .play(holdMicros: 0, takeBack: []))
        #expect(weak.counts.weak == 0)
    }
}

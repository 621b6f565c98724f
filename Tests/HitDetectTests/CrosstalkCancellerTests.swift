import HitDetect
import Testing

/// Crosstalk cancellation across the pads of one stand (issue 3).
struct CrosstalkCancellerTests {
    @Test func aQuietHitJustAfterALouderNeighbourIsCrosstalk() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.8); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.004, velocity: 0.3); #expect(!sounds) }  // 0.3 ≤ 0.6 × 0.8
        #expect(canceller.cancelled == 1)
    }

    @Test func aLoudEnoughHitOrOneOutsideTheWindowSounds() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.8); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.004, velocity: 0.49); #expect(sounds) }  // over 0.6 × 0.8
        do { let sounds = canceller.admit(source: 3, time: 1.030, velocity: 0.25); #expect(sounds) }  // 30 ms: over 0.3 × 0.8
        do { let sounds = canceller.admit(source: 4, time: 1.052, velocity: 0.16); #expect(sounds) }  // 52 ms: past twice the window
        #expect(canceller.cancelled == 0)
    }

    /// Velocity starts at the curve's floor, 0.1: a pad's crosstalk there, under a neighbour's
    /// strike that a slow sensor measured at 0.18, is more than half of it, and still crosstalk.
    @Test func crosstalkAtTheVelocityFloorUnderAModestNeighbourIsCancelled() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.18); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.011, velocity: 0.1); #expect(!sounds) }  // 0.1 ≤ 0.6 × 0.18
        #expect(canceller.cancelled == 1)
    }

    /// A slow sensor dates the stand's ringing late: for twice the window, a hit of at most half
    /// the ratio is still crosstalk; louder than that, or later, or before the loud hit, it plays.
    @Test(arguments: [
        (after: 0.040, velocity: 0.1, sounds: false),   // 40 ms, 0.1 ≤ 0.3 × 0.9
        (after: 0.040, velocity: 0.3, sounds: true),    // over 0.3 × 0.9
        (after: 0.055, velocity: 0.1, sounds: true),    // past twice the 25 ms window
        (after: -0.040, velocity: 0.1, sounds: true),   // 40 ms before the loud hit
    ])
    func aMuchQuieterHitStaysCrosstalkForTwiceTheWindow(after: Double, velocity: Double, sounds: Bool) {
        var canceller = CrosstalkCanceller()
        do { let loud = canceller.admit(source: 1, time: 1.000, velocity: 0.9); #expect(loud) }
        let quiet = canceller.admit(source: 2, time: 1.000 + after, velocity: velocity)
        #expect(quiet == sounds)
    }

    @Test func thePadItselfIsNeverItsOwnCrosstalk() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.9); #expect(sounds) }
        do { let sounds = canceller.admit(source: 1, time: 1.010, velocity: 0.1); #expect(sounds) }
    }

    @Test func aCancelledHitCancelsNothing() {
        var canceller = CrosstalkCanceller(.init(window: 0.025, ratio: 0.6))
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 1.0); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.005, velocity: 0.55); #expect(!sounds) }
        // 0.32 would be crosstalk of source 2's 0.55 (22 ms after it, at most 0.6 × 0.55), but
        // that hit never sounded; 27 ms after source 1's it is over 0.3 × 1.0, so not its either.
        do { let sounds = canceller.admit(source: 3, time: 1.027, velocity: 0.32); #expect(sounds) }
    }

    @Test func aReorderedEarlierLouderHitStillCounts() {
        // The louder hit arrives first though its pad's clock put it a little later.
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.003, velocity: 0.9); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.001, velocity: 0.2); #expect(!sounds) }
    }

    @Test func offlineDecisionsFollowTimeOrder() {
        let hits: [(source: Int, time: Double, velocity: Double, arrival: Double)] = [
            (2, 2.004, 0.2, 2.014), (1, 2.000, 0.9, 2.010), (2, 3.000, 0.2, 3.010), (1, 3.1, 0.9, 3.110),
        ]
        #expect(CrosstalkCanceller.admitted(hits) == [false, true, true, true])
    }

    @Test func sixteenPadsInOneWindowAreRemembered() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 0, time: 1.0, velocity: 1.0); #expect(sounds) }
        for pad in 1...15 {
            let sounds = canceller.admit(source: pad, time: 1.0 + Double(pad) * 0.001, velocity: 0.65)
            #expect(sounds)
        }
        do { let sounds = canceller.admit(source: 99, time: 1.016, velocity: 0.45); #expect(!sounds) }  // under 0.6 × 1.0
    }

    /// Crosstalk delivered before the strike that caused it (a sensor reporting in bursts): it
    /// sounds when decided at once, and is taken back when the brain still holds it.
    @Test func aLouderHitArrivingLaterTakesBackWaitingCrosstalk() {
        var taken: [UInt32] = []
        var held = CrosstalkCanceller(.init(window: 0.025, ratio: 0.6, hold: 0.030))
        do { let sounds = held.admit(source: 2, time: 1.004, velocity: 0.55, arrival: 1.012, id: 7) { taken.append($0) }; #expect(sounds) }
        do { let sounds = held.admit(source: 1, time: 1.000, velocity: 1.0, arrival: 1.020, id: 8) { taken.append($0) }; #expect(sounds) }
        #expect(taken == [7] && held.revoked == 1 && held.cancelled == 0)
        // Taken back, it cancels nothing more: 23 ms after the taken-back one (at most 0.6 × 0.55)
        // and 27 ms after the loud hit (over 0.3 × 1.0), a hit of 0.32 sounds.
        do { let sounds = held.admit(source: 3, time: 1.027, velocity: 0.32, arrival: 1.035, id: 9) { taken.append($0) }; #expect(sounds) }
        #expect(taken == [7])

        // Not held (hold 0), or arriving after the quiet hit's time + hold: it stays.
        for (hold, arrival) in [(0.0, 1.020), (0.030, 1.040)] {
            var canceller = CrosstalkCanceller(.init(window: 0.025, ratio: 0.5, hold: hold))
            var none: [UInt32] = []
            _ = canceller.admit(source: 2, time: 1.004, velocity: 0.2, arrival: 1.012, id: 7) { none.append($0) }
            _ = canceller.admit(source: 1, time: 1.000, velocity: 0.9, arrival: arrival, id: 8) { none.append($0) }
            #expect(none.isEmpty && canceller.revoked == 0, "hold \(hold), arrival \(arrival)")
        }
        // The pad's own quieter hit, or a neighbour's that is over half as loud, is never taken back.
        var canceller = CrosstalkCanceller(.init(window: 0.025, ratio: 0.5, hold: 0.030))
        var none: [UInt32] = []
        _ = canceller.admit(source: 1, time: 1.004, velocity: 0.3, arrival: 1.012, id: 1) { none.append($0) }
        _ = canceller.admit(source: 2, time: 1.006, velocity: 0.5, arrival: 1.013, id: 2) { none.append($0) }
        _ = canceller.admit(source: 1, time: 1.000, velocity: 0.9, arrival: 1.020, id: 3) { none.append($0) }
        #expect(none.isEmpty)
    }

    @Test func offlineDecisionsTakeBackHeldCrosstalk() {
        let hits: [(source: Int, time: Double, velocity: Double, arrival: Double)] = [
            (2, 2.004, 0.2, 2.012), (1, 2.000, 0.9, 2.020),
        ]
        #expect(CrosstalkCanceller.admitted(hits) == [true, true])
        #expect(CrosstalkCanceller.admitted(hits, configuration: .init(hold: 0.030)) == [false, true])
    }
}

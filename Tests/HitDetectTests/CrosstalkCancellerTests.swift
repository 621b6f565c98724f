import HitDetect
import Testing

/// Crosstalk cancellation across the pads of one stand (issue 3).
struct CrosstalkCancellerTests {
    @Test func aQuietHitJustAfterALouderNeighbourIsCrosstalk() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.8); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.004, velocity: 0.3); #expect(!sounds) }  // 0.3 ≤ 0.5 × 0.8
        #expect(canceller.cancelled == 1)
    }

    @Test func aLoudEnoughHitOrOneOutsideTheWindowSounds() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.8); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.004, velocity: 0.41); #expect(sounds) }  // over half as loud
        do { let sounds = canceller.admit(source: 3, time: 1.030, velocity: 0.1); #expect(sounds) }   // 30 ms: out of the window
        #expect(canceller.cancelled == 0)
    }

    @Test func thePadItselfIsNeverItsOwnCrosstalk() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 0.9); #expect(sounds) }
        do { let sounds = canceller.admit(source: 1, time: 1.010, velocity: 0.1); #expect(sounds) }
    }

    @Test func aCancelledHitCancelsNothing() {
        var canceller = CrosstalkCanceller(.init(window: 0.025, ratio: 0.5))
        do { let sounds = canceller.admit(source: 1, time: 1.000, velocity: 1.0); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.005, velocity: 0.4); #expect(!sounds) }
        // 0.15 would be crosstalk of source 2's 0.4, but that hit never sounded; it is not
        // crosstalk of source 1's either when the window has passed for it.
        do { let sounds = canceller.admit(source: 3, time: 1.027, velocity: 0.15); #expect(sounds) }
    }

    @Test func aReorderedEarlierLouderHitStillCounts() {
        // The louder hit arrives first though its pad's clock put it a little later.
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 1, time: 1.003, velocity: 0.9); #expect(sounds) }
        do { let sounds = canceller.admit(source: 2, time: 1.001, velocity: 0.2); #expect(!sounds) }
    }

    @Test func offlineDecisionsFollowTimeOrder() {
        let hits: [(source: Int, time: Double, velocity: Double)] = [
            (2, 2.004, 0.2), (1, 2.000, 0.9), (2, 3.000, 0.2), (1, 3.1, 0.9),
        ]
        #expect(CrosstalkCanceller.admitted(hits) == [false, true, true, true])
    }

    @Test func sixteenPadsInOneWindowAreRemembered() {
        var canceller = CrosstalkCanceller()
        do { let sounds = canceller.admit(source: 0, time: 1.0, velocity: 1.0); #expect(sounds) }
        for pad in 1...15 {
            let sounds = canceller.admit(source: pad, time: 1.0 + Double(pad) * 0.001, velocity: 0.6)
            #expect(sounds)
        }
        do { let sounds = canceller.admit(source: 99, time: 1.016, velocity: 0.45); #expect(!sounds) }  // under 0.5 × 1.0
    }
}

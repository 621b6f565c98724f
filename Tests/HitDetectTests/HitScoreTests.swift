import Testing
@testable import HitDetect

struct HitScoreTests {
    @Test func perfectMatch() {
        let s = HitScore(hitTimes: [1, 2, 3], labelTimes: [1.005, 2, 2.995], tolerance: 0.01)
        #expect((s.truePositives, s.falsePositives, s.falseNegatives) == (3, 0, 0))
        #expect(s.f1 == 1)
    }

    @Test func noLabels() {
        let s = HitScore(hitTimes: [1, 2], labelTimes: [], tolerance: 0.01)
        #expect((s.truePositives, s.falsePositives, s.falseNegatives) == (0, 2, 0))
        #expect(s.precision == 0 && s.recall == 1 && s.f1 == 0)
    }

    @Test func noHits() {
        let s = HitScore(hitTimes: [], labelTimes: [1, 2], tolerance: 0.01)
        #expect((s.truePositives, s.falsePositives, s.falseNegatives) == (0, 0, 2))
        #expect(s.precision == 1 && s.recall == 0 && s.f1 == 0)
    }

    @Test func nothingAtAll() {
        let s = HitScore(hitTimes: [], labelTimes: [], tolerance: 0.01)
        #expect(s.precision == 1 && s.recall == 1 && s.f1 == 1)
    }

    @Test func twoHitsWithinOneWindowAreOneMatchAndOneFalseHit() {
        let s = HitScore(hitTimes: [0.998, 1.004], labelTimes: [1.0], tolerance: 0.01)
        #expect((s.truePositives, s.falsePositives, s.falseNegatives) == (1, 1, 0))
        #expect(s.precision == 0.5 && s.recall == 1)
    }

    @Test func windowIsInclusiveAndNoWider() {
        // 0.25 and 0.125 are exact binary fractions, so the boundary is exact.
        #expect(HitScore(hitTimes: [1.25], labelTimes: [1.125], tolerance: 0.125).truePositives == 1)
        #expect(HitScore(hitTimes: [1.25], labelTimes: [1.0], tolerance: 0.125).truePositives == 0)
    }

    @Test func oneToOneInTimeOrder() {
        // Each hit is near both labels; one-to-one matching pairs them in order.
        let s = HitScore(hitTimes: [1.000, 1.008], labelTimes: [1.002, 1.009], tolerance: 0.01)
        #expect(s.truePositives == 2)
        // An early false hit does not steal the next label's match.
        let t = HitScore(hitTimes: [0.5, 1.0], labelTimes: [1.0], tolerance: 0.01)
        #expect((t.truePositives, t.falsePositives) == (1, 1))
    }

    @Test func unsortedInputIsSorted() {
        let s = HitScore(hitTimes: [3, 1, 2], labelTimes: [2, 3, 1], tolerance: 0.001)
        #expect(s.truePositives == 3)
    }

    @Test(arguments: [
        (rate: 250.0, expected: 0.010),   // 2.5 periods = 10 ms
        (rate: 100.0, expected: 0.025),   // 2.5 periods = 25 ms
        (rate: 1600.0, expected: 0.010),  // 1.6 ms < 10 ms
    ])
    func defaultTolerance(rate: Double, expected: Double) {
        #expect(abs(HitScore.defaultTolerance(sampleRate: rate) - expected) < 1e-12)
    }
}

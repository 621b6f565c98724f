import Testing
@testable import HitDetect

private func firing(_ z: [Double], threshold: Double = 0.4, blocked: Int = 8,
                    gapsBefore: [Int] = []) -> [Int] {
    var detector = TVDrumsDetector(.init(threshold: threshold, blockedSamples: blocked))
    return detector.detect(z: z, time: z.indices.map { Double($0) }, gapsBefore: gapsBefore)
        .map(\.index)
}

/// Hand-computed sequences for the original app's detector (docs/architecture.md, Detection).
struct TVDrumsDetectorTests {
    @Test func previousZStartsAtZeroSoTheFirstSampleCanFire() {
        // |1.0 − 0| = 1.0 > 0.4 and > previous |Δz| = 0.
        #expect(firing([1.0]) == [0])
        #expect(firing([0.3]) == [])
    }

    @Test func aHitNeedsARisingDelta() {
        // n1: |Δ| = 0.6 fires. n2: |Δ| = 0.5 > 0.4 but not > 0.6: no hit (blocking off).
        #expect(firing([0, 0.6, 1.1], blocked: 0) == [1])
        // n2: |Δ| = 0.7 > 0.6: fires.
        #expect(firing([0, 0.6, 1.3], blocked: 0) == [1, 2])
    }

    @Test func strictlyAboveThreshold() {
        #expect(firing([0, 0.5], threshold: 0.5, blocked: 0) == [])
        #expect(firing([0, 0.5001], threshold: 0.5, blocked: 0) == [1])
    }

    @Test func eightSamplesAreBlockedAndTheNinthCanFire() {
        // Hit at 1; 2…9 blocked (8 samples); a rising jump at 10 fires.
        let ninthFires: [Double] = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]
        #expect(firing(ninthFires) == [1, 10])
        // The same jump at 9 is blocked, and at 10 |Δ| = 0 does not fire.
        let eighthBlocked: [Double] = [0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2]
        #expect(firing(eighthBlocked) == [1])
    }

    @Test func previousDeltaUpdatesWhileBlocked() {
        // n9 (blocked) has |Δ| = 0.5; n10 has |Δ| = 0.5, not greater: no hit. Were the previous
        // |Δz| frozen at n2's 0 while blocked, n10 would fire.
        let z: [Double] = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1.5, 2.0]
        #expect(firing(z) == [1])
    }

    @Test func gapPrimesInsteadOfComparingAcrossIt() {
        #expect(firing([0, 0, 3, 3], gapsBefore: [2]) == [])
        #expect(firing([0, 0, 3, 3]) == [2])
        // After the priming sample the previous |Δz| is 0, so a jump fires.
        #expect(firing([0, 0, 3, 4], gapsBefore: [2]) == [3])
    }

    @Test func strengthIsAbsoluteDelta() {
        var detector = TVDrumsDetector()
        #expect(detector.process(z: 0, time: 0) == nil)
        let hit = detector.process(z: -0.9, time: 1)
        #expect(hit?.strength == 0.9)
        #expect(hit?.index == 1)
    }
}

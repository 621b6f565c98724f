import Testing
@testable import HitDetect

/// Runs the default detector over `z` (time = index / 100) and returns the indices that fired.
private func firing(_ z: [Double], threshold: Double = 0.4, refractory: Int = 10,
                    gapsBefore: [Int] = []) -> [Int] {
    var detector = SquaredDeltaDetector(.init(threshold: threshold, refractorySamples: refractory))
    return detector.detect(z: z, time: z.indices.map { Double($0) / 100 }, gapsBefore: gapsBefore)
        .map(\.index)
}

struct SquaredDeltaDetectorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let z: [Double]
        var threshold = 0.4
        var refractory = 10
        var gaps: [Int] = []
        let expected: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // Sample 0 only primes: a large first value is not a jump from 0.
        Case(name: "sample 0 primes", z: [5, 5, 5], expected: []),
        Case(name: "first delta is at sample 1", z: [0, 1, 1], expected: [1]),
        // Strictly greater: 0.5² = 0.25 exactly does not fire at threshold 0.25.
        Case(name: "equal to threshold does not fire", z: [0, 0.5], threshold: 0.25, expected: []),
        Case(name: "just above threshold fires", z: [0, 0.5000001], threshold: 0.25, expected: [1]),
        Case(name: "negative jumps fire too (squared)", z: [1, 0], expected: [1]),
        // Refractory R = 3: hit at 1 blocks 2, 3, 4; 5 (= n+R+1) fires.
        Case(name: "n+R blocked", z: [0, 1, 0, 1, 0, 0], refractory: 3, expected: [1]),
        Case(name: "n+R+1 fires", z: [0, 1, 0, 1, 0, 1], refractory: 3, expected: [1, 5]),
        Case(name: "refractory 0 allows the next sample", z: [0, 1, 0, 1], refractory: 0,
             expected: [1, 2, 3]),
        // The previous value follows every sample: after the refractory, the comparison is with
        // the last blocked sample (2), not the one that fired (1), so nothing fires at 4.
        Case(name: "previous updates during refractory", z: [0, 1, 2, 2, 2], refractory: 2,
             expected: [1]),
        // A gap before sample 2: it primes, so the jump 0 → 5 across the gap does not fire...
        Case(name: "gap primes", z: [0, 0, 5, 5], gaps: [2], expected: []),
        Case(name: "same jump without the gap fires", z: [0, 0, 5, 5], expected: [2]),
        // ...and the sample after the priming one compares with it.
        Case(name: "after the priming sample, deltas resume", z: [0, 0, 5, 0], gaps: [2],
             expected: [3]),
        Case(name: "default refractory is 10", z: [0, 1] + Array(repeating: 0, count: 9) + [1, 0],
             expected: [1, 12]),
    ]

    @Test(arguments: cases)
    func firesExactlyWhereTheContractSays(_ c: Case) {
        #expect(firing(c.z, threshold: c.threshold, refractory: c.refractory, gapsBefore: c.gaps)
                == c.expected)
    }

    @Test func hitCarriesIndexTimeStrengthAndVelocity() {
        var detector = SquaredDeltaDetector()
        #expect(detector.process(z: 1.0, time: 0.5) == nil)
        let hit = detector.process(z: 2.5, time: 0.504)
        #expect(hit == Hit(index: 1, time: 0.504, strength: 2.25,
                           velocity: VelocityCurve().velocity(amplitude: 1.5,
                                                              thresholdAmplitude: 0.4.squareRoot())))
        #expect(detector.sampleCount == 2)
    }

    @Test func streamingAndBatchAgree() {
        var z: [Double] = []
        var state: UInt64 = 12345
        for _ in 0..<5000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            z.append(Double(state >> 11) / Double(1 << 53) * 2)
        }
        let times = z.indices.map { Double($0) * 0.004 }
        var streaming = SquaredDeltaDetector()
        var expected: [Hit] = []
        for (i, value) in z.enumerated() {
            if i == 2500 { streaming.markGap() }
            if let hit = streaming.process(z: value, time: times[i]) { expected.append(hit) }
        }
        var batch = SquaredDeltaDetector()
        let hits = batch.detect(z: z, time: times, gapsBefore: [2500])
        #expect(hits == expected)
        #expect(hits.count > 10)
    }

    @Test func batchOverChunksMatchesOneBatch() {
        let z = (0..<1000).map { i in i % 37 == 0 ? 2.0 : Double(i % 3) * 0.1 }
        let t = z.indices.map { Double($0) }
        var whole = SquaredDeltaDetector()
        let all = whole.detect(z: z, time: t)
        var chunked = SquaredDeltaDetector()
        var pieces: [Hit] = []
        for start in stride(from: 0, to: 1000, by: 7) {
            let end = min(start + 7, 1000)
            pieces += chunked.detect(z: Array(z[start..<end]), time: Array(t[start..<end]))
        }
        #expect(pieces == all)
        #expect(all.map(\.index).allSatisfy { z[$0] == 2.0 || z[$0 - 1] == 2.0 })
    }
}

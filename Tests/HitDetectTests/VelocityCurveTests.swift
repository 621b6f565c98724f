import Testing
@testable import HitDetect

struct VelocityCurveTests {
    @Test(arguments: [
        (amplitude: 0.5, expected: 0.1),    // at the threshold: the floor
        (amplitude: 0.3, expected: 0.1),    // below it (never happens for a hit): clamped
        (amplitude: 1.25, expected: 0.55),  // halfway: floor + 0.9 × 0.5
        (amplitude: 2.0, expected: 1.0),    // full scale
        (amplitude: 9.0, expected: 1.0),    // beyond: clamped
    ])
    func mapsAmplitudeLinearlyBetweenFloorAndFullScale(amplitude: Double, expected: Double) {
        let curve = VelocityCurve(floor: 0.1, fullScale: 2.0)
        #expect(abs(curve.velocity(amplitude: amplitude, thresholdAmplitude: 0.5) - expected) < 1e-12)
    }

    @Test func isMonotonicAndWithinRange() {
        let curve = VelocityCurve(floor: 0.2, fullScale: 1.5)
        var last = -1.0
        for step in 0...1000 {
            let v = curve.velocity(amplitude: Double(step) * 0.003, thresholdAmplitude: 0.6)
            #expect(v >= last && v >= 0 && v <= 1)
            last = v
        }
    }

    @Test func harderDetectedHitsGetHigherVelocity() {
        var detector = SquaredDeltaDetector()
        let hits = detector.detect(z: [0, 0.8] + Array(repeating: 0.8, count: 11) + [2.3],
                                   time: Array(repeating: 0, count: 14).enumerated().map { Double($0.offset) })
        #expect(hits.count == 2)
        #expect(hits[0].velocity < hits[1].velocity)
    }

    @Test func thresholdAboveFullScaleGivesFullVelocity() {
        #expect(VelocityCurve(floor: 0.1, fullScale: 0.5).velocity(amplitude: 1, thresholdAmplitude: 0.7) == 1)
    }
}

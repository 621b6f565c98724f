import Testing
@testable import HitDetect

struct VelocityCurveTests {
    @Test(arguments: [
        (amplitude: 0.5, expected: 0.1),    // at the threshold: the floor
        (amplitude: 0.3, expected: 0.1),    // below it (never happens for a hit): clamped
        (amplitude: 1.25, expected: 0.525), // halfway: floor + (0.95 − floor) × 0.5
        (amplitude: 2.0, expected: 0.95),   // full scale: 1 − the headroom (0.05)
        (amplitude: 3.5, expected: 0.975),  // twice as far past the threshold: 1 − 0.05 / 2
        (amplitude: 9.0, expected: 1 - 0.05 / (8.5 / 1.5)),  // beyond: towards 1
    ])
    func mapsAmplitudeLinearlyBetweenFloorAndFullScale(amplitude: Double, expected: Double) {
        let curve = VelocityCurve(floor: 0.1, fullScale: 2.0)
        #expect(abs(curve.velocity(amplitude: amplitude, thresholdAmplitude: 0.5) - expected) < 1e-12)
    }

    /// Without headroom the curve is the straight line from the floor to 1 at full scale, and
    /// every jump past it plays at 1.
    @Test(arguments: [(amplitude: 1.25, expected: 0.55), (amplitude: 2.0, expected: 1.0), (amplitude: 9.0, expected: 1.0)])
    func withoutHeadroomJumpsPastFullScaleAllPlayAtOne(amplitude: Double, expected: Double) {
        let curve = VelocityCurve(floor: 0.1, fullScale: 2.0, headroom: 0)
        #expect(abs(curve.velocity(amplitude: amplitude, thresholdAmplitude: 0.5) - expected) < 1e-12)
    }

    /// Jumps past full scale keep their order, each under 1: loud strikes read past it are not a
    /// tie. A floor near 1 keeps half of what lies above it as headroom (set at once or later),
    /// so the line from the floor still rises.
    @Test func jumpsPastFullScaleKeepTheirOrderUnderOne() {
        let curve = VelocityCurve(floor: 0.1, fullScale: 3.0)
        let velocities = [3.5, 4.5, 6.0, 9.0, 14.0].map { curve.velocity(amplitude: $0, thresholdAmplitude: 0.11) }
        #expect(zip(velocities, velocities.dropFirst()).allSatisfy { $0 < $1 } && velocities.allSatisfy { $0 > 0.95 && $0 < 1 },
                "\(velocities)")
        var loudFloor = VelocityCurve(floor: 0.98, fullScale: 2.0)
        #expect(loudFloor.velocity(amplitude: 0.5, thresholdAmplitude: 0.5) == 0.98)
        #expect(abs(loudFloor.velocity(amplitude: 2.0, thresholdAmplitude: 0.5) - 0.99) < 1e-12)
        #expect(loudFloor.velocity(amplitude: 3.5, thresholdAmplitude: 0.5) > 0.99)
        loudFloor.floor = 0.96
        #expect(loudFloor.velocity(amplitude: 1.25, thresholdAmplitude: 0.5) > 0.96
                && loudFloor.velocity(amplitude: 2.0, thresholdAmplitude: 0.5) < loudFloor.velocity(amplitude: 2.5, thresholdAmplitude: 0.5))
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

/// The curve shapes: the same ends (the floor, and 1 − the headroom at full scale), monotonic,
/// soft above linear above hard in between.
struct VelocityCurveShapeTests {
    @Test(arguments: VelocityCurve.Shape.allCases)
    func everyShapeKeepsTheEndsAndNeverPlaysAHarderStrikeSofter(shape: VelocityCurve.Shape) {
        let curve = VelocityCurve(floor: 0.1, fullScale: 2.0, shape: shape)
        #expect(curve.velocity(amplitude: 0.5, thresholdAmplitude: 0.5) == 0.1)
        #expect(abs(curve.velocity(amplitude: 2.0, thresholdAmplitude: 0.5) - 0.95) < 1e-12)
        let amplitudes = stride(from: 0.5, through: 2.5, by: 0.01).map { $0 }
        let velocities = amplitudes.map { curve.velocity(amplitude: $0, thresholdAmplitude: 0.5) }
        #expect(zip(velocities, velocities.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func softLiftsAndHardLowersTheMiddle() {
        func velocity(_ shape: VelocityCurve.Shape) -> Double {
            VelocityCurve(floor: 0, fullScale: 1.5, shape: shape, headroom: 0).velocity(amplitude: 0.75, thresholdAmplitude: 0.5)
        }
        // Position 0.25: √0.25 = 0.5, 0.25, 0.25² = 0.0625.
        #expect(abs(velocity(.soft) - 0.5) < 1e-12)
        #expect(abs(velocity(.linear) - 0.25) < 1e-12)
        #expect(abs(velocity(.hard) - 0.0625) < 1e-12)
    }
}

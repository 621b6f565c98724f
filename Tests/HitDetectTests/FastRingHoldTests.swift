import HitDetect
import Testing

/// The ring hold at 500 Hz and faster (`AdaptiveDetector.Configuration.fastRingHold`): a mount
/// that rings longer than the re-arm decays does not fire after the mask, and the pad's soft
/// strokes struck in its ringing still do.
struct FastRingHoldTests {
    /// Hits on `signal` with the hold at fast rates on or off.
    static func hits(_ signal: (z: [Double], t: [Double]), fastRingHold: Bool = true) -> [Hit] {
        var configuration = AdaptiveDetector.Configuration()
        configuration.fastRingHold = fastRingHold
        var adaptive = AdaptiveDetector(configuration)
        return adaptive.detect(z: signal.z, time: signal.t)
    }

    /// Accents of 8 g every 0.6 s at 1.6 kHz on a mount ringing at 40-90 Hz for 80-150 ms
    /// (its swing 0.6 of the accent at first; the independent ADXL345 stand of seed 8 rang at
    /// 64 Hz over 124 ms): each fires once. Without the hold each swing over the decayed re-arm
    /// fired once the mask ended, every 45-50 ms (23-30 hits for the 6 accents).
    @Test(arguments: [(64.0, 124.0), (64.0, 80.0), (40.0, 124.0), (90.0, 124.0), (50.0, 150.0)])
    func aMountRingingLongerThanTheReArmFiresOnceAt1600Hz(mountHz: Double, mountMs: Double) {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 8.0) }
        let signal = AdaptiveDetectorTests.strikes(accents, seconds: 4.2, mountHz: mountHz, mountMs: mountMs)
        let held = Self.hits(signal)
        #expect(held.count == accents.count, "\(held.map(\.time))")
        #expect(accents.allSatisfy { a in held.contains { abs($0.time - a.onset) < 0.002 } }, "\(held.map(\.time))")
        let unheld = Self.hits(signal, fastRingHold: false)
        #expect(unheld.count >= 3 * accents.count, "without the hold: \(unheld.map(\.time))")
    }

    /// In that ringing (64 Hz over 124 ms) a soft stroke of 1.5 g, 150, 200 or 300 ms after each
    /// accent, rises over the held ringing and fires, once; without the hold the ringing's own
    /// hits masked it there until 300 ms.
    @Test(arguments: [0.15, 0.2, 0.3])
    func aSoftStrokeInALongRingingFiresAt1600Hz(lag: Double) {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 8.0) }
        let soft = accents.map { (onset: $0.onset + lag, amplitude: 1.5) }
        let signal = AdaptiveDetectorTests.strikes(accents + soft, seconds: 4.2, mountHz: 64, mountMs: 124)
        let held = Self.hits(signal)
        #expect(held.count == accents.count + soft.count, "lag \(lag): \(held.map(\.time))")
        #expect(soft.allSatisfy { s in held.contains { abs($0.time - s.onset) < 0.002 } }, "lag \(lag): \(held.map(\.time))")
    }
}

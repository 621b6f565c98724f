import HitDetect
import Testing

/// The ring hold at 500 Hz and faster (`AdaptiveDetector.Configuration.fastRingHold`): a mount
/// that rings longer than the re-arm decays does not fire after the mask, and the pad's strokes
/// struck in its ringing still do.
struct FastRingHoldTests {
    /// z at 1.6 kHz for `seconds` as `AdaptiveDetectorTests.strikes` makes it, each strike rung
    /// out (not cut off at 200 ms).
    static func signal(_ strikes: [(onset: Double, amplitude: Double)], seconds: Double, mountHz: Double,
                       mountMs: Double) -> (z: [Double], t: [Double]) {
        AdaptiveDetectorTests.strikes(strikes, seconds: seconds, mountHz: mountHz, mountMs: mountMs, lasting: .infinity)
    }

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
    /// fired once the mask ended, every 45-50 ms (18-36 hits for the 6 accents).
    @Test(arguments: [(64.0, 124.0), (64.0, 80.0), (40.0, 124.0), (90.0, 124.0), (50.0, 150.0)])
    func aMountRingingLongerThanTheReArmFiresOnceAt1600Hz(mountHz: Double, mountMs: Double) {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 8.0) }
        let signal = Self.signal(accents, seconds: 4.2, mountHz: mountHz, mountMs: mountMs)
        let held = Self.hits(signal)
        #expect(held.count == accents.count, "\(held.map(\.time))")
        #expect(accents.allSatisfy { a in held.contains { abs($0.time - a.onset) < 0.002 } }, "\(held.map(\.time))")
        let unheld = Self.hits(signal, fastRingHold: false)
        #expect(unheld.count >= 18, "without the hold: \(unheld.map(\.time))")
    }

    /// In that ringing (64 Hz over 124 ms) a stroke of 3 g struck 125-300 ms after each accent,
    /// every 5 ms (so at every phase of the ringing), fires within the replay's 10 ms, and
    /// nothing else does; without the hold the ringing fires too. (A stroke of 2 g fires from
    /// 135 ms on; one of 1.5 g is lost where it meets the ringing's swing the wrong way, at 5
    /// of 41 lags from 100 to 300 ms.)
    @Test func aStrokeInALongRingingFiresAt1600Hz() {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 8.0) }
        for lag in stride(from: 0.125, through: 0.3, by: 0.005) {
            let strokes = accents.map { (onset: $0.onset + lag, amplitude: 3.0) }
            let signal = Self.signal(accents + strokes, seconds: 4.2, mountHz: 64, mountMs: 124)
            let held = Self.hits(signal)
            #expect(held.count == accents.count + strokes.count, "lag \(lag): \(held.map(\.time))")
            #expect(strokes.allSatisfy { s in held.contains { abs($0.time - s.onset) < 0.01 } }, "lag \(lag): \(held.map(\.time))")
            #expect(Self.hits(signal, fastRingHold: false).count > held.count, "lag \(lag)")
        }
    }
}

import Foundation
import HitDetect
import Testing

/// The adaptive detector on the sensors that defeat the default one (issue 3): a 1.6 kHz part
/// whose board rings after each strike, a 100 Hz stream playing a fast roll, and idle noise.
struct AdaptiveDetectorTests {
    /// A deterministic generator (xorshift), so the tests are the same on every run.
    struct Noise {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(state % 2_000_001) / 1_000_000 - 1  // −1...1
        }
    }

    /// z at `rate` Hz for `seconds`: 1 g of gravity, noise of `noise` g, and for each strike a
    /// shock of its amplitude followed by ringing at `ringHz` decaying over `ringMs`.
    static func signal(rate: Double, seconds: Double, strikes: [(time: Double, amplitude: Double)],
                       noise: Double = 0.01, ringHz: Double = 300, ringMs: Double = 30) -> (z: [Double], t: [Double]) {
        var random = Noise()
        var z: [Double] = [], t: [Double] = []
        let count = Int(seconds * rate)
        for i in 0..<count {
            let time = Double(i) / rate
            var value = 1.0 + noise * random.next()
            for strike in strikes where time >= strike.time {
                let age = time - strike.time
                if age < 0.2 {
                    value += strike.amplitude * exp(-age * 1000 / ringMs) * cos(2 * .pi * ringHz * age)
                }
            }
            z.append(value)
            t.append(time)
        }
        return (z, t)
    }

    static func hits<D: HitDetector>(_ detector: inout D, _ signal: (z: [Double], t: [Double])) -> [Hit] {
        detector.detect(z: signal.z, time: signal.t)
    }

    @Test func aRingingStrikeAt1600HzFiresOnce() {
        let strikes = (0..<10).map { (time: 0.5 + Double($0) * 0.4, amplitude: 3.0) }
        let signal = Self.signal(rate: 1600, seconds: 4.5, strikes: strikes)
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, signal)
        #expect(found.count == 10)
        for (hit, strike) in zip(found, strikes) { #expect(abs(hit.time - strike.time) < 0.002) }
        // The default detector's 10 samples (6 ms) of refractory cannot hold the ringing.
        var squared = SquaredDeltaDetector()
        #expect(Self.hits(&squared, signal).count > 10)
    }

    @Test func aSixteenStrokeRollAt100HzIsFoundWhole() {
        let strikes = (0..<32).map { (time: 0.5 + Double($0) / 16, amplitude: 1.5) }
        // A 100 Hz stream's own low-pass smooths each stroke over about a sample period.
        let signal = Self.signal(rate: 100, seconds: 3, strikes: strikes, ringHz: 8, ringMs: 15)
        var adaptive = AdaptiveDetector()
        #expect(Self.hits(&adaptive, signal).count == 32)
        // The default detector's 10 samples are 100 ms at 100 Hz: it drops strokes of the roll.
        var squared = SquaredDeltaDetector()
        #expect(Self.hits(&squared, signal).count < 32)
    }

    @Test(arguments: [0.005, 0.02, 0.05])
    func idleNoiseNeverFires(noise: Double) {
        let signal = Self.signal(rate: 250, seconds: 20, strikes: [], noise: noise)
        var adaptive = AdaptiveDetector()
        #expect(Self.hits(&adaptive, signal).isEmpty)
    }

    @Test func velocityFollowsStrikeStrength() {
        let amplitudes = [0.4, 0.8, 1.2, 1.6, 2.0, 2.5]
        let strikes = amplitudes.enumerated().map { (time: 0.5 + Double($0.offset) * 0.5, amplitude: $0.element) }
        let signal = Self.signal(rate: 1600, seconds: 4, strikes: strikes)
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, signal)
        #expect(found.count == amplitudes.count)
        let velocities = found.map(\.velocity)
        #expect(zip(velocities, velocities.dropFirst()).allSatisfy { $0 < $1 }, "\(velocities)")
    }

    @Test func aGapPrimesInsteadOfFiringOnTheJump() {
        var adaptive = AdaptiveDetector()
        for i in 0..<500 { _ = adaptive.process(z: 1, time: Double(i) / 250) }
        adaptive.markGap()
        // The sensor comes back tilted: a different resting value is not a strike.
        for i in 500..<1000 { #expect(adaptive.process(z: 0.2, time: Double(i) / 250) == nil) }
    }
}

import Foundation
import HitDetect
import Testing
import TestSupport

/// The adaptive detector on the sensors that defeat the default one (issue 3): a 1.6 kHz part
/// whose board rings after each strike, a 100 Hz stream playing a fast roll, and idle noise.
struct AdaptiveDetectorTests {
    /// A deterministic generator (xorshift), so the tests are the same on every run.
    typealias Noise = TestSupport.Noise

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

    /// A flam across two pads on one stand: the grace note's crosstalk fires this pad weakly,
    /// and its own strike follows 15-40 ms later, inside the mask. The strike, far stronger than
    /// the weak hit, breaks through; with the mask absolute (`breakFactor` 0) it is lost.
    @Test(arguments: [250.0, 1600.0])
    func aStrikeInsideTheMaskOfAWeakHitBreaksThrough(rate: Double) {
        for gap in [0.018, 0.03, 0.04] {
            let strikes = [(time: 0.5, amplitude: 0.35), (time: 0.5 + gap, amplitude: 5.0), (time: 1.0, amplitude: 0.35)]
            let signal = Self.signal(rate: rate, seconds: 1.5, strikes: strikes, ringMs: 8)
            var adaptive = AdaptiveDetector()
            let found = Self.hits(&adaptive, signal)
            #expect(found.count == 3, "\(rate) Hz, gap \(gap): \(found.map(\.time))")
            #expect(found.contains { abs($0.time - strikes[1].time) <= 1.5 / rate + 0.001 && $0.strength > 3 },
                    "\(rate) Hz, gap \(gap): \(found.map { ($0.time, $0.strength) })")
            var absolute = AdaptiveDetector.Configuration()
            absolute.breakFactor = 0
            absolute.fastBreakFactor = 0
            var masked = AdaptiveDetector(absolute)
            #expect(Self.hits(&masked, signal).count == 2, "\(rate) Hz, gap \(gap)")
        }
    }

    /// Under 500 Hz a hit's mask still asks 4 × its peak of a new strike (`breakFactor`): only a
    /// felt push's mask is broken at 2.5 × (`feltBreakFactor`, `FeltPushTests`). A strike of 4 g
    /// 30 ms after one of 1 g stays masked; asked 2.5 ×, it breaks through.
    @Test(arguments: [200.0, 250.0])
    func aHitsMaskStillAsksFourTimesItsPeak(rate: Double) {
        let strikes = [(time: 0.5, amplitude: 1.0), (time: 0.53, amplitude: 4.0)]
        let signal = Self.signal(rate: rate, seconds: 1.0, strikes: strikes, ringMs: 8)
        var adaptive = AdaptiveDetector()
        #expect(Self.hits(&adaptive, signal).count == 1, "\(rate) Hz")
        var lower = AdaptiveDetector.Configuration()
        lower.breakFactor = 2.5
        var broken = AdaptiveDetector(lower)
        #expect(Self.hits(&broken, signal).count == 2, "\(rate) Hz, 2.5 ×")
    }

    /// At 1.6 kHz, a cymbal on the pad's stand bumps it with a smooth push of 4-10 ms, up to
    /// 1 g: it does not fire. Ghost notes of 1.2 g, a stick's shock of 2 ms, do.
    @Test func aBumpFromTheStandDoesNotFireWhereAGhostNoteDoes() {
        let rate = 1600.0
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        let bumps: [(time: Double, peak: Double, width: Double)] = (0..<8).map { k in
            let n = Double(k)
            return (0.5 + n * 0.5, 0.3 + n * 0.1, 0.004 + Double(k % 4) * 0.002)
        }
        let ghosts = (0..<8).map { 0.75 + Double($0) * 0.5 }
        for i in 0..<Int(4.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.008 * random.next()
            for bump in bumps where time >= bump.time && time < bump.time + bump.width {
                let phase: Double = 2 * Double.pi * (time - bump.time) / bump.width
                value -= bump.peak * 0.5 * (1 - cos(phase))  // a Hann push
            }
            for onset in ghosts where time >= onset && time < onset + 0.002 {
                let phase: Double = Double.pi * (time - onset) / 0.002
                value -= 1.2 * sin(phase)  // a 2 ms shock
            }
            z.append(value)
            t.append(time)
        }
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == ghosts.count, "\(found.map(\.time))")
        for (hit, onset) in zip(found, ghosts) { #expect(abs(hit.time - onset) < 0.002) }
        var off = AdaptiveDetector.Configuration()
        off.sharpness = 0
        var untested = AdaptiveDetector(off)
        #expect(Self.hits(&untested, (z, t)).count > ghosts.count)  // without the test, bumps fire
    }

    /// At 1.6 kHz a rise as smooth as a bump's but of 1.2 g or more is a strike: bumps from the
    /// stand reach about 1 g, and a stick's contact of 3 ms or more behind the sensor's low-pass
    /// rises as smoothly (a second simulator's 1.6 kHz snares lost about seven strokes in ten to the
    /// bump test). Each of these 6 ms Hann rises fires, from 1.3 to 8 g.
    @Test func aSmoothRiseOfAStrikesStrengthFiresAt1600Hz() {
        let rate = 1600.0
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        let rises: [(time: Double, peak: Double)] = [(0.5, 1.3), (1.0, 2.0), (1.5, 4.0), (2.0, 8.0)]
        for i in 0..<Int(2.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.008 * random.next()
            for rise in rises where time >= rise.time && time < rise.time + 0.006 {
                value -= rise.peak * 0.5 * (1 - cos(2 * Double.pi * (time - rise.time) / 0.006))
            }
            z.append(value)
            t.append(time)
        }
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == rises.count, "\(found.map(\.time))")
        for rise in rises {
            #expect(found.contains { abs($0.time - rise.time) < 0.004 && $0.strength > 0.9 * rise.peak }, "the rise at \(rise.time) s")
        }
    }

    /// At 1.6 kHz a push the bump test turned away masks nothing: a neighbour's loud strike
    /// reaches the pad first as a smooth push, and the pad's own strike of a unison or a flam
    /// follows 6-30 ms later. Masked as a hit, the strike was lost (on the simulated stands'
    /// fresh seed 21, five racktom strikes behind a 10-13 g snare).
    @Test func aStrikeBehindAPushTheBumpTestTurnedAwayFires() {
        let rate = 1600.0
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        let gaps = [0.006, 0.01, 0.02, 0.03]
        let pushes = gaps.indices.map { 0.5 + Double($0) * 0.5 }
        for i in 0..<Int(2.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.008 * random.next()
            for (push, gap) in zip(pushes, gaps) {
                if time >= push && time < push + 0.006 {
                    value -= 0.6 * 0.5 * (1 - cos(2 * Double.pi * (time - push) / 0.006))  // a 6 ms Hann push
                }
                let onset = push + gap
                if time >= onset && time < onset + 0.002 { value -= 2.6 * sin(Double.pi * (time - onset) / 0.002) }
            }
            z.append(value)
            t.append(time)
        }
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == gaps.count, "\(found.map(\.time))")
        for (push, gap) in zip(pushes, gaps) {
            #expect(found.contains { abs($0.time - (push + gap)) < 0.002 && $0.strength > 2 }, "strike \(gap) s after a push")
        }
    }

    /// z at 1.6 kHz: gravity, noise, and for each event a smooth push (a Hann dip of `push` g
    /// over 3 ms: a neighbour's crosstalk) followed `gap` s later by a stick's 2 ms shock of
    /// `strike` g; returns the log and the shocks' times.
    static func crosstalkThenStroke(_ events: [(push: Double, gap: Double, strike: Double)]) -> (log: (z: [Double], t: [Double]), strikes: [Double]) {
        let rate = 1600.0
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        let starts = events.indices.map { 0.5 + Double($0) * 0.4 }
        for i in 0..<Int((0.6 + Double(events.count) * 0.4) * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.008 * random.next()
            for (start, event) in zip(starts, events) {
                if time >= start && time < start + 0.003 {
                    value -= event.push * 0.5 * (1 - cos(2 * Double.pi * (time - start) / 0.003))
                }
                let onset = start + event.gap
                if time >= onset && time < onset + 0.002 { value -= event.strike * sin(Double.pi * (time - onset) / 0.002) }
            }
            z.append(value)
            t.append(time)
        }
        return ((z, t), zip(starts, events).map { $0 + $1.gap })
    }

    /// At 1.6 kHz a racktom struck 2-4 ms after a ride stroke feels the ride's crosstalk first:
    /// the scan begins on it, and the stroke arrives within the scan. The rescan dates the hit
    /// at the stroke and measures it whole; without it (`rescan` false) the hit was dated at the
    /// crosstalk and read at part of the stroke, and the brain took it for the ride's crosstalk
    /// (the simulated ride-kit stands: 77 of 115 misses at 1.6 kHz).
    @Test func aStrokeArrivingBehindCrosstalkWithinTheScanIsDatedAndMeasuredThere() {
        let events: [(push: Double, gap: Double, strike: Double)] = [(0.25, 0.0025, 2.5), (0.3, 0.003, 3.0), (0.2, 0.0035, 2.0), (0.35, 0.004, 4.0)]
        let (log, strikes) = Self.crosstalkThenStroke(events)
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, log)
        #expect(found.count == strikes.count, "\(found.map(\.time))")
        for (strike, event) in zip(strikes, events) {
            #expect(found.contains { abs($0.time - strike) < 0.001 && $0.strength > 0.8 * event.strike },
                    "stroke \(event.gap * 1000) ms after the crosstalk: \(found.map { ($0.time - strike, $0.strength) })")
        }
        // Each hit's index is its time's sample.
        for hit in found { #expect(abs(log.t[hit.index] - hit.time) < 1e-9, "\(hit.index): \(log.t[hit.index]) vs \(hit.time)") }
        var off = AdaptiveDetector.Configuration()
        off.rescan = false
        var unscanned = AdaptiveDetector(off)
        let early = Self.hits(&unscanned, log)
        let missed = zip(strikes, events).filter { strike, event in
            !early.contains { hit in abs(hit.time - strike) < 0.001 && hit.strength > 0.8 * event.strike }
        }
        #expect(!missed.isEmpty, "without the rescan: \(early.map { ($0.time, $0.strength) })")
    }

    /// z at 1.6 kHz for `seconds`: gravity, noise, and a stick's 2 ms shock of `amplitude` g at
    /// each `onset`.
    static func shocksAt1600Hz(_ shocks: [(onset: Double, amplitude: Double)], seconds: Double) -> (z: [Double], t: [Double]) {
        strikes(shocks, seconds: seconds, ringing: false)
    }

    /// At 1.6 kHz a weak hit's peak is sampled closely, so a strike of twice it, inside its mask,
    /// is a new strike, not its ringing: the racktom struck 5-10 ms after a ride stroke, first
    /// fired by the ride's crosstalk, plays. At `breakFactor` (4), as at slow rates, it was lost;
    /// a shock of 1.5 times the weak one stays masked.
    @Test func aStrikeOfTwiceAWeakHitsPeakBreaksThroughAt1600Hz() {
        // Each pair: a weak sharp hit, then a stronger strike 6 or 10 ms later.
        let shocks: [(onset: Double, amplitude: Double)] = [(0.5, 0.9), (0.506, 2.2), (1.0, 1.0), (1.01, 2.6)]
        let (z, t) = Self.shocksAt1600Hz(shocks, seconds: 1.5)
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == 4, "\(found.map(\.time))")
        for shock in shocks {
            #expect(found.contains { abs($0.time - shock.onset) < 0.002 }, "\(shock.onset): \(found.map(\.time))")
        }
        var slow = AdaptiveDetector.Configuration()
        slow.fastBreakFactor = slow.breakFactor
        var masked = AdaptiveDetector(slow)
        #expect(Self.hits(&masked, (z, t)).count == 2)
        // Under twice the weak hit's peak, a second shock inside the mask stays masked.
        let (under, underTimes) = Self.shocksAt1600Hz([(0.5, 1.0), (0.51, 1.5)], seconds: 1.0)
        var plain = AdaptiveDetector()
        #expect(Self.hits(&plain, (under, underTimes)).count == 1)
    }

    /// z at `rate` (default 1.6 kHz) for `seconds`, each strike as the corpus shapes one: a 2 ms half-sine
    /// shock of its amplitude, then (with `ringing`) the board ringing at 300 Hz (half of it, τ
    /// 12 ms) and the pad rocking on its mount at `mountHz` (0.6 of it, τ `mountMs`), each cut
    /// off `lasting` s after the strike.
    static func strikes(_ strikes: [(onset: Double, amplitude: Double)], seconds: Double, rate: Double = 1600,
                                mountHz: Double = 40, mountMs: Double = 25, ringing: Bool = true,
                                lasting: Double = 0.2) -> (z: [Double], t: [Double]) {
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        for i in 0..<Int(seconds * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.008 * random.next()
            for strike in strikes where time >= strike.onset && time < strike.onset + lasting {
                let age = time - strike.onset
                if age < 0.002 {
                    value -= strike.amplitude * sin(.pi * age / 0.002)
                } else if ringing {
                    let ring = age - 0.002
                    value += strike.amplitude * (0.5 * exp(-ring / 0.012) * sin(2 * .pi * 300 * ring)
                                                 + 0.6 * exp(-ring * 1000 / mountMs) * sin(2 * .pi * mountHz * ring))
                }
            }
            z.append(value)
            t.append(time)
        }
        return (z, t)
    }

    /// At 1.6 kHz an accent is read nearly whole, and its re-arm (12 g, decaying over 40 ms) is
    /// still 1.6 g 80 ms on, where a ghost note a 16th after it comes at 190 BPM; its ringing by
    /// then is a few tenths of a g. The ghost rises to twice that ringing and passes (the ring
    /// rise, `ringRiseFactor`); without the rule each ghost is lost.
    @Test func aGhostNoteASixteenthAfterAnAccentRisesOverItsRingingAt1600Hz() {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 12.0) }
        let ghosts = accents.map { (onset: $0.onset + 0.08, amplitude: 1.5) }
        let signal = Self.strikes(accents + ghosts, seconds: 4.2)
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, signal)
        #expect(found.count == 12, "\(found.map(\.time))")
        for ghost in ghosts {
            #expect(found.contains { abs($0.time - ghost.onset) < 0.002 && $0.strength < 3 }, "\(ghost.onset): \(found.map(\.time))")
        }
        var without = AdaptiveDetector.Configuration()
        without.ringRiseFactor = 0
        var old = AdaptiveDetector(without)
        #expect(Self.hits(&old, signal).count == accents.count)
    }

    /// The ring rise lets nothing of the accents' own ringing by: mounts from 25 to 60 Hz ringing
    /// over up to 45 ms fire as often with it as without it (once per accent), at 1.6 kHz and at
    /// 500 Hz (whose periods, rounded, fall on both sides of the fast rates' 2 ms: the window is
    /// kept at every rate). The bump test turns most such swings away; with it off, the window
    /// alone must hold them (one of 5 ms, not 15-20, let dozens by).
    @Test(arguments: [1600.0, 500.0])
    func theRingRiseLetsNoRingingBy(rate: Double) {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 12.0) }
        for (mountHz, mountMs) in [(25.0, 30.0), (30.0, 45.0), (40.0, 30.0), (50.0, 45.0), (60.0, 45.0), (60.0, 30.0)] {
            let signal = Self.strikes(accents, seconds: 4.2, rate: rate, mountHz: mountHz, mountMs: mountMs)
            var with = AdaptiveDetector()
            #expect(Self.hits(&with, signal).count == accents.count, "\(rate) Hz, mount \(mountHz) Hz over \(mountMs) ms")
            var unsharp = AdaptiveDetector.Configuration()
            unsharp.sharpness = 0
            var noRise = unsharp
            noRise.ringRiseFactor = 0
            var a = AdaptiveDetector(unsharp), b = AdaptiveDetector(noRise)
            #expect(Self.hits(&a, signal).count == Self.hits(&b, signal).count,
                    "\(rate) Hz, mount \(mountHz) Hz over \(mountMs) ms, no bump test")
        }
    }

    /// At 100 Hz a pad's mount (30–60 Hz, behind the sensor's 45 Hz low-pass) rings near the
    /// Nyquist frequency. This strike is the corpus's (phone groove, seed 4, 3.3 g): after the
    /// 45 ms mask its samples still swing 0.11–0.18 g, flipping sign each sample, and the one 60 ms
    /// after the strike crossed. Each carries on the sample before (h[n] ≈ −0.7 h[n−1]), so it is
    /// the ringing, not a strike, and one strike is one hit.
    @Test func ringingThatCarriesOnPastTheMaskAt100HzDoesNotFire() {
        let (z, t, _) = SlowRateOnsetTests.strikesAt100Hz(
            shape: [-0.228, 0.296, -0.016, -0.144, 0.180, -0.162, 0.113, -0.065, 0.022, -0.003], noise: 0.002)
        var adaptive = AdaptiveDetector()
        #expect(Self.hits(&adaptive, (z, t)).map(\.index) == (0..<12).map { 20 + 50 * $0 })
    }

    /// A neighbour's strike rings a 200 Hz pad's stand (here at 90 Hz, decaying over 60 ms,
    /// 0.35 g at first) longer than the re-arm decays: past the mask its swings still cross, each
    /// about as high as the one before. The ring hold takes them for what they are, where the
    /// pad's own soft strikes fire: one struck 70 ms into such a ringing (at 0.4 g, three times
    /// the ringing then: the learned ringing keeps it at any hold), and one of 0.25 g 110 ms into
    /// another (a hold that did not decay would lose it). All of it judged with the rebound
    /// test's stricter share until a loud hit off, which changes what the holds weigh: as
    /// shipped, the 0.25 g tap comes before any loud hit, reads under 0.3 g, and is felt, while
    /// the 0.4 g one plays (asserted last: the share's cost, `QuietPushTests`).
    @Test func aStandRingingLongerThanTheReArmFiresNoMoreThanOnceAt200Hz() {
        let rate = 200.0
        let rings = [0.5, 1.5, 2.5]
        let strikes = [(time: 1.61, amplitude: 0.25), (time: 2.57, amplitude: 0.4)]
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        for i in 0..<Int(3.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.005 * random.next()
            for onset in rings where time >= onset && time < onset + 0.4 {
                let age = time - onset
                value += 0.35 * exp(-age / 0.060) * sin(2 * .pi * 90 * age)
            }
            for strike in strikes where time >= strike.time && time < strike.time + 0.2 {
                // a soft stroke as a 200 Hz sensor sees it, then its mount
                value += strike.amplitude * exp(-(time - strike.time) / 0.020) * cos(2 * .pi * 45 * (time - strike.time))
            }
            z.append(value)
            t.append(time)
        }
        // Judged without the rebound test's stricter share until a loud hit (`reboundUntilLoud`):
        // with it the 0.25 g tap is felt, and the stand's late swings with the hold off do not fire.
        func hits(ringHold: Double, ms: Double = AdaptiveDetector.Configuration().ringHoldMs, twoModes: Bool = true) -> [Double] {
            var configuration = AdaptiveDetector.Configuration()
            configuration.reboundUntilLoud = 0
            configuration.ringHold = ringHold
            configuration.ringHoldMs = ms
            configuration.learnsTwoModes = twoModes
            var adaptive = AdaptiveDetector(configuration)
            return Self.hits(&adaptive, (z, t)).map(\.time)
        }
        let tolerance = 0.0125  // replay's: 2.5 sample periods
        func found(_ strike: Double, in hits: [Double]) -> Bool { hits.contains { abs($0 - strike) <= tolerance } }
        let late = { (hits: [Double]) in
            hits.filter { time in rings.contains { time > $0 + 0.04 && time < $0 + 0.4 } && !strikes.contains { abs(time - $0.time) <= tolerance } }
        }
        #expect(!late(hits(ringHold: 0)).isEmpty, "without the hold the ringing fires past the mask")
        let held = hits(ringHold: AdaptiveDetector.Configuration().ringHold)
        #expect(late(held).isEmpty, "\(held)")
        #expect(strikes.allSatisfy { found($0.time, in: held) }, "the strikes fire: \(held)")
        // (The ringing is learned from the first window of the stand's ringing, after 0.5 s
        // (`MountRinging.windowsNeeded`), and the 0.4 g stroke then plays at any hold: even at 10,
        // with the one mode only, and without `ringHoldShockFactor`'s exception too. Learned from
        // three windows, a hold of 4 lost it. Which rule now lets it by at such holds is not
        // pinned here; the hold's need is judged above with the hold off.)
        #expect(found(2.57, in: hits(ringHold: 10, twoModes: false)), "a hold of 10, one mode")
        #expect(!found(1.61, in: hits(ringHold: AdaptiveDetector.Configuration().ringHold, ms: 1000)), "a hold that did not decay would lose the second")
        var shipped = AdaptiveDetector()
        let played = Self.hits(&shipped, (z, t)).map(\.time)
        #expect(!found(1.61, in: played) && found(2.57, in: played), "as shipped, the 0.25 g tap is felt: \(played)")
    }

    /// A neighbour's strike sets a 100 Hz pad's stand swaying (here at 21 Hz, dying away over
    /// 0.23 s, 0.2 g at first, as on the independent corpus's phone stand of seed 5), and past
    /// the brain's window for the crosstalk each swing crossed the trigger, a hit no strike
    /// explains every 50-100 ms for a quarter of a second. The ringing test predicts the pad's
    /// own mount (near the Nyquist frequency), not a sway that turns by a fifth of a cycle per
    /// sample; the slow ring hold (`slowRingHoldMs`) holds what that test leaves unexplained, and
    /// a swing no higher than the ones before does not fire. The swing right after the mask of a
    /// swing that fired still may (within that mask the hold takes only `slowMaskHoldShare` of
    /// it, for a roll's sake); the sway's tail, from 120 ms on, does not. The pad's own strokes
    /// struck within a sway still fire (the phone's 3.3 g stroke below, scaled): soft ones of
    /// 0.18 and 0.24 g 250 ms into two sways (2.6 and 3.5 times the sway then), and a double
    /// stroke 250 ms into a third, its second 100 ms after the first; with the strokes taken
    /// out, nothing fires near them. (Earlier in a sway its swings fire near a stroke anyway, and
    /// this stroke's own ringing, 40 ms on, with them: the test cannot tell a stroke found there.)
    /// The rescan under 500 Hz is off here but for the last checks, which say what it changes
    /// (as shipped, two of the sway's late swings fire).
    @Test func aStandSwayingAt100HzFiresNoMoreThanItsFirstSwings() {
        let rate = 100.0
        let sways = [0.5, 1.5, 2.5, 3.95]
        let stroke = [-0.228, 0.296, -0.016, -0.144, 0.180, -0.162, 0.113, -0.065, 0.022, -0.003]  // 3.3 g, as the phone read it
        let strokes: [(time: Double, scale: Double)] = [(1.75, 0.6), (2.75, 0.8), (4.2, 1.0), (4.3, 0.85)]
        func signal(struck: Bool) -> (z: [Double], t: [Double]) {
            var z: [Double] = [], t: [Double] = []
            var random = Noise()
            for i in 0..<Int(5.5 * rate) {
                let time = Double(i) / rate + 0.0003 * Double(i % 3)  // a little jitter
                var value = 1.0 + 0.004 * random.next()
                for onset in sways where time >= onset && time < onset + 1.0 {
                    let age = time - onset
                    value += 0.2 * exp(-age / 0.23) * sin(2 * .pi * 21 * age)
                }
                for strike in strokes where struck {
                    let k = i - Int((strike.time * rate).rounded())
                    if k >= 0 && k < stroke.count { value += strike.scale * stroke[k] }
                }
                z.append(value)
                t.append(time)
            }
            return (z, t)
        }
        func hits(slowRingHoldMs: Double, struck: Bool = true, rescan: Bool = false) -> [Double] {
            var configuration = AdaptiveDetector.Configuration()
            configuration.slowRingHoldMs = slowRingHoldMs
            if !rescan { configuration.slowRescanFactor = 0 }
            var adaptive = AdaptiveDetector(configuration)
            return Self.hits(&adaptive, signal(struck: struck)).map(\.time)
        }
        let tolerance = 0.025  // replay's: 2.5 sample periods
        func found(_ strike: Double, in hits: [Double]) -> Bool { hits.contains { abs($0 - strike) <= tolerance } }
        let late = { (hits: [Double], after: Double) in
            hits.filter { time in sways.contains { time > $0 + after && time < $0 + 1.0 } && !strokes.contains { abs(time - $0.time) <= tolerance } }
        }
        let held = hits(slowRingHoldMs: AdaptiveDetector.Configuration().slowRingHoldMs)
        let unheld = hits(slowRingHoldMs: 0)
        #expect(late(unheld, 0.12).count >= 3, "without the hold the sway's tail fires: \(unheld)")
        #expect(late(held, 0.12).isEmpty, "\(held)")
        #expect(2 * late(held, 0.04).count < late(unheld, 0.04).count, "held \(held), unheld \(unheld)")
        let missed = strokes.filter { !found($0.time, in: held) }
        #expect(missed.isEmpty, "strokes missed: \(missed) in \(held)")
        let unstruck = hits(slowRingHoldMs: AdaptiveDetector.Configuration().slowRingHoldMs, struck: false)
        #expect(!strokes.contains { found($0.time, in: unstruck) }, "without the strokes: \(unstruck)")
        // As shipped, with the rescan under 500 Hz: the 1.75 s stroke, first dated a sample
        // early in the sway, is dated at its step, so its mask ends 10 ms later and its own
        // ringing within it is held at the mask's share: its swing 50 ms on (1.80 s) fires. And
        // the swing right after the mask of the 2.61 s swing that fired (2.66 s) fires, which it
        // did not before; why was not traced past this: the hold's state differs from the 1.75 s
        // stroke on. Those two and no more.
        let shipped = hits(slowRingHoldMs: AdaptiveDetector.Configuration().slowRingHoldMs, rescan: true)
        #expect(strokes.allSatisfy { found($0.time, in: shipped) }, "as shipped: \(shipped)")
        let added = late(shipped, 0.04).filter { hit in !late(held, 0.04).contains { abs($0 - hit) < 0.001 } }
        #expect(added.count == 2 && abs(added[0] - 1.80) < 0.005 && abs(added[1] - 2.66) < 0.005, "as shipped: \(shipped)")
        #expect(shipped.contains { abs($0 - 1.75) <= 0.006 } && !held.contains { abs($0 - 1.75) <= 0.006 }, "as shipped \(shipped), held \(held)")
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

    /// At 1.6 kHz a strike's shock reaches the samples nearly whole, so strikes of 3.5–7 g are
    /// measured as 3.5–7 g: at the 3 g full scale of slower sensors every one would play in the
    /// curve's headroom (0.95–1), and with none at velocity 1, a tie. At 500 Hz and faster the
    /// full scale is 8 g, and they keep their order over the curve's range; at 250 Hz it stays
    /// 3 g, and they keep it within the headroom.
    @Test func loudStrikesAt1600HzKeepTheirOrderInVelocity() {
        let amplitudes = [3.5, 4.5, 5.5, 7.0]
        let strikes = amplitudes.enumerated().map { (time: 0.5 + Double($0.offset) * 0.5, amplitude: $0.element) }
        var adaptive = AdaptiveDetector()
        let velocities = Self.hits(&adaptive, Self.signal(rate: 1600, seconds: 2.5, strikes: strikes)).map(\.velocity)
        #expect(velocities.count == amplitudes.count)
        #expect(zip(velocities, velocities.dropFirst()).allSatisfy { $0 < $1 } && velocities.allSatisfy { $0 < 0.95 },
                "under the 8 g full scale: \(velocities)")

        var fixed = AdaptiveDetector.Configuration()
        fixed.fastRateFullScale = nil
        var atThreeG = AdaptiveDetector(fixed)
        let squeezed = Self.hits(&atThreeG, Self.signal(rate: 1600, seconds: 2.5, strikes: strikes)).map(\.velocity)
        #expect(zip(squeezed, squeezed.dropFirst()).allSatisfy { $0 < $1 } && squeezed.allSatisfy { $0 > 0.95 && $0 < 1 },
                "without the fast-rate full scale they keep their order in the headroom: \(squeezed)")
        fixed.velocity.headroom = 0
        var saturating = AdaptiveDetector(fixed)
        let tied = Self.hits(&saturating, Self.signal(rate: 1600, seconds: 2.5, strikes: strikes)).map(\.velocity)
        #expect(tied == [1, 1, 1, 1], "and with no headroom they tie")

        var slow = AdaptiveDetector()
        let at250Hz = Self.hits(&slow, Self.signal(rate: 250, seconds: 2.5, strikes: strikes)).map(\.velocity)
        #expect(at250Hz.count == 4 && zip(at250Hz, at250Hz.dropFirst()).allSatisfy { $0 < $1 } && at250Hz.allSatisfy { $0 > 0.95 },
                "at 250 Hz the full scale is 3 g: \(at250Hz)")
    }

    @Test func aGapPrimesInsteadOfFiringOnTheJump() {
        var adaptive = AdaptiveDetector()
        for i in 0..<500 { _ = adaptive.process(z: 1, time: Double(i) / 250) }
        adaptive.markGap()
        // The sensor comes back tilted: a different resting value is not a strike.
        for i in 500..<1000 { #expect(adaptive.process(z: 0.2, time: Double(i) / 250) == nil) }
    }
    /// A sensor unplugged and plugged back comes with a new clock, which can start before the
    /// old one's last strike: after the gap, strikes fire again at once. (Before, the last peak
    /// dated in the "future" held the re-arm level up, and a pad that came back was deaf: the
    /// real-kernel test's second playback, 13 strikes, gave no hit.)
    @Test func strikesFireAfterAGapThatRestartsTheClock() {
        var adaptive = AdaptiveDetector()
        let strikes = [(time: 1.0, amplitude: 3.0), (time: 2.0, amplitude: 2.0), (time: 3.0, amplitude: 2.5)]
        let before = Self.signal(rate: 250, seconds: 4, strikes: strikes)
        #expect(Self.hits(&adaptive, before).count == 3)
        adaptive.markGap()
        // The new clock starts 20 s earlier than the old one ended.
        let again = Self.signal(rate: 250, seconds: 4, strikes: strikes)
        let shifted = (z: again.z, t: again.t.map { $0 - 20 })
        #expect(Self.hits(&adaptive, shifted).count == 3)
        // And times that go back without a gap being said behave as after one.
        var quiet = AdaptiveDetector()
        _ = Self.hits(&quiet, before)
        #expect(Self.hits(&quiet, shifted).count >= 2)
    }

    /// The ring hold starts again after a gap, as the re-arm does: a pad whose sensor dropped out
    /// 20 ms into a loud strike's ringing fires on a soft strike 20 ms after it comes back. (Kept
    /// across the gap, the hold, decayed only by the samples since, is still over the strike.)
    @Test func theRingHoldStartsAgainAfterAGap() {
        var adaptive = AdaptiveDetector()
        _ = Self.hits(&adaptive, Self.signal(rate: 250, seconds: 1.0, strikes: [(time: 0.98, amplitude: 3.0)]))
        adaptive.markGap()
        let soft = Self.signal(rate: 250, seconds: 0.5, strikes: [(time: 0.02, amplitude: 0.8)])
        let later = (z: soft.z, t: soft.t.map { $0 + 10 })  // the clock runs on
        #expect(Self.hits(&adaptive, later).count == 1)
    }

    /// A pad on a loose mount rings at 25 Hz, louder than its shock and for longer than the
    /// 45 ms mask: the ring's peaks after the scan are held as the re-arm reference, so the
    /// ringing never fires again.
    /// A pad on a loose mount: each strike's 2 ms shock sets the mount swinging at 25 Hz, one
    /// and a half times the shock, past the mask. Each strike fires once. (With the swing three
    /// times a 1 g shock, the bump test reads the first 4 ms as a push: the swing alone then
    /// moves z further than the shock's steepest step.)
    @Test func aMountRingingPastTheMaskFiresOnce() {
        let rate = 1600.0
        let onsets = (0..<8).map { 0.5 + Double($0) * 0.5 }
        var z: [Double] = [], t: [Double] = []
        var random = Noise()
        for i in 0..<Int(4.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.01 * random.next()
            for onset in onsets where time >= onset && time < onset + 0.3 {
                let age = time - onset
                value -= age < 0.002 ? 2 * sin(.pi * age / 0.002) : 0   // a 2 g, 2 ms shock
                value += 3 * sin(2 * .pi * 25 * age) * exp(-age / 0.030)  // the mount
            }
            z.append(value)
            t.append(time)
        }
        var adaptive = AdaptiveDetector()
        #expect(Self.hits(&adaptive, (z, t)).count == onsets.count)
    }

    /// At 250 Hz a shock smoothed by the sensor's own low-pass (here a 10 ms half-sine) peaks
    /// up to two samples after it begins, and the first sample over the threshold may catch only
    /// its flank. The scan waits for those samples, so strength follows the strike where the
    /// crossing sample alone would not. (The shock alone, without the mount's swing back that
    /// follows a real one: the rebound test, off here, would take it for a push from the stand.)
    @Test func theScanCoversTwoSamplesAtLowRates() {
        let amplitudes = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        // How far into its shock each strike's first sample falls, in s: louder ones earlier.
        let ages = [0.0039, 0.0031, 0.0023, 0.0015, 0.0009, 0.0003]
        let onsets = ages.enumerated().map { 0.504 + Double($0.offset) * 0.5 - $0.element }
        var z: [Double] = [], t: [Double] = []
        for i in 0..<Int(3.5 * 250) {
            let time = Double(i) / 250
            var value = 1.0
            for (onset, amplitude) in zip(onsets, amplitudes) where time >= onset && time < onset + 0.010 {
                value -= amplitude * sin(.pi * (time - onset) / 0.010)
            }
            z.append(value)
            t.append(time)
        }
        var configuration = AdaptiveDetector.Configuration()
        configuration.rebound = 0
        var adaptive = AdaptiveDetector(configuration)
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == amplitudes.count)
        #expect(zip(found, found.dropFirst()).allSatisfy { $0.strength < $1.strength }, "\(found.map(\.strength))")
        for (hit, onset) in zip(found, onsets) { #expect(hit.time >= onset && hit.time - onset < 0.004) }
    }

    /// The ringing between a roll's strokes is not noise: the floor learns only from samples
    /// `quietMs` after the last peak, or a fast roll would raise its own threshold and lose its
    /// softer strokes.
    @Test func ringingAfterAStrikeDoesNotTeachTheNoiseFloor() {
        var random = Noise()
        var adaptive = AdaptiveDetector()
        var hits: [Hit] = []
        var floorBefore = 0.0, floorInRinging = 0.0, floorLater = 0.0
        for i in 0..<Int(2.0 * 250) {
            let time = Double(i) / 250
            var z = 1.0 + 0.005 * random.next()
            if time >= 1.5 {
                let age = time - 1.5
                z += age < 0.004 ? -2.0 : 0.12 * exp(-age / 0.2) * sin(2 * .pi * 40 * age)  // the mount rocks on
            }
            if let hit = adaptive.process(z: z, time: time) { hits.append(hit) }
            if i == 374 { floorBefore = adaptive.currentNoiseFloor }  // 1.496 s
            if i == 397 { floorInRinging = adaptive.currentNoiseFloor }  // 1.588 s
            if i == 499 { floorLater = adaptive.currentNoiseFloor }
        }
        #expect(hits.count == 1)
        #expect(floorInRinging == floorBefore)
        #expect(floorLater > 2 * floorBefore, "after quietMs the floor learns again, here from the ringing")
    }

    /// A strike that crossed on its rise, its onset found samples earlier: the scan still runs
    /// two samples past the crossing, so its strength is the peak, not the rising flank; and it
    /// is measured from z's level before the onset, not from the high-pass, which at 250 Hz
    /// follows the strike within a sample or two.
    @Test func aStrikeThatCrossesOnItsRiseIsMeasuredAtItsPeak() {
        let rate = 250.0
        let shape = [-0.05, -0.13, -0.30, -0.70, -1.40, -0.60, -0.10]  // from 1.000 s, sample by sample
        var z: [Double] = [], t: [Double] = []
        for i in 0..<Int(1.5 * rate) {
            let k = i - 250
            z.append(1.0 + (k >= 0 && k < shape.count ? shape[k] : 0))
            t.append(Double(i) / rate)
        }
        var shock = ShockFilter(timeConstantMs: AdaptiveDetector.Configuration().highPassMs)
        shock.prime(z[0])
        var magnitudes = [0.0]
        for i in 1..<z.count { magnitudes.append(shock.filter(z[i], dt: 1 / rate).trigger) }
        let crossing = magnitudes.firstIndex { $0 > AdaptiveDetector.Configuration().minimumG }!
        #expect(crossing >= 251, "the strike should cross after its first samples")
        var adaptive = AdaptiveDetector()
        let found = Self.hits(&adaptive, (z, t))
        #expect(found.count == 1)
        #expect(found.first?.index ?? 0 < crossing, "the onset is found before the crossing")
        // Strength: how far z went from its level before the onset (1 g), through the scan.
        let deepest = (250...(crossing + 2)).map { abs(z[$0] - 1) }.max()!
        #expect(abs((found.first?.strength ?? 0) - deepest) < 1e-9)
        #expect(found.first?.strength ?? 0 > 1.5 * abs(z[crossing] - 1))
    }
}

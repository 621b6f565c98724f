import Foundation
@testable import HitDetect
import Testing
import TestSupport

/// The ringing test's model of a mount that rings in two modes at once (`TwoModeRinging`, within
/// `MountRinging`): each sample predicted from the four before it, learned from the same windows
/// of quiet after the pad's hits.
struct TwoModeRingingTests {
    /// h of a mount ringing at 14 Hz over 60 ms and at 38 Hz over 40 ms (at `second` of the
    /// first's size), sampled at 100 Hz from the phases given.
    static func twoModes(_ phase1: Double, _ phase2: Double, second: Double = 0.8, count: Int = 16) -> [Double] {
        let first = MountRingingTests.ringing(hz: 14, tau: 0.060, phase: phase1, count: count)
        let other = MountRingingTests.ringing(hz: 38, tau: 0.040, phase: phase2, count: count)
        return zip(first, other).map { $0 + second * $1 }
    }

    /// Opens a window after a hit of 0.5 g whose scan ended at `time`, and hands the model `h`
    /// sample by sample, 10 ms apart, its fifth sample (the first with four before it) 10 ms
    /// after `time`: the window's samples all come with the four before them. With `strokeAt`,
    /// the pad fires a hit just before that sample.
    static func teach(_ model: inout MountRinging, _ h: [Double], at time: Double, strokeAt: Int? = nil) {
        model.listen(after: 0.5, at: time)
        for n in 4..<h.count {
            if n == strokeAt { model.heardStroke() }
            MountRingingTests.observe(&model, h, n, time: time + Double(n - 3) / 100)
        }
    }

    /// Three windows of a two-mode ringing, each from other phases, teach the model (the first
    /// already: `MountRinging.windowsNeeded`), though the
    /// one-mode model refuses every one of them (its fit leaves more than `selfFitShare`). The
    /// same ringing met later from new phases is explained sample by sample within 0.03 of its
    /// first swing (once four samples are there to predict from), where the one mode leaves
    /// over 0.15 of several samples.
    @Test func threeWindowsOfATwoModeRingingTeachTheTwoModeModel() {
        var model = MountRinging()
        for (k, phases) in [(0.3, 2.1), (1.9, 0.4), (4.0, 5.5)].enumerated() {
            #expect(model.twoModes.hasLearned == (k > 0), "before window \(k + 1)")
            Self.teach(&model, Self.twoModes(phases.0, phases.1), at: Double(k))
        }
        #expect(model.twoModes.hasLearned)
        #expect(!model.hasLearned, "the one-mode model learned from two modes: a1 \(model.a1), a2 \(model.a2)")
        let later = Self.twoModes(5.2, 3.3)
        let size = later.map(abs).max() ?? 0
        var oneModeMisses = 0
        for n in 4..<later.count {
            let left = model.unexplained(later[n], later[n - 1], later[n - 2], later[n - 3], later[n - 4])
            #expect(left < 0.03 * size, "sample \(n): \(left)")
            if model.unexplainedByOneMode(later[n], later[n - 1], later[n - 2]) > 0.15 * size { oneModeMisses += 1 }
        }
        #expect(oneModeMisses >= 2, "the one mode explained nearly all of it: the test shows nothing")
    }

    /// A window in which the pad fired a hit (`heardStroke`) teaches the two-mode model nothing:
    /// four coefficients fit six or seven samples of a stroke nearly as well as a ringing. The
    /// same four windows without the hit teach it; a hit breaks only its own window, so three
    /// whole windows after the broken ones teach it too.
    @Test func aWindowThePadFiredInTeachesTheTwoModeModelNothing() {
        let windows = (0..<4).map { Self.twoModes(0.3 + Double($0), 2.1 + 2 * Double($0)) }
        var model = MountRinging(), control = MountRinging()
        for (k, h) in windows.enumerated() {
            Self.teach(&model, h, at: Double(k), strokeAt: 7)
            Self.teach(&control, h, at: Double(k))
        }
        #expect(!model.twoModes.hasLearned)
        #expect(control.twoModes.hasLearned, "the same windows without the hit teach it")
        for k in 4..<7 { Self.teach(&model, Self.twoModes(0.3 + Double(k), 2.1 + 2 * Double(k)), at: Double(k)) }
        #expect(model.twoModes.hasLearned, "three whole windows teach it")
    }

    /// A predictor that does not decay is no ringing (`TwoModeRinging.decays`): a decaying
    /// two-mode ringing's does, a trend's (h[n] = 2 h[n−1] − h[n−2]) and a growing swing's do not.
    @Test func onlyAPredictorThatDecaysIsARinging() {
        // Two modes, r = 0.85 and 0.7: (z² − 2 r1 cos ω1 z + r1²)(z² − 2 r2 cos ω2 z + r2²).
        let (c1, c2) = (2 * 0.85 * cos(0.9), 2 * 0.7 * cos(2.4))
        let (q1, q2) = (0.85 * 0.85, 0.7 * 0.7)
        let decaying: InlineArray<4, Double> = [c1 + c2, -(q1 + q2 + c1 * c2), c1 * q2 + c2 * q1, -q1 * q2]
        #expect(TwoModeRinging.decays(decaying))
        #expect(!TwoModeRinging.decays([2, -1, 0, 0]), "a trend")
        #expect(!TwoModeRinging.decays([2 * 1.05 * cos(0.9), -1.05 * 1.05, 0, 0]), "a growing swing")
        #expect(!TwoModeRinging.decays([0, 0, 0, 1.01]), "a fourth-sample echo that grows")
        // A growing mode beside a decaying one (r = 1.02 at 0.9, r = 0.5 at 2.4), and two slow
        // modes at a high rate (r = 0.97 at 0.4 and 0.6): these need every step of the recursion.
        #expect(!TwoModeRinging.decays([0.5307, -0.3553, -0.4502, -0.2601]), "one mode grows")
        #expect(TwoModeRinging.decays([3.388, -4.7428, 3.1878, -0.8853]), "two slow modes decay")
    }

    /// Windows of a swing that grows (r = 1.05 a sample) fit themselves exactly, but the
    /// predictor they teach does not decay: no ringing, and the model stays unlearned.
    @Test func aSwingThatGrowsTeachesNothing() {
        var model = MountRinging()
        for k in 0..<5 {
            let h = (0..<16).map { n in pow(1.05, Double(n)) * cos(0.9 * Double(n) + Double(k)) }
            Self.teach(&model, h, at: Double(k))
        }
        #expect(!model.twoModes.hasLearned)
    }

    /// 30 strokes of 2–6 g, 0.7 s apart from 0.5 s.
    static let strikes: [(time: Double, amplitude: Double)] = {
        let amplitudes = [3.0, 5.0, 2.0, 6.0, 4.0, 2.5]
        return (0..<30).map { (time: 0.5 + 0.7 * Double($0), amplitude: amplitudes[$0 % amplitudes.count]) }
    }()

    /// What a detector at its defaults (the two-mode model on or off) finds in `signal`: the
    /// strokes of `strikes` it found within `tolerance` s, its hits near none (the ringing), and
    /// which models learned.
    struct Run {
        var found: Set<Int>
        var ringing: [Double]
        var oneModeLearned: Bool
        var twoModesLearned: Bool
    }

    /// Runs a detector at its defaults, with the two-mode model on or off, over `signal`.
    static func run(_ signal: (z: [Double], t: [Double]), twoModes: Bool, tolerance: Double) -> Run {
        var configuration = AdaptiveDetector.Configuration()
        configuration.learnsTwoModes = twoModes
        var detector = AdaptiveDetector(configuration)
        let hits = detector.detect(z: signal.z, time: signal.t).map(\.time)
        let found = Set(strikes.indices.filter { i in hits.contains { abs($0 - strikes[i].time) <= tolerance } })
        let ringing = hits.filter { h in !strikes.contains { abs(h - $0.time) <= tolerance } }
        return Run(found: found, ringing: ringing, oneModeLearned: detector.mountRinging.hasLearned,
                   twoModesLearned: detector.mountRinging.twoModes.hasLearned)
    }

    /// z of a 100 Hz pad whose strokes (a shock gone within a sample) ring its mount in two
    /// modes past the mask: 14 Hz over 90 ms and 38 Hz over 60 ms, at 50 % and 40 % of the stroke,
    /// the second mode from a phase that differs from stroke to stroke.
    static func padSignal(strikes: [(time: Double, amplitude: Double)], seconds: Double) -> (z: [Double], t: [Double]) {
        padSignal(rate: 100, strikes: strikes, seconds: seconds, modes: [(hz: 14, tau: 0.090, share: 0.5), (hz: 38, tau: 0.060, share: 0.4)],
                  noise: 0.006, shockSeconds: 0.002, offset: 0.003)
    }

    /// A 100 Hz mount that rings in two modes past the mask, strokes of 2–6 g 0.7 s apart. With the
    /// one-mode model only (`learnsTwoModes` false) the ringing fires after one stroke in two.
    /// With two modes fewer of the same swings fire before the 17th stroke (11.7 s) too (a window
    /// in which the ringing fired teaches it nothing, but the first that teaches is enough:
    /// `MountRinging.windowsNeeded`; with three it took 16 strokes here, and every early swing
    /// fired as with one mode); past it at most one fires, against five or more, no swing fires
    /// that did not with one mode, and every stroke the one mode found is still found.
    @Test func aMountRingingInTwoModesPastTheMaskFiresLessOnceLearned() {
        let strikes = Self.strikes
        let signal = Self.padSignal(strikes: strikes, seconds: 22)
        let one = Self.run(signal, twoModes: false, tolerance: 0.025), two = Self.run(signal, twoModes: true, tolerance: 0.025)
        #expect(two.twoModesLearned, "the two-mode model learned")
        let late = { (ringing: [Double]) in ringing.filter { $0 > strikes[16].time } }
        #expect(late(one.ringing).count >= 5, "the one mode lets little ring: the test shows nothing (\(one.ringing))")
        #expect(late(two.ringing).count <= 1, "two modes: \(two.ringing), one: \(one.ringing)")
        let early = { (ringing: [Double]) in ringing.filter { $0 < strikes[16].time } }
        #expect(early(two.ringing).count < early(one.ringing).count, "before the 17th stroke: \(two.ringing), one: \(one.ringing)")
        #expect(two.ringing.allSatisfy { swing in one.ringing.contains { abs($0 - swing) < 0.002 } },
                "two modes: \(two.ringing), one: \(one.ringing)")
        #expect(one.found.isSubset(of: two.found), "lost: \(one.found.subtracting(two.found).sorted())")
    }

    /// z of a pad at `rate` whose strokes (a shock gone within a sample) ring its mount in two
    /// modes past the mask: `modes` (Hz, decay time constant s, share of the stroke), the second
    /// from a phase that differs from stroke to stroke.
    /// The stroke's shock decays over `shockSeconds`, the sensor's noise is `noise` g, and its
    /// first sample comes `offset` s after 0.
    static func padSignal(rate: Double, strikes: [(time: Double, amplitude: Double)], seconds: Double,
                          modes: [(hz: Double, tau: Double, share: Double)], noise: Double = 0.004,
                          shockSeconds: Double = 0.0015, offset: Double = 0.0013) -> (z: [Double], t: [Double]) {
        var random = Noise()
        var z: [Double] = [], t: [Double] = []
        for i in 0..<Int(seconds * rate) {
            let time = Double(i) / rate + offset
            var value = 1.0 + noise * random.next()
            for strike in strikes where time >= strike.time && time - strike.time < 0.6 {
                let age = time - strike.time
                var ringing = 0.0
                for (k, mode) in modes.enumerated() {
                    ringing += mode.share * exp(-age / mode.tau) * sin(2 * .pi * mode.hz * age + (k == 0 ? 0 : 7 * strike.time))
                }
                value += strike.amplitude * (exp(-age / shockSeconds) + ringing)
            }
            z.append(value)
            t.append(time)
        }
        return (z, t)
    }

    /// From about 170 to 500 Hz the ringing test judges only with a learned model, never the
    /// fixed carry. A 250 Hz mount ringing in two modes (24 Hz over 90 ms, 70 Hz over 50 ms)
    /// past the mask refuses the one-mode model its windows, so with one mode nothing judges and
    /// the ringing fires past the mask; the two-mode model learns it and, once learned, judges
    /// there: the ringing past the 12th stroke fires far less, no swing fires that did not with
    /// one mode, and every stroke the one mode found is found.
    @Test func at250HzAMountRingingInTwoModesIsJudgedOnceTheTwoModeModelHasLearned() {
        let strikes = Self.strikes
        let signal = Self.padSignal(rate: 250, strikes: strikes, seconds: 22,
                                    modes: [(hz: 20, tau: 0.110, share: 0.6), (hz: 60, tau: 0.100, share: 0.6)])
        let one = Self.run(signal, twoModes: false, tolerance: 0.010), two = Self.run(signal, twoModes: true, tolerance: 0.010)
        #expect(!one.oneModeLearned && two.twoModesLearned, "one mode learned: \(one.oneModeLearned), two: \(two.twoModesLearned)")
        let late = { (ringing: [Double]) in ringing.filter { $0 > strikes[12].time } }
        #expect(late(one.ringing).count >= 5, "the one mode lets little ring: the test shows nothing (\(one.ringing))")
        #expect(late(two.ringing).count * 3 <= late(one.ringing).count, "two modes: \(two.ringing), one: \(one.ringing)")
        #expect(two.ringing.allSatisfy { swing in one.ringing.contains { abs($0 - swing) < 0.002 } },
                "two modes: \(two.ringing), one: \(one.ringing)")
        #expect(one.found.isSubset(of: two.found), "lost: \(one.found.subtracting(two.found).sorted())")
    }
}

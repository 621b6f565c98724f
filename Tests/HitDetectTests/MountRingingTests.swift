import Foundation
@testable import HitDetect
import Testing
import TestSupport

/// The ringing test's model of a pad's own mount under 500 Hz (`MountRinging`, and the ringing
/// test in `AdaptiveDetector`'s notes): each sample predicted from the two before it, learned
/// from the quiet after the pad's own hits.
struct MountRingingTests {
    /// h of a mount ringing at `hz`, decaying over `tau` s, sampled at 100 Hz from `phase`.
    static func ringing(hz: Double, tau: Double, phase: Double, count: Int) -> [Double] {
        (0..<count).map { n in
            let age = Double(n) / 100
            return exp(-age / tau) * cos(2 * .pi * hz * age + phase)
        }
    }

    /// Listens to the window after a hit of `strength` whose scan ended at `time`, over `h` (its
    /// samples 10 ms apart from then on; 12 of them reach past the window far enough to count).
    static func teach(_ model: inout MountRinging, h: [Double], strength: Double, at time: Double) {
        model.listen(after: strength, at: time)
        for n in 2..<h.count {
            Self.observe(&model, h, n, time: time + Double(n) / 100)
        }
    }

    /// Hands the model h[n] at `time`, with the four samples before it (0 before the first).
    static func observe(_ model: inout MountRinging, _ h: [Double], _ n: Int, time: Double) {
        let back = { (k: Int) in n - k >= 0 ? h[n - k] : 0 }
        model.observe(h[n], back(1), back(2), back(3), back(4), time: time)
    }

    /// A sampled decaying sinusoid is h[n] = 2 r cos ω h[n−1] − r² h[n−2]. The first window
    /// teaches it (`windowsNeeded`), and three teach it whatever the phase each began at (within
    /// the ridge's pull towards the fixed carry); before the first the model is the fixed carry.
    @Test func windowsOfQuietTeachTheMountsRinging() {
        let hz = 36.0, tau = 0.040
        let r = exp(-0.01 / tau), omega = 2 * Double.pi * hz / 100
        var model = MountRinging()
        for (k, phase) in [0.3, 1.9, 4.0].enumerated() {
            #expect(model.hasLearned == (k > 0), "before window \(k + 1)")
            if k == 0 { #expect(model.a1 == -AdaptiveDetector.ringingCarry && model.a2 == 0) }
            Self.teach(&model, h: Self.ringing(hz: hz, tau: tau, phase: phase, count: 12), strength: 0.5, at: Double(k))
        }
        #expect(abs(model.a1 - 2 * r * cos(omega)) < 0.02, "a1 \(model.a1)")
        #expect(abs(model.a2 + r * r) < 0.02, "a2 \(model.a2)")
        // The same ringing, met later from another phase, is explained sample by sample to
        // within 0.03 of its first swing; the fixed carry leaves most samples unexplained (over
        // 0.3 of themselves).
        let later = Self.ringing(hz: hz, tau: tau, phase: 5.2, count: 8)
        for n in 2..<later.count {
            #expect(model.unexplainedByOneMode(later[n], later[n - 1], later[n - 2]) < 0.03, "sample \(n)")
        }
        let fixed = MountRinging()
        let unexplainedByCarry = (2..<later.count).filter { fixed.unexplainedByOneMode(later[$0], later[$0 - 1], later[$0 - 2]) > 0.3 * abs(later[$0]) }
        #expect(unexplainedByCarry.count > (later.count - 2) / 2, "\(unexplainedByCarry)")
    }

    /// Near half the sample rate h[n−1] and h[n−2] say nearly the same, and a plain fit of a
    /// 50 Hz ringing with a little noise wandered (to a2 = +0.36 and a1 = −0.36, in a reviewer's
    /// model of it). The ridge and the refit when a2 is held at 0 keep it at least as good as
    /// the fixed carry, which was made for it.
    @Test func aRingingAtHalfTheSampleRateIsLearnedNoWorseThanTheFixedCarry() {
        var random = Noise()
        var model = MountRinging()
        for k in 0..<6 {
            let h = Self.ringing(hz: 50, tau: 0.045, phase: 0.2 + Double(k), count: 12).map { $0 + 0.004 * random.next() }
            Self.teach(&model, h: h, strength: 0.5, at: Double(k))
        }
        let fixed = MountRinging()
        let later = Self.ringing(hz: 50, tau: 0.045, phase: 0.7, count: 8)
        for n in 2..<later.count {
            let learnedLeft = model.unexplainedByOneMode(later[n], later[n - 1], later[n - 2])
            let fixedLeft = fixed.unexplainedByOneMode(later[n], later[n - 1], later[n - 2])
            #expect(learnedLeft <= fixedLeft + 0.01, "sample \(n): \(learnedLeft) against \(fixedLeft); a1 \(model.a1), a2 \(model.a2)")
        }
        #expect(model.a2 <= 0 && abs(model.a1) <= 0.98 * (1 - model.a2), "a decaying ringing: a1 \(model.a1), a2 \(model.a2)")
    }

    /// A window broken off (a gap in the samples, or times going back: `abandon`), or holding a
    /// value no sensor gives, teaches nothing, nor does a hit too weak for its ringing to stand
    /// over the noise.
    @Test func aBrokenWindowOrAWeakHitTeachesNothing() {
        let h = Self.ringing(hz: 36, tau: 0.040, phase: 0.3, count: 12)
        var model = MountRinging()
        for k in 0..<3 {
            model.listen(after: 0.5, at: Double(k))
            for n in 2..<5 { Self.observe(&model, h, n, time: Double(k) + Double(n) / 100) }
            model.abandon()
            for n in 5..<h.count { Self.observe(&model, h, n, time: Double(k) + Double(n) / 100) }
        }
        for k in 3..<6 {
            var broken = h
            broken[4] = .nan
            Self.teach(&model, h: broken, strength: 0.5, at: Double(k))
        }
        for k in 6..<9 { Self.teach(&model, h: h, strength: 0.1, at: Double(k)) }
        #expect(model.a1 == -AdaptiveDetector.ringingCarry && model.a2 == 0)
        for k in 9..<12 { Self.teach(&model, h: h, strength: 0.5, at: Double(k)) }
        #expect(model.a1 != -AdaptiveDetector.ringingCarry, "three whole windows teach it")
    }

    /// A stroke that follows another within the quiet after it (a double stroke, here 60 ms
    /// after a stroke from rest) leaves that window's own fit far from explaining it
    /// (`MountRinging.selfFitShare`): it teaches the model nothing, where it would otherwise
    /// learn the second stroke's shock as ringing (a roll of the corpus, phone
    /// seed 4, lost four more strokes so). A stroke alone, with the quiet it leaves, teaches.
    @Test func aStrokeWithinTheQuietAfterAnotherTeachesNothing() {
        var doubles: [(time: Double, amplitude: Double)] = []
        for k in 0..<4 {
            let start = 0.5 + 0.5 * Double(k)
            doubles += [(time: start, amplitude: 1.5), (time: start + 0.06, amplitude: 1.5)]
        }
        let alone: [(time: Double, amplitude: Double)] = (0..<3).map { (time: 2.5 + 0.5 * Double($0), amplitude: 1.5) }
        let signal = AdaptiveDetectorTests.signal(rate: 100, seconds: 4.5, strikes: doubles + alone, ringHz: 38, ringMs: 30)
        var adaptive = AdaptiveDetector()
        var hits: [Hit] = []
        for (z, t) in zip(signal.z, signal.t) {
            if let hit = adaptive.process(z: z, time: t) { hits.append(hit) }
            if t < 2.4 {
                #expect(adaptive.mountRinging.a1 == -AdaptiveDetector.ringingCarry, "at \(t) s")
            }
        }
        #expect(hits.filter { $0.time < 2.4 }.count == doubles.count, "\(hits.map(\.time))")
        #expect(adaptive.mountRinging.a1 != -AdaptiveDetector.ringingCarry, "the strokes alone teach it")
    }

    /// The hits of a detector, its defaults changed by `configure`, over the pad log `fixture` in
    /// `Tests/Fixtures/FOLDER` (`FeltCeilingTests.run`).
    static func fixtureRun(_ fixture: String, folder: String = "stands",
                           _ configure: (inout AdaptiveDetector.Configuration) -> Void = { _ in }) throws -> [Hit] {
        var configuration = AdaptiveDetector.Configuration()
        configure(&configuration)
        var detector = AdaptiveDetector(configuration)
        return try FeltCeilingTests.run(&detector, fixture: fixture, folder: folder).hits
    }

    /// The hit times of `fixtureRun`.
    static func fixtureHits(_ fixture: String, folder: String = "stands",
                            _ configure: (inout AdaptiveDetector.Configuration) -> Void = { _ in }) throws -> [Double] {
        try fixtureRun(fixture, folder: folder, configure).map(\.time)
    }

    /// Hit times judged against a fixture's strike times at replay's tolerance at 100 Hz (2.5
    /// sample periods).
    struct Judge {
        static let tolerance = 0.025
        let strikes: [Double]

        /// How far the nearest of `found` lies from `t` (infinity if none).
        static func nearest(_ found: [Double], _ t: Double) -> Double { found.map { abs($0 - t) }.min() ?? .infinity }

        /// The hits no strike explains (none within `tolerance`).
        func unexplained(_ hits: [Double]) -> [Double] { hits.filter { Self.nearest(strikes, $0) > Self.tolerance } }

        /// The strikes none of `hits` found.
        func notFound(_ hits: [Double]) -> [Double] { strikes.filter { Self.nearest(hits, $0) > Self.tolerance } }
    }

    /// The strike times (the first column) of a labels or truth file under `Tests/Fixtures`.
    static func strikeTimes(_ path: String) throws -> [Double] {
        let text = try String(contentsOfFile: Program.repositoryRoot + "/Tests/Fixtures/" + path, encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { Double($0.split(separator: ",")[0]) }
    }

    /// A phone snare on a simulated stand (`Tests/Fixtures/stands/kit4-seed9`, 40 s at 100 Hz):
    /// its mount rings on after two of its 12–13 g strikes, past the mask, by less than half a
    /// cycle a sample, and the fixed carry took a swing 55 and 68 ms after each for a strike.
    /// Learned, the ringing fires no more, and every strike found before is found. (The slow
    /// ring hold is off in both, for it holds one of the two swings the fixed carry fires; as
    /// shipped, with the model and the hold, none fires and no strike is lost but one ghost on
    /// the hold's edge.)
    @Test func aPhonesMountRingingPastTheMaskFiresNoMoreOnceLearned() throws {
        let strikes = try Self.strikeTimes("stands/kit4-seed9/snare.labels.csv")
        #expect(strikes.count == 80)
        func hits(learning: Bool) throws -> [Double] {
            try Self.fixtureHits("kit4-seed9/snare.csv") { $0.learnsRinging = learning; $0.slowRingHoldMs = 0 }
        }
        // What a strike's ringing fires: a hit 45–80 ms after a strike and near none.
        func ringing(_ hits: [Double]) -> [Double] {
            hits.filter { hit in
                strikes.contains { hit - $0 > 0.045 && hit - $0 < 0.080 } && !strikes.contains { abs(hit - $0) <= 0.025 }
            }
        }
        let fixed = try hits(learning: false), learned = try hits(learning: true)
        #expect(ringing(fixed).count == 2, "the fixed carry: \(ringing(fixed))")
        #expect(ringing(learned).isEmpty, "learned: \(ringing(learned))")
        let tolerance = 0.025  // replay's: 2.5 sample periods
        let found = { (hits: [Double]) in strikes.filter { strike in hits.contains { abs($0 - strike) <= tolerance } } }
        #expect(Set(found(fixed)).isSubset(of: Set(found(learned))), "lost: \(Set(found(fixed)).subtracting(found(learned)).sorted())")
        let score = { (hits: [Double]) in HitScore(hitTimes: hits, labelTimes: strikes, tolerance: tolerance) }
        #expect(score(learned).falsePositives < score(fixed).falsePositives, "\(score(learned)) against \(score(fixed))")
        let shipped = try Self.fixtureHits("kit4-seed9/snare.csv")
        #expect(ringing(shipped).isEmpty, "as shipped: \(ringing(shipped))")
        // As shipped, one strike the fixed carry finds may be held: a 1.5 g ghost 138 ms after a
        // 12.7 g strike (13.70 s) sits on the ring hold's edge, 0.108 g left unexplained against a
        // hold of 0.113 g (0.109 against 0.104 before the rescan under 500 Hz re-dated earlier
        // strokes, from which the pad learns its ringing a little differently).
        let lost = Set(found(fixed)).subtracting(found(shipped)).sorted()
        #expect(lost.count <= 1 && lost.allSatisfy { abs($0 - 13.703) < 0.001 }, "lost as shipped: \(lost)")
    }

    /// A window that holds a stroke (here a shock of 1.5 on h[6], the window's fifth sample, in
    /// a ringing of 1) is not a ringing: its own best fit leaves most of it unexplained, and it teaches
    /// nothing, though no candidate broke it off. The same ringing without the stroke teaches.
    @Test func aWindowThatHoldsAStrokeTeachesNothing() {
        var model = MountRinging()
        for k in 0..<4 {
            var h = Self.ringing(hz: 30, tau: 0.080, phase: 0.4 + Double(k), count: 12)
            h[6] += 1.5
            Self.teach(&model, h: h, strength: 1, at: Double(k))
        }
        #expect(!model.hasLearned && model.a1 == -AdaptiveDetector.ringingCarry && model.a2 == 0)
        for k in 4..<7 { Self.teach(&model, h: Self.ringing(hz: 30, tau: 0.080, phase: 0.4 + Double(k), count: 12), strength: 1, at: Double(k)) }
        #expect(model.hasLearned, "windows of ringing alone teach it")
    }

    /// z of a pad at `rate` whose strokes each give a shock of their amplitude (gone within a
    /// sample) and ring its mount at `ringHz` for `ringMs` (time constant), at `share` of it.
    /// With `riseMs`, the shock is a half-sine that long, not gone within a sample.
    static func mountSignal(rate: Double, seconds: Double, strikes: [(time: Double, amplitude: Double)], ringHz: Double,
                            ringMs: Double, share: Double, riseMs: Double = 0) -> (z: [Double], t: [Double]) {
        var random = Noise()
        var z: [Double] = [], t: [Double] = []
        for i in 0..<Int(seconds * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.01 * random.next()
            for strike in strikes where time >= strike.time && time - strike.time < 0.6 {
                let age = time - strike.time
                let shock = riseMs > 0 ? (age * 1000 < riseMs ? sin(.pi * age * 1000 / riseMs) : 0) : exp(-age / 0.002)
                value += strike.amplitude * (shock + share * exp(-age * 1000 / ringMs) * sin(2 * .pi * ringHz * age))
            }
            z.append(value)
            t.append(time)
        }
        return (z, t)
    }

    /// A mount that rings long and strong (at `ringHz`, over 110 ms, at 60 % of the stroke): its
    /// ringing crosses past the mask after every stroke. At 100 Hz a candidate there broke off
    /// the window that was to teach the model, so it never learned, and at 200 and 250 Hz the
    /// model did not judge at all (the ring hold lets through a ringing that decays slower than
    /// it): the ringing played after every stroke. Now such a window teaches (its own fit
    /// explains it), the model judges under 500 Hz once learned, and past the first strokes the
    /// ringing plays nothing; every stroke plays. (The independent stand corpus's 100-250 Hz
    /// pads, whose mounts ring at 18-70 Hz over 30-150 ms: docs/independent-stands-notebook.md,
    /// "A mount that rings past the mask".)
    @Test(arguments: [(100.0, 30.0), (200.0, 24.0), (250.0, 20.0)])
    func aMountRingingPastTheMaskAfterEveryStrokeIsLearnedAndPlaysNoMore(rate: Double, ringHz: Double) {
        let amplitudes = [3.0, 5.0, 2.5, 6.0, 4.0, 3.5]
        let strikes = (0..<18).map { (time: 0.5 + 0.7 * Double($0), amplitude: amplitudes[$0 % amplitudes.count]) }
        let signal = Self.mountSignal(rate: rate, seconds: 13.5, strikes: strikes, ringHz: ringHz, ringMs: 110, share: 0.6)
        func run(learning: Bool) -> (found: Int, ringingAfter: [Double]) {
            var configuration = AdaptiveDetector.Configuration()
            configuration.learnsRinging = learning
            var detector = AdaptiveDetector(configuration)
            let hits = detector.detect(z: signal.z, time: signal.t).map(\.time)
            let found = strikes.filter { s in hits.contains { abs($0 - s.time) <= 0.025 } }.count
            let ringing = hits.filter { h in !strikes.contains { abs(h - $0.time) <= 0.025 } }
            return (found, ringing.filter { $0 > strikes[5].time })
        }
        let fixed = run(learning: false), learned = run(learning: true)
        #expect(fixed.ringingAfter.count >= 12, "without the model the ringing plays: \(fixed.ringingAfter)")
        #expect(learned.ringingAfter.isEmpty, "learned: \(learned.ringingAfter)")
        #expect(learned.found == strikes.count, "\(learned.found) of \(strikes.count) strokes")
    }

    /// At 200–250 Hz a stroke that comes while the last one's mount still rings (16ths at
    /// 159 BPM, 94 ms apart, the mount ringing at 41 Hz over 80 ms at 40 % of each stroke): the
    /// onset's chain walked back over every sample above `rising` within 12 ms, and the ringing
    /// before the stroke is that high, so the stroke was dated into it (or a candidate began on
    /// the ringing just before the stroke), 2–18 ms early here,
    /// past the 10 ms a hit may be off by on a stand (a miss and a hit no strike explains at
    /// once). Once the pad has learned its mount's ringing, the chain walks back only over
    /// samples the ringing does not explain, and each stroke is dated within 10 ms and mostly
    /// within a sample or two of where it began.
    @Test(arguments: [200.0, 250.0])
    func aStrokeInTheLastOnesRingingIsDatedWhereItBegan(rate: Double) {
        var strikes = (0..<6).map { (time: 0.5 + 0.6 * Double($0), amplitude: 4.0) }
        for k in 0..<24 { strikes.append((time: 4.3 + 0.094 * Double(k), amplitude: k % 2 == 0 ? 4.0 : 3.5)) }
        let signal = Self.mountSignal(rate: rate, seconds: 7, strikes: strikes, ringHz: 41, ringMs: 80, share: 0.4)
        var detector = AdaptiveDetector()
        let hits = detector.detect(z: signal.z, time: signal.t)
        #expect(detector.mountRinging.hasLearned)
        var offsets: [Double] = []
        for strike in strikes.dropFirst(6) {
            guard let hit = hits.min(by: { abs($0.time - strike.time) < abs($1.time - strike.time) }) else { continue }
            offsets.append(hit.time - strike.time)
        }
        #expect(offsets.count == 24 && hits.count == strikes.count, "\(hits.count) hits: \(hits.map { ($0.time * 1000).rounded() })")
        // Within the 10 ms a stand's scorer allows, and half of them within 7 ms (without the
        // rule: 2-18 ms early, half of them 11 ms or more at 200 Hz and 14 ms or more at 250 Hz).
        #expect(offsets.allSatisfy { abs($0) <= 0.010 }, "\(offsets.map { ($0 * 1000).rounded() })")
        #expect(offsets.map(abs).sorted()[offsets.count / 2] <= 0.007, "\(offsets.map { ($0 * 1000).rounded() })")
    }

    /// From rest the rule above applies too, and a slowly ringing mount's learned model
    /// predicts part of a soft stroke's own smooth rise (a reviewer's worry: the chain might
    /// stop on it and date the stroke a sample late). It does not: a stroke from rest is dated
    /// as with no model at all (here at 250 Hz, a mount at 20 Hz over 100 ms; soft strokes of
    /// 0.4-0.8 g rising over 12 ms, each 0.8 s after the last; a sweep of 200 and 250 Hz,
    /// mounts at 18-35 Hz over 120 ms, rises of 6-18 ms and strokes of 0.3-1 g, tried once
    /// against a gate that kept the rule to a ringing still over the rising level, moved no
    /// hit either).
    @Test func aSoftStrokeFromRestIsDatedAsWithoutTheModel() {
        var strikes: [(time: Double, amplitude: Double)] = []
        for k in 0..<16 {
            let amplitude: Double = k < 6 ? 4.0 : 0.4 + 0.1 * Double(k % 5)
            strikes.append((time: 0.5 + 0.8 * Double(k) + 0.0013 * Double(k % 3), amplitude: amplitude))
        }
        let signal = Self.mountSignal(rate: 250, seconds: 13.5, strikes: strikes, ringHz: 20, ringMs: 100, share: 0.6, riseMs: 12)
        var learned = AdaptiveDetector()
        let hits = learned.detect(z: signal.z, time: signal.t)
        #expect(learned.mountRinging.hasLearned)
        var configuration = AdaptiveDetector.Configuration()
        configuration.learnsRinging = false
        var unlearned = AdaptiveDetector(configuration)
        let plain = unlearned.detect(z: signal.z, time: signal.t)
        let soft = { (found: [Hit]) in found.filter { $0.time > strikes[5].time + 0.4 }.map(\.time) }
        #expect(soft(hits).count == 10, "\(soft(hits))")
        #expect(soft(hits) == soft(plain), "learned \(soft(hits)) against \(soft(plain))")
    }

    /// A phone snare on the independent stand corpus (`tools/corpus/independent`, phone seed 4,
    /// its first 20 s: `Tests/Fixtures/independent`): its mount rings at 20 Hz for over 100 ms,
    /// and a swing of it at 12.27 s, 70 ms after a 4.8 g strike (at 12.20 s), passed the ring
    /// hold as a soft note in the loud hit's ringing (`ringHoldOwnG`). By then the pad has
    /// learned that ringing, and the swing's samples carry it on (the model leaves 0.34 g of its
    /// 1.09 g peak, 0.31 of it, just over the ringing test's 0.3): no shock of its own
    /// (`ringHoldOwnShock`), so it is held. Every other hit is as without the rule. Both run with
    /// `ringingRescan` and the two-mode model off, to judge this rule alone: with the rescan
    /// alone the swing is scanned again from a later sample, and fired there (12.33 s); with the
    /// two-mode model too, as shipped, it is held (`aStrokeMetInASwaysScanIsDatedAtItsStep`;
    /// independent-stands-notebook-2.md, "A ghost met in its own ringing's scan" and "A mount
    /// that rings in two modes").
    @Test func aSwingOfTheLearnedRingingIsNoSoftNoteInIt() throws {
        let strikes = try Self.strikeTimes("independent/phone-s4-snare.truth.csv")
        #expect(strikes.count == 43)
        func hits(shock: Double) throws -> [Double] {
            try Self.fixtureHits("phone-s4-snare.csv", folder: "independent") {
                $0.ringHoldOwnShock = shock
                $0.ringingRescan = false
                $0.learnsTwoModes = false
            }
        }
        let tolerance = 0.025  // replay's: 2.5 sample periods
        let swing = 12.27
        let without = try hits(shock: 0), with = try hits(shock: AdaptiveDetector.Configuration().ringHoldOwnShock)
        #expect(without.contains { abs($0 - swing) <= tolerance } && !strikes.contains { abs($0 - swing) <= tolerance },
                "without the rule the swing fires: \(without)")
        #expect(with == without.filter { abs($0 - swing) > tolerance }, "with \(with), without \(without)")
    }

    /// The same snare: strokes come while a candidate is being scanned, begun on a swing of the
    /// stand's sway or of the snare's own ringing (at 17.88 s, 96 ms after a 3.9 g strike), and
    /// the hit was dated at that swing's onset, walked back: more than 10 ms early (15 and 22 ms
    /// at 1.97 and 17.91 s; the stroke at 4.76 s is dated right without the rule once the
    /// ringing is learned from the first window, `MountRinging.windowsNeeded`). Each stroke's
    /// step is over three times the swing before it, so the scan starts again there
    /// (`slowRescanFactor`) and each is dated within 7 ms. Every hit no strike explains with the
    /// rule is one without it too, and no stroke found without it is lost. Both run with
    /// `ringingRescan` off, to judge this rule alone (and without the two-mode model); as
    /// shipped the three strokes are dated within 7 ms too, every stroke found with the rule
    /// alone is found (and one more, 4.88 s), and two swings of the ringing fire no more (2.34
    /// and 4.85 s).
    @Test func aStrokeMetInASwaysScanIsDatedAtItsStep() throws {
        let strikes = try Self.strikeTimes("independent/phone-s4-snare.truth.csv")
        let judge = Judge(strikes: strikes)
        func hits(factor: Double) throws -> [Double] {
            try Self.fixtureHits("phone-s4-snare.csv", folder: "independent") {
                $0.slowRescanFactor = factor
                $0.ringingRescan = false
                $0.learnsTwoModes = false
            }
        }
        let without = try hits(factor: 0), with = try hits(factor: AdaptiveDetector.Configuration().slowRescanFactor)
        let shipped = try Self.fixtureHits("phone-s4-snare.csv", folder: "independent")
        for stroke in [1.966, 4.756, 17.905] {
            if stroke == 4.756 {
                #expect(Judge.nearest(without, stroke) <= 0.007, "dated right without the rule too: \(without)")
            } else {
                #expect(Judge.nearest(without, stroke) > 0.010, "without the rule, near \(stroke): \(without)")
            }
            #expect(Judge.nearest(with, stroke) <= 0.007, "with the rule, near \(stroke): \(with)")
            #expect(Judge.nearest(shipped, stroke) <= 0.007, "as shipped, near \(stroke): \(shipped)")
        }
        // As shipped, with the ringing rescan and the two-mode model too: every stroke the rule
        // alone finds, no hit that no strike explains but those with the rule alone, and some of
        // these held, named; with the ringing rescan but one mode, four swings more fired (12.33-14.30 s),
        // none of which fires as shipped (independent-stands-notebook-2.md, "A mount that rings
        // in two modes").
        #expect(Set(judge.notFound(shipped)).isSubset(of: Set(judge.notFound(with))),
                "not found as shipped \(judge.notFound(shipped)), with the rule alone \(judge.notFound(with))")
        let oneMode = try Self.fixtureHits("phone-s4-snare.csv", folder: "independent") { $0.learnsTwoModes = false }
        let firedByRescan = judge.unexplained(oneMode).filter { Judge.nearest(judge.unexplained(with), $0) > 0.002 }
        #expect(firedByRescan.count == 4 && zip(firedByRescan, [12.326, 12.968, 13.031, 14.299]).allSatisfy { abs($0 - $1) < 0.002 }
                && firedByRescan.allSatisfy { Judge.nearest(shipped, $0) > 0.010 },
                "with the ringing rescan but one mode: \(firedByRescan); as shipped \(shipped)")
        let firedAsShipped = judge.unexplained(shipped).filter { Judge.nearest(judge.unexplained(with), $0) > 0.002 }
        let heldAsShipped = judge.unexplained(with).filter { Judge.nearest(judge.unexplained(shipped), $0) > 0.002 }
        #expect(firedAsShipped.isEmpty && heldAsShipped.count == 2
                 && zip(heldAsShipped, [2.342, 4.849]).allSatisfy { abs($0 - $1) < 0.002 }, "no strike explains \(firedAsShipped) as shipped but not with the rule alone, and \(heldAsShipped) with the rule alone but not as shipped; as shipped \(judge.unexplained(shipped)), alone \(judge.unexplained(with))")
        #expect(Set(judge.unexplained(with)).isSubset(of: Set(judge.unexplained(without))),
                "no strike explains \(judge.unexplained(with)) with the rule, \(judge.unexplained(without)) without")
        let lost = Set(judge.notFound(with)).subtracting(judge.notFound(without))
        #expect(lost.isEmpty, "found without the rule, not with it: \(lost.sorted())")
    }

    /// At 100 Hz a stroke whose first samples rise (0.08, 0.25, 0.40 g) and whose mount then
    /// swings back 2.9 times as far (−0.75 g) is one stroke, dated at its first sample. Were the
    /// rescan's step only larger than the swing so far (the fast rates' rule), the swing back
    /// would be taken for the stroke, and each hit dated 34 ms late, past the 25 ms a hit may be
    /// off by; at `slowRescanFactor` (3) each is dated within 5 ms.
    @Test func aStrokesOwnSwingBackIsNoRescanAt100Hz() {
        let shape = [0.08, 0.25, 0.40, -0.75, 0.5, -0.3, 0.15]
        let strokes = [3.0, 5.0, 7.0, 9.0]
        var z: [Double] = [], t: [Double] = []
        for i in 0..<1200 {
            var value = 1.0 + 0.004 * sin(Double(i) * 1.7)
            for stroke in strokes {
                let k = i - Int(stroke * 100)
                if k >= 0 && k < shape.count { value += shape[k] }
            }
            z.append(value)
            t.append(Double(i) / 100)
        }
        func hits(factor: Double) -> [Double] {
            var configuration = AdaptiveDetector.Configuration()
            configuration.slowRescanFactor = factor
            var detector = AdaptiveDetector(configuration)
            return detector.detect(z: z, time: t).map(\.time)
        }
        let shipped = hits(factor: AdaptiveDetector.Configuration().slowRescanFactor), once = hits(factor: 1)
        #expect(shipped.count == strokes.count && zip(shipped, strokes).allSatisfy { abs($0 - $1) <= 0.005 }, "\(shipped)")
        #expect(once.count == strokes.count && zip(once, strokes).allSatisfy { $0 - $1 > 0.025 }, "\(once)")
    }

    /// A ghost note in the ringing of its pad's own stroke (the independent phone seed 1 snare,
    /// `Tests/Fixtures/independent`, 26 s at 100 Hz; its mount rings at 22 Hz over 130 ms): a
    /// swing of that ringing crossed the trigger, its onset walked back two samples, and its scan
    /// met the ghost's first sample, which the learned ringing leaves unexplained; the ringing
    /// test passed the candidate on that sample, and it was dated at the swing, 27 ms before the
    /// 1.5 g ghost at 24.932 s (a stroke missed and a hit no strike explains at once). With
    /// `ringingRescan` the scan starts again at that sample and the hit is dated there.
    @Test func aGhostMetInItsRingingsScanIsDatedWhereTheRingingLeavesIt() throws {
        let strikes = try Self.strikeTimes("independent/phone-s1-snare.truth.csv")
        let judge = Judge(strikes: strikes)
        func run(_ on: Bool) throws -> [Hit] {
            try Self.fixtureRun("phone-s1-snare.csv", folder: "independent") {
                $0.ringingRescan = on
                $0.learnsTwoModes = false
            }
        }
        let withHits = try run(true)
        let without = try run(false).map(\.time), with = withHits.map(\.time)
        #expect(try Self.fixtureHits("phone-s1-snare.csv", folder: "independent") { $0.learnsTwoModes = false } == with,
                "the rule is on as shipped (but for the two-mode model, which this test leaves out)")
        let ghost = 24.932
        #expect(Judge.nearest(without, ghost) > Judge.tolerance && without.contains { ghost - $0 > 0.020 && ghost - $0 < 0.040 },
                "without the rule, a hit 20-40 ms before the ghost and none within 25 ms: \(without)")
        #expect(Judge.nearest(with, ghost) <= 0.010, "with the rule, the ghost within 10 ms: \(with)")
        // Dated from the ghost's first sample (24.938 s), a sub-sample offset before it: without
        // the rule the hit was dated from the swing's onset, 24.905 s, walked back from where
        // the swing crossed (24.927 s, the sample before the ghost's first).
        #expect(withHits.contains { abs($0.sampleTime - 24.938142) < 0.0005 && abs($0.time - ghost) <= 0.010 },
                "\(withHits.filter { abs($0.time - ghost) < 0.05 })")
        // Strikes: every one found without the rule is found with it, and more (3.44 s, a 1.3 g
        // ghost 200 ms after a stroke, is lost to both).
        #expect(Set(judge.notFound(with)).isSubset(of: Set(judge.notFound(without)))
                && judge.notFound(with).count < judge.notFound(without).count,
                "not found with the rule \(judge.notFound(with)), without \(judge.notFound(without))")
        // Hits no strike explains: fewer; each one with the rule lies within 10 ms of one
        // without it, but for 21.19 s. (The rule also finds the 20.79 s stroke, and the swing 43 ms
        // after it, within its hit's mask, is the slow echo test's: `SlowEchoTests`.)
        #expect(judge.unexplained(with).count < judge.unexplained(without).count,
                "\(judge.unexplained(with)) with, \(judge.unexplained(without)) without")
        let new = judge.unexplained(with).filter { Judge.nearest(judge.unexplained(without), $0) > 0.010 }
        #expect(new.allSatisfy { abs($0 - 21.188) < 0.002 }, "new with the rule: \(new)")
    }
}

import Foundation
@testable import HitDetect
import Testing
import TestSupport

/// The adaptive detector's rebound test at 200–250 Hz (issue 26): a cymbal on the pad's stand
/// pushes the pad through the stand, up to about 1 g, and that push must not fire; ghost notes
/// from 1.2 g must. Through a sensor's own low-pass a stick's 2 ms shock comes out a fraction of
/// itself and the pad's mount swinging back is most of what the sensor sees; a push of 4–10 ms
/// comes out nearly whole, with little swing back.
struct FeltPushTests {
    enum Event {
        /// A stick's strike of `amplitude` g: a 2 ms shock into the pad, then its mount
        /// (40 Hz) swinging back with 0.6 of it.
        case strike(time: Double, amplitude: Double)
        /// A push through the stand of `peak` g over `width` s (a Hann pulse), then the stand
        /// ringing at 90 Hz with 0.35 of it.
        case push(time: Double, peak: Double, width: Double)
    }

    /// z at `rate` Hz: `gravity` g (0: a sensor that removed it), the events (their direction
    /// into the pad along −`up`), through a second-order low-pass at 0.4 × `rate` run at
    /// 8 kHz, sampled at `rate`, with 4 mg of noise.
    static func signal(rate: Double, seconds: Double, gravity: Double, up: Double, events: [Event],
                       swingBack: Double = 0.6) -> (z: [Double], t: [Double]) {
        let fine = 8000.0
        var lowPass = SensorLowPass(cutoff: 0.4 * rate, rate: fine, initial: gravity)
        var random = Noise(state: 0x2545_F491_4F6C_DD1D)
        var z: [Double] = [], t: [Double] = []
        let step = Int((fine / rate).rounded())
        for i in 0..<Int(seconds * fine) {
            let time = Double(i) / fine
            var motion = 0.0
            for event in events {
                switch event {
                case .strike(let onset, let amplitude) where time >= onset && time < onset + 0.15:
                    motion += strikeMotion(age: time - onset, amplitude: amplitude, swingBack: swingBack)
                case .push(let onset, let peak, let width) where time >= onset && time < onset + 0.3:
                    let age = time - onset
                    if age < width { motion -= peak * 0.5 * (1 - cos(2 * .pi * age / width)) }
                    let ring = age - width
                    if ring >= 0 { motion += 0.35 * peak * sin(2 * .pi * 90 * ring) * exp(-ring / 0.04) }
                default:
                    break
                }
            }
            let y = lowPass.filter(gravity + up * motion)
            if i % step == 0 {
                z.append(y + 0.004 * random.next())
                t.append(time)
            }
        }
        return (z, t)
    }

    /// Ghost notes of 1.2–2 g and pushes of 0.3–1 g of 4–10 ms, 0.25 s apart in turn, from 1 s;
    /// first, unless `played` is false, two strikes of 10 g (0.5 s and 0.75 s; even a 100 Hz
    /// sensor reads them over 1.2 g) show the pad is played (the felt ceiling,
    /// `FeltCeilingTests`). `ghosts` holds them too: every one must play.
    static func ghostsAndPushes(from start: Double = 1.0, count: Int = 12, played: Bool = true)
        -> (events: [Event], ghosts: [Double], pushes: [Double]) {
        var events: [Event] = [], ghosts: [Double] = [], pushes: [Double] = []
        if played {
            for time in [start - 0.5, start - 0.25] {
                ghosts.append(time)
                events.append(.strike(time: time, amplitude: 10))
            }
        }
        for k in 0..<count {
            let time = start + Double(k) * 0.5
            ghosts.append(time)
            events.append(.strike(time: time, amplitude: 1.2 + 0.8 * Double(k % 4) / 3))
            pushes.append(time + 0.25)
            events.append(.push(time: time + 0.25, peak: 0.3 + 0.7 * Double(k % 6) / 5, width: 0.004 + 0.002 * Double(k % 4)))
        }
        return (events, ghosts, pushes)
    }

    /// Runs `detector` over `signal`: its hits and the pushes it felt.
    static func run(_ detector: inout AdaptiveDetector, _ signal: (z: [Double], t: [Double])) -> (hits: [Hit], felt: [Hit]) {
        var hits: [Hit] = [], felt: [Hit] = []
        signal.z.withUnsafeBufferPointer { zs in
            signal.t.withUnsafeBufferPointer { ts in
                detector.detect(z: zs, time: ts, gapsBefore: UnsafeBufferPointer(start: nil, count: 0),
                                { hit, _ in hits.append(hit) }, felt: { push, _ in felt.append(push) })
            }
        }
        return (hits, felt)
    }

    static func near(_ times: [Double], _ time: Double, within: Double = 0.012) -> Bool {
        times.contains { abs($0 - time) <= within }
    }

    /// Checks one run: every ghost note plays; of the pushes, at most `fired` play (at 250 Hz
    /// a 4 ms push is one sample, and its ringing can pass for a strike's swing back: three of
    /// the twelve here), and the rest are handed on as felt, dated at the push.
    static func check(_ hits: [Hit], _ felt: [Hit], ghosts: [Double], pushes: [Double], fired: Int, unnoticed: Int = 0,
                      _ what: String) {
        let played = hits.filter { Self.near(ghosts, $0.time) }
        let pushesPlayed = hits.filter { Self.near(pushes, $0.time) }
        #expect(played.count == ghosts.count, "\(what): ghosts played at \(played.map(\.time))")
        #expect(played.count + pushesPlayed.count == hits.count, "\(what): hits at \(hits.map(\.time))")
        #expect(pushesPlayed.count <= fired, "\(what): pushes played at \(pushesPlayed.map(\.time))")
        // Every push is either felt or (at most `fired` of them) played, but for at most
        // `unnoticed` too weak to start a candidate at all.
        let missing = pushes.filter { !Self.near(felt.map(\.time), $0) && !Self.near(pushesPlayed.map(\.time), $0) }
        #expect(missing.count <= unnoticed, "\(what): pushes neither felt nor played at \(missing)")
        for push in felt { #expect(Self.near(pushes, push.time), "\(what): felt at \(push.time)") }
    }

    @Test(arguments: [200.0, 250.0])
    func aPushThroughTheStandIsFeltNotStruckWhereGhostNotesFire(rate: Double) {
        let (events, ghosts, pushes) = Self.ghostsAndPushes()
        let signal = Self.signal(rate: rate, seconds: 7.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = Self.run(&detector, signal)
        Self.check(hits, felt, ghosts: ghosts, pushes: pushes, fired: 3, "\(rate) Hz")
        // Without the rebound test the pushes fire.
        var off = AdaptiveDetector.Configuration()
        off.rebound = 0
        var untested = AdaptiveDetector(off)
        let (all, none) = Self.run(&untested, signal)
        #expect(all.count >= ghosts.count + pushes.count - 2, "\(rate) Hz, test off: \(all.count) hits")
        #expect(none.isEmpty)
    }

    /// A pad that has struck nothing of 1.2 g knows which way its strikes swing only by
    /// gravity's side, and a push the other way (up, out of the pad, here at 0.3-1 g over
    /// 15-39 ms) swung that way with little back: the rebound test took it for a strike, and an
    /// idle pad whose stand's cymbal lifted it fired on every bump (the independent stand
    /// corpus: 38-116 hits in two minutes on four of six bumped 200-250 Hz pads, and on 100 Hz
    /// ones). Until a loud hit, a push that swung one way only, either way, and rose over many
    /// samples (the bump test's `sharpness`) is felt (`oneWayShare`). A played pad's first soft
    /// strokes, before any loud one, swing both ways and rise steeply, and still play.
    @Test(arguments: [200.0, 250.0])
    func anIdlePadLiftedByItsStandFeelsThePushes(rate: Double) {
        let pushes = (0..<12).map { 0.5 + 0.5 * Double($0) }
        let events: [Event] = pushes.enumerated().map { k, time in
            .push(time: time, peak: -(0.3 + 0.7 * Double(k % 6) / 5), width: 0.015 + 0.008 * Double(k % 4))
        }
        let signal = Self.signal(rate: rate, seconds: 6.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = Self.run(&detector, signal)
        // The first push fires (0.3 g over 15 ms: it rises too steeply for the bump test's
        // sharpness), and at 200 Hz the second too (23 ms); one or two of the weakest start no
        // candidate at all (9 felt at either rate), and every push felt is one of the pushes,
        // dated on its rise (up to 13 ms into it).
        #expect(hits.count <= 2 && hits.allSatisfy { $0.time < 1.1 }, "\(rate) Hz: hits at \(hits.map(\.time))")
        #expect(felt.count >= pushes.count - 3, "\(rate) Hz: felt at \(felt.map(\.time))")
        #expect(felt.allSatisfy { push in pushes.contains { push.time - $0 >= -0.002 && push.time - $0 <= 0.015 } },
                "\(rate) Hz: felt at \(felt.map(\.time))")
        var off = AdaptiveDetector.Configuration()
        off.oneWayShare = 0
        var oneSided = AdaptiveDetector(off)
        let fired = Self.run(&oneSided, signal).hits
        #expect(fired.count >= pushes.count - 2, "\(rate) Hz, one way only: \(fired.count) hits")
        // Soft strokes of 1.2-2 g before any loud one (read at about 0.5-0.8 g, so the rule
        // judges each): each plays. A guard only: they swing back 0.3-0.6 of their swing and
        // rise steeply, so neither the share nor the step test is near; the step test is
        // guarded by CorpusFixtureTests (without it the Joy-Con's and DualSense's fixtures failed
        // there, and a 200 Hz roll of the single-pad corpus lost 11 % of its strokes).
        let (strokes, ghosts, _) = Self.ghostsAndPushes(count: 12, played: false)
        let soft = Self.signal(rate: rate, seconds: 7, gravity: 1, up: 1,
                               events: strokes.filter { if case .strike = $0 { true } else { false } })
        var fresh = AdaptiveDetector()
        let played = Self.run(&fresh, soft).hits
        #expect(ghosts.allSatisfy { Self.near(played.map(\.time), $0) } && played.count == ghosts.count,
                "\(rate) Hz: soft strokes played at \(played.map(\.time))")
    }

    /// A pad mounted face down reads gravity as −1 g, and everything the other way: a strike's
    /// swing back is then negative, and the test follows gravity's side.
    @Test func aPadFaceDownTurnsThePushesAwayAsWell() {
        let (events, ghosts, pushes) = Self.ghostsAndPushes()
        let signal = Self.signal(rate: 250, seconds: 7.5, gravity: -1, up: -1, events: events)
        var detector = AdaptiveDetector()
        #expect(detector.strikeSign == 1)
        let (hits, felt) = Self.run(&detector, signal)
        #expect(detector.strikeSign == -1)
        Self.check(hits, felt, ghosts: ghosts, pushes: pushes, fired: 3, "face down")
    }

    /// A sensor that removes gravity (a phone's linear acceleration, here at 250 Hz) gives no
    /// side: the detector takes +1 until the pad's own loud strikes show the way they swing. A
    /// face-down pad's first strikes (of 4 g, louder than any push) teach it within three (six under
    /// about 170 Hz).
    @Test func withoutGravityTheLoudStrikesTeachTheWay() {
        var events: [Event] = (0..<8).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: 4) }
        let (rest, ghosts, pushes) = Self.ghostsAndPushes(from: 3.0, played: false)
        events += rest
        let signal = Self.signal(rate: 250, seconds: 9.5, gravity: 0, up: -1, events: events)
        var detector = AdaptiveDetector()
        #expect(detector.strikeSign == 1)
        let (hits, felt) = Self.run(&detector, signal)
        #expect(detector.strikeSign == -1)
        #expect(hits.filter { $0.time < 2.9 }.count == 8, "loud strikes at \(hits.map(\.time))")
        Self.check(hits.filter { $0.time > 2.9 }, felt, ghosts: ghosts, pushes: pushes, fired: 3, "no gravity")
    }

    /// A pad whose strikes show more of the shock than of the swing back (a stiff mount: 0.1 of
    /// it here) is not silenced: its loud strikes vote the other way, and its soft ones play.
    @Test func aStiffPadsLoudStrikesTeachTheWayAndItsGhostNotesPlay() {
        var events: [Event] = (0..<8).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: 6) }
        let ghosts = (0..<8).map { 3.0 + Double($0) * 0.3 }
        events += ghosts.map { .strike(time: $0, amplitude: 1.5) }
        let signal = Self.signal(rate: 250, seconds: 6, gravity: 1, up: 1, events: events, swingBack: 0.1)
        var detector = AdaptiveDetector()
        let (hits, _) = Self.run(&detector, signal)
        #expect(detector.strikeSign == -1)
        #expect(hits.count == 16, "hits at \(hits.map(\.time))")
        for ghost in ghosts { #expect(Self.near(hits.map(\.time), ghost), "ghost at \(ghost) not played") }
    }

    /// `takeFelt` hands each push on once, and only right after the sample that turned it away:
    /// sample by sample it gives what the batch run hands on.
    @Test func aFeltPushIsHandedOnOnce() {
        let (events, _, pushes) = Self.ghostsAndPushes(count: 6)
        let signal = Self.signal(rate: 250, seconds: 4.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        var felt: [Double] = []
        for (z, t) in zip(signal.z, signal.t) {
            if detector.process(z: z, time: t) == nil, let push = detector.takeFelt() {
                felt.append(push.time)
                #expect(detector.takeFelt() == nil)
            }
        }
        #expect(detector.takeFelt() == nil)
        var batch = AdaptiveDetector()
        #expect(felt == Self.run(&batch, signal).felt.map(\.time))
        #expect(felt.count >= 4 && felt.allSatisfy { Self.near(pushes, $0) }, "\(felt)")
    }

    /// At 100 Hz (a phone) a sensor's low-pass blurs the swing back into the shock: the test
    /// asks less of it (`slowRebound`, 0.42), and still turns the pushes away.
    @Test func at100HzThePushesAreFeltToo() {
        let (events, ghosts, pushes) = Self.ghostsAndPushes()
        let signal = Self.signal(rate: 100, seconds: 7.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = Self.run(&detector, signal)
        // Behind a 40 Hz low-pass some weak pushes start no candidate at all (three here).
        Self.check(hits, felt, ghosts: ghosts, pushes: pushes, fired: 3, unnoticed: 4, "100 Hz")
        var off = AdaptiveDetector.Configuration()
        off.slowRebound = 0
        var untested = AdaptiveDetector(off)
        #expect(Self.run(&untested, signal).felt.isEmpty)
    }

    /// A neighbour's stroke reaches the pad as a push a few ms before the pad's own stroke of a
    /// unison (`Tests/Fixtures/stands/ride-kit-seed114`, 250 Hz: the racktom's 6.9 g stroke at
    /// 16.371 s, 4.3 ms after the ride's 7.7 g one). The candidate starts on the push, its scan
    /// ends on the stroke's shock before the swing back, and it is felt; the swing back breaks
    /// through the felt push's mask (`feltBreakFactor`), where the 4 × a hit's mask asks lost
    /// the stroke. The hit is dated at the swing back, about 9 ms after the stroke (within the
    /// 10 ms a hit may be off by at 250 Hz): the onset is not looked for inside the push's scan.
    /// Every other hit is as it was. (Both without the two-mode ringing model: with it, as
    /// shipped, the candidate is no push, and the stroke is a hit dated about 3 ms after it.)
    @Test func aStrokeRightBehindAPushItFeltBreaksThroughTheMask() throws {
        let fixture = "ride-kit-seed114/racktom.csv", stroke = 16.370794
        var oneMode = AdaptiveDetector.Configuration()
        oneMode.learnsTwoModes = false
        var detector = AdaptiveDetector(oneMode)
        let (hits, felt) = try FeltCeilingTests.run(&detector, fixture: fixture)
        #expect(Self.near(felt.map(\.time), stroke), "felt at \(felt.map(\.time))")
        #expect(Self.near(hits.map(\.time), stroke, within: 0.010), "hits at \(hits.map(\.time))")
        var old = oneMode
        old.feltBreakFactor = 0
        var masked = AdaptiveDetector(old)
        let before = try FeltCeilingTests.run(&masked, fixture: fixture).hits.map(\.time)
        #expect(!Self.near(before, stroke, within: 0.010), "felt break-through off: hits at \(before)")
        #expect(hits.count == before.count + 1)
        #expect(hits.map(\.time).filter { abs($0 - stroke) > 0.010 } == before)
        var shipped = AdaptiveDetector()
        let asShipped = try FeltCeilingTests.run(&shipped, fixture: fixture)
        #expect(!Self.near(asShipped.felt.map(\.time), stroke) && Self.near(asShipped.hits.map(\.time), stroke, within: 0.004),
                "as shipped: hits at \(asShipped.hits.map(\.time)), felt at \(asShipped.felt.map(\.time))")
    }

    /// A cymbal's bump right behind the pad's own stroke, on its ringing
    /// (`Tests/Fixtures/stands/bumps-seed125`, 200 Hz: three of the played snare's bumps come
    /// 69–83 ms after its hits): the rebound test judges it as it judges one from rest, and it
    /// is felt, not played. With the learned mount ringing off, judged only from rest (70 ms
    /// after the last peak), as before, each played, and every other hit is the same either
    /// way; with the defaults all three are felt.
    @Test func aBumpRightBehindThePadsOwnStrokeIsFelt() throws {
        let fixture = "bumps-seed125/snare.csv"
        let bumps = [6.007676, 11.60423, 13.754503]  // its stand.json's times of those bumps
        var detector = AdaptiveDetector()
        let (hits, felt) = try FeltCeilingTests.run(&detector, fixture: fixture)
        // Since the onset's chain stops at what the learned mount ringing explains (2026-12-03),
        // these bumps do not play even where the rebound test judges from rest only (why was
        // not looked into: a later onset may count them as from rest): the rule is judged with
        // the ringing model off, where it alone does the work.
        var unlearned = AdaptiveDetector.Configuration()
        unlearned.learnsRinging = false
        var alone = AdaptiveDetector(unlearned)
        let (aloneHits, aloneFelt) = try FeltCeilingTests.run(&alone, fixture: fixture)
        var old = unlearned
        old.reboundFromRestOnly = true
        var fromRest = AdaptiveDetector(old)
        let before = try FeltCeilingTests.run(&fromRest, fixture: fixture).hits.map(\.time)
        for bump in bumps {
            let played = before.firstIndex { abs($0 - bump) <= 0.010 }
            #expect(played.map { $0 > 0 && before[$0] - before[$0 - 1] < 0.090 } == true,
                    "from rest only: the bump at \(bump) played right behind a hit: hits at \(before)")
            for (found, pushes) in [(hits, felt), (aloneHits, aloneFelt)] {
                #expect(!Self.near(found.map(\.time), bump, within: 0.010), "hits at \(found.map(\.time))")
                #expect(Self.near(pushes.map(\.time), bump, within: 0.010), "felt at \(pushes.map(\.time))")
            }
        }
        #expect(before.filter { time in !bumps.contains { abs($0 - time) <= 0.010 } } == aloneHits.map(\.time))
    }

    /// A ghost note a 16th after an accent at 150–190 BPM (`Tests/Fixtures/stands/kit4-seed312`,
    /// `tools/corpus/stand --vary fast`, 250 Hz: the snare's 1.58 g ghost note at 9.251 s,
    /// 85 ms after an 11.8 g accent, and its 1.51 g one at 19.495 s, 89 ms after a 13.6 g one)
    /// rises over the accent's own ringing. The ring hold took that ringing for one already
    /// there and held both; it is a loud hit's own, which the re-arm has judged (`ringHoldOwnG`,
    /// `ringHoldOwnFactor`), and both play. With the learned mount ringing off, every other hit is
    /// the same either way; with the defaults both play.
    @Test func aGhostNoteASixteenthAfterAnAccentRisesOverItsRinging() throws {
        let fixture = "kit4-seed312/snare.csv", ghosts = [9.250948, 19.495233]
        var detector = AdaptiveDetector()
        let hits = try FeltCeilingTests.run(&detector, fixture: fixture).hits.map(\.time)
        // With the learned mount ringing (judging at 200-250 Hz, and stopping the onset's
        // chain at what it explains, since 2026-12-03) both ghosts play without the rule too:
        // the rule is judged with the ringing model off, where it alone does the work.
        var unlearned = AdaptiveDetector.Configuration()
        unlearned.learnsRinging = false
        var alone = AdaptiveDetector(unlearned)
        let aloneHits = try FeltCeilingTests.run(&alone, fixture: fixture).hits.map(\.time)
        var old = unlearned
        old.ringHoldOwnG = 0
        var held = AdaptiveDetector(old)
        let before = try FeltCeilingTests.run(&held, fixture: fixture).hits.map(\.time)
        for ghost in ghosts {
            #expect(Self.near(hits, ghost, within: 0.010), "hits at \(hits)")
            #expect(Self.near(aloneHits, ghost, within: 0.010), "hits at \(aloneHits)")
            #expect(!Self.near(before, ghost, within: 0.010), "ring hold on the pad's own ringing: hits at \(before)")
        }
        #expect(aloneHits.filter { time in !ghosts.contains { abs($0 - time) <= 0.010 } } == before)
    }

    /// What the ring hold still holds after a hit the pad fired (`Tests/Fixtures/stands`, 250 Hz,
    /// `bumps`: a cymbal on the snare's stand): a 0.91 g bump 62 ms after a 13.5 g accent
    /// (bumps-seed328, 2.614 s), over a third of the re-arm's held peak (a swing of the
    /// accent's ringing 8 ms after it: `ringHoldOwnFactor`); and a swing of the ringing of a 0.73 g bump that fired, 58 ms on
    /// (bumps-seed321, 8.944 s), under 0.4 g (`ringHoldOwnG`). Neither plays; without the one
    /// clause or the other, each did, and the other hits stayed (within a sample). (All without
    /// the two-mode ringing model; as shipped, with it, neither plays either.)
    @Test func theRingHoldStillHoldsABumpInAHitsRinging() throws {
        let cases: [(fixture: String, at: Double, without: (inout AdaptiveDetector.Configuration) -> Void)] = [
            ("bumps-seed328/snare.csv", 2.614378, { $0.ringHoldOwnFactor = 0 }),
            ("bumps-seed321/snare.csv", 8.944, { $0.ringHoldOwnG = 0.0001 }),
        ]
        for (fixture, at, without) in cases {
            var oneMode = AdaptiveDetector.Configuration()
            oneMode.learnsTwoModes = false
            var detector = AdaptiveDetector(oneMode)
            let hits = try FeltCeilingTests.run(&detector, fixture: fixture).hits.map(\.time)
            var loose = oneMode
            without(&loose)
            var loosened = AdaptiveDetector(loose)
            let looser = try FeltCeilingTests.run(&loosened, fixture: fixture).hits.map(\.time)
            #expect(!Self.near(hits, at, within: 0.010), "\(fixture): hits at \(hits)")
            #expect(Self.near(looser, at, within: 0.010), "\(fixture), a clause off: hits at \(looser)")
            // (The next stroke, 69 ms on, may be dated a sample apart.)
            let others = looser.filter { abs($0 - at) > 0.010 }
            #expect(others.count == hits.count && zip(others, hits).allSatisfy { abs($0 - $1) <= 0.0045 }, "\(fixture)")
            var shipped = AdaptiveDetector()
            let asShipped = try FeltCeilingTests.run(&shipped, fixture: fixture).hits.map(\.time)
            #expect(!Self.near(asShipped, at, within: 0.010), "\(fixture) as shipped: hits at \(asShipped)")
        }
    }

    /// At 1.6 kHz the rebound test is off: the bump test sees the push's shape. (The pad is
    /// played from the start, so the felt ceiling holds nothing either.)
    @Test func at1600HzNothingIsFelt() {
        let (events, _, _) = Self.ghostsAndPushes()
        let signal = Self.signal(rate: 1600, seconds: 7.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        #expect(Self.run(&detector, signal).felt.isEmpty)
    }
}

/// The felt ceiling (issue 26): a pad on a stand whose cymbal bumps it, before anyone plays it,
/// takes a candidate no stronger than 1.5 × the strongest push it has felt for one more push,
/// once it has felt two; its first hit of 1.2 g, or of twice that strongest push, shows it is
/// played, and from then on only the rebound and lean tests judge (at 1.6 kHz the bump test).
struct FeltCeilingTests {
    typealias Event = FeltPushTests.Event

    /// `count` bumps of 0.15–1 g and 4–10 ms, 0.3–1.2 s apart, from `start`.
    static func bumps(from start: Double, count: Int) -> [Event] {
        var time = start
        return (0..<count).map { k in
            defer { time += 0.3 + 0.9 * Double((k * 7) % 10) / 9 }
            return .push(time: time, peak: 0.15 + 0.85 * Double((k * 3) % 8) / 7, width: 0.004 + 0.006 * Double((k * 5) % 4) / 3)
        }
    }

    /// The hits and felt pushes of `detector` over a pad log in `Tests/Fixtures/FOLDER` (a stand
    /// fixture's, by default), read with x and y.
    static func run(_ detector: inout AdaptiveDetector, fixture: String, folder: String = "stands") throws -> (hits: [Hit], felt: [Hit]) {
        try run(&detector, text: fixtureText(fixture, folder: folder), file: fixture)
    }

    /// The text of a file in `Tests/Fixtures/FOLDER` (a stand fixture's, by default).
    static func fixtureText(_ fixture: String, folder: String = "stands") throws -> String {
        try String(contentsOfFile: Program.repositoryRoot + "/Tests/Fixtures/" + folder + "/" + fixture, encoding: .utf8)
    }

    /// The hits and felt pushes of `detector` over a pad log's `text` (named `file` in errors),
    /// read with x and y.
    static func run(_ detector: inout AdaptiveDetector, text: String, file: String) throws -> (hits: [Hit], felt: [Hit]) {
        let (_, batch) = try readLog(text, options: .init(readXY: true), file: file)
        var hits: [Hit] = [], firedAt: [Int] = [], felt: [(hit: Hit, at: Int)] = []
        detector.detect(batch, into: &hits, firedAt: &firedAt, felt: &felt)
        return (hits, felt.map(\.hit))
    }

    /// A pad nobody plays on a stand whose cymbal bumps it 0.15–1 g every 0.3–1.5 s (the
    /// simulated stands' idle-bumps, 20 s at 200 and 100 Hz; `Tests/Fixtures/stands/README.md`):
    /// once it has felt two pushes it fires no more. Without the ceiling the rebound test lets
    /// some through after that (4 and 6 here, with the ring hold off too: at 200 Hz it holds three
    /// of seed 104's hits, each the stand ringing 60–85 ms after a bump that fired). Both runs
    /// leave the rebound test's stricter share until a loud hit off, which feels many of these
    /// bumps itself (`QuietPushTests`), so that only the ceiling tells them apart.
    @Test(arguments: ["idle-bumps-seed104", "idle-bumps-seed105"])
    func aBumpedPadNobodyPlaysFiresNoMoreOnceItHasFeltTwoPushes(fixture: String) throws {
        var base = AdaptiveDetector.Configuration()
        base.reboundUntilLoud = 0
        base.slowReboundUntilLoud = 0
        var detector = AdaptiveDetector(base)
        let (hits, felt) = try Self.run(&detector, fixture: fixture + "/pad.csv")
        #expect(felt.count >= 10, "\(fixture): felt at \(felt.map(\.time))")
        let judged = felt.count >= 2 ? felt[1].time : .infinity
        #expect(hits.filter { $0.time > judged }.isEmpty, "\(fixture): hits at \(hits.map(\.time)) after \(judged)")
        var off = base
        off.feltMargin = 0
        off.ringHold = 0
        var unceiled = AdaptiveDetector(off)
        let all = try Self.run(&unceiled, fixture: fixture + "/pad.csv").hits
        #expect(all.filter { $0.time > judged }.count >= 4, "\(fixture), ceiling off: hits at \(all.map(\.time))")
    }

    /// A 250 Hz pad alone on a cymbal's stand (`idle-bumps-seed221`): the rebound test lets the
    /// first two bumps by and feels the third; the ceiling judges from that one push, holding what
    /// is no stronger than it, so the fourth and fifth bumps (0.10 and 0.28 g, which pass the
    /// rebound test too) are felt, not played. With two pushes needed they fired, and with the
    /// one push's 1.5 × a played snare's first stroke, read 0.74 g after a 0.50 g bump, was held
    /// (the simulated bumps stands, Joy-Con seed 142). Judged without the rebound test's share of
    /// 0.8 from 0.3 to 0.5 g until a loud hit (`reboundUntilLoudStronger`), which feels the first
    /// bumps here itself (`QuietPushTests`).
    @Test func theCeilingJudgesFromTheFirstPushAtThatPushesStrength() throws {
        var lenient = AdaptiveDetector.Configuration()
        lenient.reboundUntilLoudStronger = 0
        var detector = AdaptiveDetector(lenient)
        let (hits, felt) = try Self.run(&detector, fixture: "idle-bumps-seed221/pad.csv")
        let first = try #require(felt.first, "nothing felt")
        #expect(hits.count == 2 && hits.allSatisfy { $0.time < first.time }, "hits at \(hits.map(\.time)), first push at \(first.time)")
        #expect(felt.count >= 4 && felt[1].time < felt[2].time && felt[1].strength < first.strength,
                "felt: \(felt.map { ($0.time, $0.strength) })")
        // At that push's strength, not above it: a candidate 1.2 × the one push plays.
        #expect(FeltCeiling.firstMargin == 1.0 && FeltCeiling.feltNeeded == 1)
        var ceiling = FeltCeiling()
        ceiling.felt(0.5, raises: true, withdrawnAt: 1.5)
        #expect(ceiling.holds(0.5, margin: 1.5) && !ceiling.holds(0.6, margin: 1.5))
        ceiling.felt(0.3, raises: true, withdrawnAt: 1.5)
        #expect(ceiling.holds(0.7, margin: 1.5) && !ceiling.holds(0.8, margin: 1.5))
    }

    /// A phone nobody plays, on a stand whose first bumps mostly pass the rebound test (the
    /// simulated stands' idle-bumps, seed 131, 50 s): a bump read 0.41 g before any push was
    /// felt shows the pad played once the fourth push is, at more than twice the strongest of
    /// them, and the bumps after it play. A push felt later two thirds as strong as that bump
    /// (the ceiling, at 1.5 × it, would now hold the bump) shows it was one more: the proof is
    /// withdrawn and the pad fires no more. Before (the proof stood for good) it fired on.
    /// Judged without the rebound test's stricter share until a loud hit
    /// (`slowReboundUntilLoud`), which feels all but one of these bumps (`QuietPushTests`), so
    /// that bumps still pass and the proof is still weighed.
    @Test func aProofOfPlayThatALaterPushMatchesIsWithdrawn() throws {
        let fixture = "idle-bumps-seed131/pad.csv"
        var lenient = AdaptiveDetector.Configuration()
        lenient.slowReboundUntilLoud = 0
        var detector = AdaptiveDetector(lenient)
        let (hits, felt) = try Self.run(&detector, fixture: fixture)
        let fourth = try #require(felt.count >= 4 ? felt[3] : nil, "felt at \(felt.map(\.time))")
        // The strongest hit that can show the pad played: the proof the ceiling weighs.
        let proof = try #require(hits.filter { $0.time < fourth.time }.max { $0.strength < $1.strength })
        #expect(proof.strength > 0.4 && hits.allSatisfy { $0.strength <= proof.strength }, "hits: \(hits.map(\.strength))")
        #expect(felt.prefix(4).allSatisfy { 2 * $0.strength < proof.strength && $0.time > proof.time },
                "felt: \(felt.prefix(4).map { ($0.time, $0.strength) })")
        // Played: the bumps right after the fourth push pass the ceiling.
        #expect(hits.filter { $0.time > fourth.time && $0.time < fourth.time + 10 }.count >= 5,
                "hits at \(hits.map(\.time)), fourth push at \(fourth.time)")
        let withdrawing = try #require(felt.first { 1.5 * $0.strength >= proof.strength }, "felt: \(felt.map(\.strength))")
        #expect(hits.allSatisfy { $0.time < withdrawing.time }, "hits at \(hits.map(\.time)), withdrawn at \(withdrawing.time)")
        #expect(felt.filter { $0.time > withdrawing.time }.count >= 10, "felt at \(felt.map(\.time))")
        var kept = lenient
        kept.feltProofWithdrawn = false
        var standing = AdaptiveDetector(kept)
        let before = try Self.run(&standing, fixture: fixture).hits
        #expect(before.filter { $0.time > withdrawing.time }.count >= 5, "proof kept: hits at \(before.map(\.time))")
        #expect(Array(before.prefix(hits.count)) == hits, "the same up to the withdrawal")
    }

    /// The same bumps, then two strikes of 10 g: the pad is played, and from then on every ghost
    /// note of 1.2–2 g plays among the bumps, as without the ceiling.
    @Test(arguments: [100.0, 250.0])
    func aStrikeShowsThePadIsPlayedAndItsGhostNotesPlay(rate: Double) {
        var events = Self.bumps(from: 0.5, count: 10)
        let (rest, ghosts, pushes) = FeltPushTests.ghostsAndPushes(from: 9.0)
        events += rest
        let signal = FeltPushTests.signal(rate: rate, seconds: 16, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        #expect(felt.filter { $0.time < 8 }.count >= 4, "\(rate) Hz: felt at \(felt.map(\.time))")
        FeltPushTests.check(hits.filter { $0.time > 8 }, felt.filter { $0.time > 8 }, ghosts: ghosts, pushes: pushes,
                            fired: 3, unnoticed: rate < 150 ? 4 : 0, "\(rate) Hz")
    }

    /// What it costs: after the bumps, ghost notes alone, as weak as the bumps read, are taken
    /// for more of them until a strike shows the pad is played; after it they all play.
    @Test func untilThePadIsShownPlayedGhostNotesAsWeakAsTheBumpsAreFelt() {
        var events = Self.bumps(from: 0.5, count: 10)
        let early = (0..<6).map { 9.0 + 0.4 * Double($0) }
        let late = (0..<6).map { 12.5 + 0.4 * Double($0) }
        events += early.map { .strike(time: $0, amplitude: 1.2) }
        events.append(.strike(time: 12.0, amplitude: 6))
        events += late.map { .strike(time: $0, amplitude: 1.2) }
        let signal = FeltPushTests.signal(rate: 250, seconds: 15.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        let times = hits.map(\.time)
        #expect(early.filter { FeltPushTests.near(times, $0) }.count <= 1, "hits at \(times)")
        #expect(early.filter { FeltPushTests.near(felt.map(\.time), $0) }.count >= 5, "felt at \(felt.map(\.time))")
        #expect(FeltPushTests.near(times, 12.0), "hits at \(times)")
        #expect(late.allSatisfy { FeltPushTests.near(times, $0) }, "hits at \(times)")
        var off = AdaptiveDetector.Configuration()
        off.feltMargin = 0
        var unceiled = AdaptiveDetector(off)
        let all = FeltPushTests.run(&unceiled, signal).hits.map(\.time)
        #expect((early + late).allSatisfy { FeltPushTests.near(all, $0) }, "ceiling off: hits at \(all)")
    }

    /// At 1.6 kHz the bump test's pushes teach the ceiling. After bumps it turned away, shocks as
    /// weak as they read (0.4 g: on the simulated stands, a bump whose steepest step passed for
    /// a shock's) are handed on as felt, not played. One held at 1.15 g (a 1.2 g shock: under the
    /// 1.2 g no push reaches, and 1.5 × the bumps) masks nothing: a 1.5 g strike 25 ms after it,
    /// too weak to break through a mask, plays and shows the pad played; from then on the weak
    /// shocks play. Without the ceiling every one plays.
    @Test func at1600HzTheBumpTestsPushesTeachTheCeiling() {
        var events = Self.bumps(from: 0.5, count: 10)
        let early = (0..<6).map { 9.0 + 0.4 * Double($0) }
        let late = (0..<6).map { 12.5 + 0.4 * Double($0) }
        events += (early + late).map { .strike(time: $0, amplitude: 0.4) }
        events += [.strike(time: 12.0, amplitude: 1.2), .strike(time: 12.025, amplitude: 1.5)]
        let signal = FeltPushTests.signal(rate: 1600, seconds: 15.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        let times = hits.map(\.time), feltTimes = felt.map(\.time)
        #expect(early.allSatisfy { FeltPushTests.near(feltTimes, $0, within: 0.003) }, "felt at \(feltTimes)")
        #expect(hits.allSatisfy { $0.time > 11.9 }, "hits at \(times)")
        #expect(FeltPushTests.near(feltTimes, 12.0, within: 0.003), "felt at \(feltTimes)")
        #expect(FeltPushTests.near(times, 12.025, within: 0.003), "hits at \(times)")
        #expect(late.allSatisfy { FeltPushTests.near(times, $0, within: 0.003) }, "hits at \(times)")
        var off = AdaptiveDetector.Configuration()
        off.feltMargin = 0
        var unceiled = AdaptiveDetector(off)
        let all = FeltPushTests.run(&unceiled, signal).hits.map(\.time)
        #expect((early + late).allSatisfy { FeltPushTests.near(all, $0, within: 0.003) }, "ceiling off: hits at \(all)")
    }

    /// A phone reads a 6 g strike at about 0.9 g, under the 1.2 g no push reaches. Struck before
    /// its stand is bumped, the pad is weighed against its pushes once four are felt (before
    /// then a bump played could show it played: the first two pushes may both be weak); from
    /// then on every ghost note plays. Between the second push and the fourth, a ghost note as
    /// weak as the pushes may be felt (one here).
    @Test func aPhonePadStruckBeforeItsStandIsBumpedIsWeighedOnceFourPushesAreFelt() {
        var events: [Event] = [.strike(time: 0.5, amplitude: 6), .strike(time: 0.75, amplitude: 6)]
        let (rest, ghosts, pushes) = FeltPushTests.ghostsAndPushes(played: false)
        events += rest
        let signal = FeltPushTests.signal(rate: 100, seconds: 7.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        let loud = hits.filter { $0.time < 0.9 }
        #expect(loud.count == 2 && loud.allSatisfy { $0.strength < 1.2 }, "\(loud)")
        let fourth = felt.count >= 4 ? felt[3].time : .infinity
        let after = ghosts.filter { $0 > fourth }
        #expect(after.count >= 7, "fourth push felt at \(fourth)")
        #expect(after.allSatisfy { FeltPushTests.near(hits.map(\.time), $0) }, "hits at \(hits.map(\.time))")
        #expect(ghosts.filter { FeltPushTests.near(hits.map(\.time), $0) }.count >= ghosts.count - 1, "hits at \(hits.map(\.time))")
        for push in felt { #expect(FeltPushTests.near(pushes + ghosts, push.time), "felt at \(push.time)") }
    }

    /// The same pad played on for 10 s, with two more 6 g accents: a push of 1 g at 6.75 s reads
    /// 0.52 g, over half the 0.89 g strokes that showed the pad played, but the ceiling (1.5 ×
    /// it) would not hold them, so the proof stands and every ghost note after the fourth push
    /// plays. Withdrawn at twice the push (the proof judged as when it was made), every ghost
    /// note after that push was felt, and the accents, read 0.9 g, could not show the pad
    /// played again.
    @Test func aPhonePadsProofOfPlayStandsThroughAPushOverHalfAsStrong() {
        var events: [Event] = [.strike(time: 0.5, amplitude: 6), .strike(time: 0.75, amplitude: 6)]
        var (rest, ghosts, pushes) = FeltPushTests.ghostsAndPushes(count: 18, played: false)
        events += rest
        for accent in [7.1, 8.1] {
            events.append(.strike(time: accent, amplitude: 6))
            ghosts.append(accent)
        }
        let signal = FeltPushTests.signal(rate: 100, seconds: 10.5, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        let fourth = felt.count >= 4 ? felt[3].time : .infinity
        let after = ghosts.filter { $0 > fourth }
        #expect(after.count >= 14 && after.contains { $0 > 9 }, "fourth push felt at \(fourth)")
        // What the test is about: a push felt over half as strong as the strokes that showed the
        // pad played, yet under two thirds of them (twice would withdraw the proof, 1.5 × not).
        let proof = hits.filter { $0.time < 1 }.map(\.strength).max() ?? 0
        #expect(felt.contains { 2 * $0.strength >= proof && 1.5 * $0.strength < proof },
                "proof \(proof), felt \(felt.map { ($0.time, $0.strength) })")
        let missed = after.filter { !FeltPushTests.near(hits.map(\.time), $0) }
        #expect(missed.isEmpty, "missed \(missed); hits at \(hits.map(\.time))")
        for push in felt { #expect(FeltPushTests.near(pushes + ghosts, push.time), "felt at \(push.time)") }
    }

    /// A pad bumped before anyone plays it (14 bumps of 0.15–1 g), then played: strikes of 3, 4
    /// and 6 g, 0.4 s apart. Every one plays at 200 and 250 Hz, and all but the first at 100 Hz
    /// (a 3 g strike reads 0.45 g there, under 1.5 × the strongest push felt). The ceiling rises
    /// only with pushes the other tests turned away, never with a candidate it held itself
    /// (raised by the strikes it held at 100 Hz, it held every one).
    @Test(arguments: [100.0, 200.0, 250.0])
    func aBumpedPadThenPlayedPlaysItsStrikes(rate: Double) {
        var events = Self.bumps(from: 0.5, count: 14)
        let strikes = (0..<16).map { 12.0 + 0.4 * Double($0) }
        events += strikes.enumerated().map { .strike(time: $1, amplitude: [3.0, 4.0, 6.0][$0 % 3]) }
        let signal = FeltPushTests.signal(rate: rate, seconds: 19, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        #expect(felt.filter { $0.time < 12 }.count >= 8, "\(rate) Hz: felt at \(felt.map(\.time))")
        let played = strikes.filter { FeltPushTests.near(hits.map(\.time), $0) }
        #expect(played.count >= (rate < 150 ? 15 : 16), "\(rate) Hz: hits at \(hits.map(\.time))")
        #expect(played.contains(strikes[1]) && played.count == hits.filter { $0.time > 11.9 }.count, "\(rate) Hz: hits at \(hits.map(\.time))")
    }

    /// Pushes of 1.2 g over 10 ms read about 1 g at 250 Hz, so 1.5 × the strongest reaches
    /// past 1.45 g; strikes of 3.5 g, read at about 1.4 g, are never held for pushes (nothing
    /// over 1.2 g is), and show the pad played.
    @Test func aHitOfOnePointTwoGIsNeverHeld() {
        var events: [Event] = (0..<6).map { .push(time: 0.5 + 0.5 * Double($0), peak: 1.2, width: 0.010) }
        let strikes = (0..<6).map { 4.0 + 0.4 * Double($0) }
        events += strikes.map { .strike(time: $0, amplitude: 3.5) }
        let signal = FeltPushTests.signal(rate: 250, seconds: 7, gravity: 1, up: 1, events: events)
        var detector = AdaptiveDetector()
        let (hits, felt) = FeltPushTests.run(&detector, signal)
        let strongest = felt.map(\.strength).max() ?? 0
        #expect(strongest * 1.5 > 1.45, "pushes felt at \(felt.map(\.strength))")
        #expect(hits.allSatisfy { $0.strength >= 1.2 } && hits.count == strikes.count, "hits \(hits.map { ($0.time, $0.strength) })")
    }
}

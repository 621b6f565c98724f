import HitDetect
import Testing
import TestSupport

/// The adaptive detector's lean test (issue 26): under 500 Hz a weak candidate that moved the pad
/// another way, across x, y and z, than the pad's own loud strikes do came through the stand (a
/// cymbal on it, a neighbour's strike), however much it looks like a ghost note in z alone. The
/// shakes here have the very shape of a strike in z (so the rebound test passes them); only their
/// way differs (`LeaningPad`).
struct LeanTests {
    /// The hits and felt pushes of `detector` over `pad`'s samples, as a batch with x and y
    /// or z alone.
    static func run(_ detector: inout AdaptiveDetector, _ pad: LeaningPad, withXY: Bool = true) -> (hits: [Hit], felt: [Hit]) {
        let s = pad.samples()
        var batch = SensorBatch()
        for i in s.t.indices { batch.append(time: s.t[i], x: s.x[i], y: s.y[i], z: s.z[i]) }
        if !withXY { (batch.x, batch.y) = ([], []) }
        var hits: [Hit] = [], firedAt: [Int] = [], felt: [(hit: Hit, at: Int)] = []
        detector.detect(batch, into: &hits, firedAt: &firedAt, felt: &felt)
        return (hits, felt.map(\.hit))
    }

    static func near(_ times: [Double], _ time: Double) -> Bool { FeltPushTests.near(times, time) }

    /// Counts: loud strikes and ghost notes played, shakes played, shakes felt.
    static func tally(_ pad: LeaningPad, _ result: (hits: [Hit], felt: [Hit])) -> (strikes: Int, shakes: Int, felt: Int) {
        let (loud, ghosts, shakes) = pad.times
        let strikes = result.hits.filter { near(loud + ghosts, $0.time) }.count
        return (strikes, result.hits.filter { near(shakes, $0.time) }.count, result.felt.filter { near(shakes, $0.time) }.count)
    }

    /// (At 100 Hz a 3–8 g strike reads under the 1.5 g that teaches the way, so the test there
    /// seldom learns: the simulated stands' phones felt nothing by it.)
    @Test(arguments: [200.0, 250.0])
    func aShakeThatMovesThePadAnotherWayIsFelt(rate: Double) {
        let pad = LeaningPad(rate: rate)
        var detector = AdaptiveDetector()
        let with = Self.tally(pad, Self.run(&detector, pad))
        #expect(with.strikes == pad.loud + pad.count, "\(rate) Hz: \(with)")
        #expect(with.shakes == 0 && with.felt == pad.count, "\(rate) Hz: \(with)")
        // z alone cannot tell them: the shakes play as ghost notes do.
        var zAlone = AdaptiveDetector()
        let without = Self.tally(pad, Self.run(&zAlone, pad, withXY: false))
        #expect(without.strikes == pad.loud + pad.count && without.shakes == pad.count, "\(rate) Hz, z alone: \(without)")
        // Nor can the detector with the test off.
        var configuration = AdaptiveDetector.Configuration()
        configuration.leanShare = 0
        var off = AdaptiveDetector(configuration)
        let offTally = Self.tally(pad, Self.run(&off, pad))
        #expect(offTally.shakes == pad.count, "\(rate) Hz, test off: \(offTally)")
    }

    /// Until eight strikes read at 1.5 g or more have shown the way, nothing is leaned away: of
    /// `LeaningPad`'s loud strikes, those of 3 g (every fifth) and its ghost notes read under it,
    /// so nine loud strikes teach seven times and every shake plays; ten teach eight times and
    /// none does.
    @Test func theWayIsLearnedFromEightLoudStrikes() {
        for loud in [9, 10] {
            var pad = LeaningPad(rate: 250)
            pad.loud = loud
            var detector = AdaptiveDetector()
            let result = Self.tally(pad, Self.run(&detector, pad))
            #expect(result.strikes == pad.loud + pad.count, "\(loud): \(result)")
            #expect(loud == 9 ? result.shakes == pad.count : result.felt == pad.count, "\(loud): \(result)")
        }
    }

    /// A pad whose own strikes stray widely in direction (±0.3 per axis: struck all over, or a
    /// sensor whose x and y say little) learns that spread and turns nothing of its own away.
    @Test func aPadWhoseStrikesStrayLeansNothingAway() {
        var pad = LeaningPad(rate: 250)
        pad.strikeStray = 0.3
        var detector = AdaptiveDetector()
        let result = Self.tally(pad, Self.run(&detector, pad))
        #expect(result.strikes == pad.loud + pad.count, "\(result)")
    }

    /// Where x and y read nothing (a log or sensor with z alone, read as zeros), nothing leans.
    @Test func zerosAcrossLeanNothing() {
        let pad = LeaningPad(rate: 250)
        let s = pad.samples()
        var detector = AdaptiveDetector()
        var shakes = 0
        for i in s.t.indices {
            if let hit = detector.process(x: 0, y: 0, z: s.z[i], time: s.t[i]), Self.near(pad.times.shakes, hit.time) { shakes += 1 }
        }
        #expect(shakes == pad.count)
    }

    /// At 1.6 kHz the bump test judges pushes; the lean test is off.
    @Test func offAt1600Hz() {
        let pad = LeaningPad(rate: 1600)
        var detector = AdaptiveDetector()
        let with = Self.run(&detector, pad)
        var zAlone = AdaptiveDetector()
        let without = Self.run(&zAlone, pad, withXY: false)
        #expect(with.hits.map(\.time) == without.hits.map(\.time))
        #expect(Self.tally(pad, with).shakes == pad.count)
    }
}

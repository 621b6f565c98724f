import BrainCore
import DrumAudio
import DrumNet
import Testing

/// A shake of the whole stand (`StandModel.shake`, `StandModel.Configuration.shakenPads`): an
/// instrument on the stand that is not a pad shakes every pad on it at once and alike, a stroke
/// only its own pad; so a weak hit that three pads felt alike within a sensor period + 1 ms,
/// none of them as a stroke, is no stroke, and the hits of that shake still waiting are taken
/// back.
struct StandShakeTests {
    /// Four pads at `rateHz`, each struck alone at 4 g three times (played pads, their stand not
    /// yet learned), then, from 5 s, hits of `readings` (pad, ms after 5 s, g), each arriving
    /// 2 ms after its strike: the decisions, in order, and the counts after.
    static func shake(_ readings: [(pad: String, ms: Double, strength: Double)], rateHz: Double? = 200,
                      shakenPads: Int? = nil)
        -> (decisions: [StandCrosstalk.Decision], stands: StandCrosstalk) {
        var configuration = StandModel.Configuration()
        if let shakenPads { configuration.shakenPads = shakenPads }
        let stands = StandCrosstalk(model: StandModel(configuration))
        var id: UInt32 = 0
        for (k, pad) in ["snare", "racktom", "floortom", "ride"].enumerated() {
            for n in 0..<3 {
                id += 1
                _ = StandModelTests.decide(stands, pad, 300 + Double(k * 3 + n) * 300, 4, id: id, rateHz: rateHz)
            }
        }
        let decisions = readings.map { reading in
            id += 1
            return StandModelTests.decide(stands, reading.pad, 5_000 + reading.ms, reading.strength, id: id,
                                          arrivalMs: 5_002 + reading.ms, rateHz: rateHz)
        }
        return (decisions, stands)
    }

    /// The ids the readings get in `shake` (after the twelve strokes).
    static func id(_ reading: Int) -> UInt32 { UInt32(13 + reading) }

    /// Three pads felt 0.5, 0.6 and 0.45 g within 0.6 sensor periods: the first two wait (they
    /// could be a neighbour's crosstalk still to arrive), the third is cancelled as the shake and
    /// takes both back; all three count as shaken, none as swayed or too weak. At 200 and
    /// 250 Hz, and at 1.6 kHz, whose detector sends what its bump test lets by (there the window
    /// is 1.6 ms: 3 ms apart is no shake).
    @Test(arguments: [200.0, 250.0, 1600.0])
    func aStandShakenAtOnceDoesNotPlay(rateHz: Double) {
        let period = 1000 / rateHz
        let (decisions, stands) = Self.shake([("racktom", 0, 0.5), ("floortom", 0.3 * period, 0.6), ("ride", 0.6 * period, 0.45)],
                                             rateHz: rateHz)
        #expect(decisions.count == 3)
        guard case .play(let hold, let first) = decisions[0], case .play(_, let second) = decisions[1] else {
            Issue.record("the first two did not play: \(decisions)")
            return
        }
        #expect(hold > 0 && first.isEmpty && second.isEmpty, "\(decisions)")
        #expect(decisions[2] == .shaken(takeBack: [Self.id(0), Self.id(1)]))
        let counts = stands.counts
        #expect(counts.shaken == 3 && counts.cancelled == 1 && counts.takenBack == 2, "\(counts)")
        #expect(counts.swayed == 0 && counts.weak == 0)
        #expect((0..<3).allSatisfy { !stands.model.recentIsSource(id: Self.id($0)) })
        if rateHz == 1600 {
            let apart = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6), ("ride", 3, 0.45)], rateHz: rateHz)
            #expect(apart.stands.counts.shaken == 0, "\(apart.decisions)")
        }
    }

    /// A reading of the shake that already played (the third arrived 20 ms after the first,
    /// past the first's wait) cannot be taken back, but it is no strike the model learns from:
    /// marked, as the waiting ones are, so it sways no neighbour and counts for no played pad.
    @Test func aReadingAlreadyPlayedIsNoStrike() {
        let stands = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6)]).stands
        let late = StandModelTests.decide(stands, "ride", 5_003, 0.45, id: 99, arrivalMs: 5_020, rateHz: 200)
        #expect(late == .shaken(takeBack: []))
        #expect(stands.counts.shaken == 1 && stands.counts.takenBack == 0)
        #expect(!stands.model.recentIsSource(id: Self.id(0)) && !stands.model.recentIsSource(id: Self.id(1)))
    }

    /// The third pad's reading is a push its detector felt: it never plays, and still takes back
    /// the two hits of the shake waiting to play.
    @Test func aFeltPushCompletesTheShake() {
        let stands = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6)]).stands
        let felt = stands.decide(padKey: "ride", rateHz: 200, strikeMicros: 5_003_000, arrivalMicros: 5_005_000,
                                 strength: 0.45, id: 99, felt: true)
        #expect(felt == .felt(takeBack: [Self.id(0), Self.id(1)]))
        #expect(stands.counts.shaken == 2 && stands.counts.takenBack == 2 && stands.counts.cancelled == 0)
    }

    /// Two pads alike are a soft unison (two sticks), or a stroke and its answer: both play,
    /// and nothing counts as shaken.
    @Test func twoPadsAlikeStillPlay() {
        let (decisions, stands) = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6)])
        #expect(decisions.allSatisfy(Self.plays), "\(decisions)")
        #expect(stands.counts.shaken == 0 && stands.counts.cancelled == 0)
    }

    /// Whether a decision is a shake's.
    static func isShaken(_ decision: StandCrosstalk.Decision) -> Bool {
        if case .shaken = decision { true } else { false }
    }

    /// Whether a decision plays, taking nothing back.
    static func plays(_ decision: StandCrosstalk.Decision) -> Bool {
        if case .play(_, let back) = decision { back.isEmpty } else { false }
    }

    /// Not a shake: a stroke (1.5 g, at least `shakeMaximumG`) among the readings; readings not
    /// alike (0.9 g against 0.3 and 0.35 g: over `shakeRatio` apart); readings spread past the
    /// window (0, 4 and 8 ms at 200 Hz: the first and last 8 ms apart, past 5 ms + 1 ms); the
    /// rule off (`shakenPads` 0).
    @Test func otherReadingsAreNoShake() {
        let stroke = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6), ("snare", 2, 1.5), ("ride", 3, 0.45)])
        #expect(stroke.stands.counts.shaken == 0, "\(stroke.decisions)")
        // A 100 Hz pad's loud hit rules it out too, though slow pads' readings do not count.
        let slowStroke = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6)]).stands
        _ = slowStroke.decide(padKey: "phone", rateHz: 100, strikeMicros: 5_002_000, arrivalMicros: 5_004_000, strength: 1.5, id: 99)
        let last = StandModelTests.decide(slowStroke, "ride", 5_003, 0.45, id: 100, arrivalMs: 5_005, rateHz: 200)
        #expect(slowStroke.counts.shaken == 0, "\(last)")
        let unlike = Self.shake([("racktom", 0, 0.9), ("floortom", 1.5, 0.3), ("ride", 3, 0.35)])
        #expect(unlike.stands.counts.shaken == 0, "\(unlike.decisions)")
        let strongerLast = Self.shake([("racktom", 0, 0.3), ("floortom", 1.5, 0.35), ("ride", 3, 0.9)])
        #expect(strongerLast.stands.counts.shaken == 0, "\(strongerLast.decisions)")
        let spread = Self.shake([("racktom", 0, 0.5), ("floortom", 4, 0.6), ("ride", 8, 0.45)])
        #expect(spread.stands.counts.shaken == 0, "\(spread.decisions)")
        let off = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6), ("ride", 3, 0.45)], shakenPads: 0)
        #expect(off.stands.counts.shaken == 0 && off.stands.counts.cancelled == 0, "\(off.decisions)")
        #expect(off.decisions.allSatisfy { if case .play = $0 { true } else { false } })
    }

    /// Under about 170 Hz no pad judges or counts (a 100 Hz pad reads a stroke anywhere from a
    /// tenth of it to whole, alike with its neighbours' crosstalk of it), nor where the pads
    /// never said their rate (they count as 250 Hz elsewhere, but may be that slow): at 100 Hz,
    /// and with no rate said, three pads alike all play. A 100 Hz pad's reading is not judged
    /// beside two 200 Hz pads' either, nor does it count for theirs.
    @Test(arguments: [100.0, nil] as [Double?])
    func slowPadsAreNotJudged(rateHz: Double?) {
        let slow = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6), ("ride", 3, 0.45)], rateHz: rateHz)
        #expect(slow.stands.counts.shaken == 0 && slow.stands.counts.cancelled == 0, "\(slow.decisions)")
        #expect(slow.decisions.allSatisfy(Self.plays), "\(slow.decisions)")
        let last = Self.shake([("racktom", 0, 0.5), ("floortom", 1.5, 0.6)]).stands
        let phone = last.decide(padKey: "phone", rateHz: rateHz, strikeMicros: 5_003_000, arrivalMicros: 5_005_000,
                                strength: 0.45, id: 99)
        // (A pad new to the stand, as this one is, may still be another's crosstalk.)
        #expect(!Self.isShaken(phone) && last.counts.shaken == 0, "\(phone)")
        let between = Self.shake([("racktom", 0, 0.5)]).stands
        _ = between.decide(padKey: "phone", rateHz: rateHz, strikeMicros: 5_001_500, arrivalMicros: 5_003_500, strength: 0.45, id: 99)
        let third = StandModelTests.decide(between, "floortom", 5_003, 0.6, id: 100, arrivalMs: 5_005, rateHz: 200)
        #expect(Self.plays(third) && between.counts.shaken == 0, "\(third)")
    }

    /// Through the router: the shake's hits still waiting are taken back from the audio side,
    /// and the one that completes it never reaches it.
    @Test func theRouterTakesTheShakeBack() {
        let player = HitRouterTests.RecordingPlayer()
        let stands = StandCrosstalk()
        let router = HitRouter(player: player, drums: DrumMap(kit: HitRouterTests.kit, generation: 1), crosstalk: nil,
                               stands: stands, jitterMicros: 0)
        var sequence: Int32 = 0
        func route(_ pad: String, _ strikeMs: Int64, _ strength: Float) -> RoutedHit {
            sequence += 1
            // The pads' clocks are synchronised: strikes arrive 2 ms after them.
            let hit = DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: strikeMs * 1000, sequence: sequence, strength: strength)
            return router.route(ReceivedHit(hit: hit, connectionID: 1, padName: pad, receivedMicros: (strikeMs + 2) * 1000,
                                            latencyMicros: 2_000, rateHz: 200))
        }
        for (k, pad) in ["a", "b", "c"].enumerated() { for n in 0..<3 { _ = route(pad, 300 + Int64(k * 3 + n) * 300, 4) } }
        let first = route("a", 5_000, 0.5)
        let second = route("b", 5_001, 0.6)
        let third = route("c", 5_003, 0.45)
        #expect(third.disposition == .crosstalk, "\(third)")
        guard case .queued(let one) = first.disposition, case .queued(let two) = second.disposition else {
            Issue.record("the first two were not queued: \(first) \(second)")
            return
        }
        #expect(player.takenBack.withLock { $0 } == [one, two])
        #expect(stands.counts.shaken == 3)
    }
}

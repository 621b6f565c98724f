import BrainCore
import Synchronization
import Testing

/// The learned stands (`StandModel`, `StandCrosstalk`): crosstalk cancelled with no
/// configuration, strikes played, pads on different stands left alone.
struct StandModelTests {
    /// A hit for `StandCrosstalk.decide`: pad, strike time (ms), strength (g); it arrives when
    /// struck unless `arrivalMs` says otherwise, from a sensor of `rateHz`.
    static func decide(_ stands: StandCrosstalk, _ pad: String, _ ms: Double, _ strength: Double, id: UInt32,
                       arrivalMs: Double? = nil, rateHz: Double? = 250) -> StandCrosstalk.Decision {
        stands.decide(padKey: pad, rateHz: rateHz, strikeMicros: Int64(ms * 1000), arrivalMicros: Int64((arrivalMs ?? ms) * 1000),
                      strength: strength, id: id)
    }

    /// Plays hits into `stands`, numbering them, each with its slot `slotMs` after its strike.
    final class Player {
        let stands: StandCrosstalk
        let slotMs: Double
        /// The last hit's number.
        private(set) var id: UInt32 = 0

        init(_ stands: StandCrosstalk, slotMs: Double) {
            self.stands = stands
            self.slotMs = slotMs
        }

        /// A hit on `pad` (sensor `rateHz`), struck at `ms` with `strength` g, arriving at `arrives` ms.
        func hit(_ pad: String, _ rateHz: Double, _ ms: Double, _ strength: Double, arrives: Double) -> StandCrosstalk.Decision {
            id += 1
            return stands.decide(padKey: pad, rateHz: rateHz, strikeMicros: Int64(ms * 1000), arrivalMicros: Int64(arrives * 1000),
                                 strength: strength, id: id, slotMicros: Int64((ms + slotMs) * 1000))
        }

        /// A hit on `pad` (250 Hz), struck at `ms` with `strength` g, arriving then.
        func hit(_ pad: String, _ ms: Double, _ strength: Double) -> StandCrosstalk.Decision {
            hit(pad, 250, ms, strength, arrives: ms)
        }
    }

    /// A stand learning from nothing, played with no slot, whose pad b has first struck `alone`
    /// times alone (1 g, 300 ms apart).
    static func afterStrokesAlone(_ alone: Int) -> Player {
        let player = Player(StandCrosstalk(), slotMs: 0)
        for k in 0..<alone { _ = player.hit("b", Double(k) * 300, 1.0) }
        return player
    }

    /// Plays `strikes` strikes of `strength` on `source`, 250 ms apart from `from` ms, each
    /// answered 1 ms later on `receiver` at `answer` g: the stand's evidence. Numbers the hits
    /// from `id`.
    static func teach(_ stands: StandCrosstalk, _ source: String, _ receiver: String, strikes: Int,
                      strength: Double, answer: Double, from: Double = 0, id: inout UInt32) {
        for k in 0..<strikes {
            let t = from + Double(k) * 250
            id += 1
            _ = decide(stands, source, t, strength, id: id)
            id += 1
            _ = decide(stands, receiver, t + 1, answer, id: id)
        }
    }

    /// Plays `strikes` strikes of `strength` on `pad`, 250 ms apart from `from` ms, that no other
    /// pad answers. Numbers the hits from `id`.
    static func unanswered(_ stands: StandCrosstalk, _ pad: String, strikes: Int, strength: Double, from: Double,
                           id: inout UInt32) {
        for k in 0..<strikes {
            id += 1
            _ = decide(stands, pad, from + Double(k) * 250, strength, id: id)
        }
    }

    /// A pad's detector sends crosstalk it felt as a push through the stand (`/drum/felt`), not
    /// as a hit: the stand learns from it just as from a hit, and it never plays, explained or
    /// not.
    @Test func aFeltPushTeachesAsAHitWouldAndNeverPlays() {
        let asHits = StandCrosstalk(), asFelt = StandCrosstalk()
        var id: UInt32 = 0
        for k in 0..<30 {
            let t = Double(k) * 250
            id += 1
            _ = Self.decide(asHits, "a", t, 3, id: id)
            _ = Self.decide(asFelt, "a", t, 3, id: id)
            id += 1
            _ = Self.decide(asHits, "b", t + 1, 0.2, id: id)
            let felt = asFelt.decide(padKey: "b", rateHz: 250, strikeMicros: Int64((t + 1) * 1000),
                                     arrivalMicros: Int64((t + 1) * 1000), strength: 0.2, id: id, felt: true)
            #expect(felt == .crosstalk || felt == .felt(takeBack: []), "\(felt)")
        }
        #expect(asFelt.model.couplings.map(\.coupling) == asHits.model.couplings.map(\.coupling))
        #expect(asFelt.model.couplings.count == 1)
        // One that nothing explains (no strike on a) is not played either.
        id += 1
        let alone = asFelt.decide(padKey: "b", rateHz: 250, strikeMicros: 20_000_000, arrivalMicros: 20_000_000,
                                  strength: 0.5, id: id, felt: true)
        #expect(alone == .felt(takeBack: []))
    }

    /// A felt push arriving before the strike that caused it waits as a hit would: the strike
    /// takes it back (so it is marked crosstalk and causes nothing), but hands the router no id
    /// to take back and counts nothing, since it was never queued.
    @Test func aFeltPushArrivingFirstWaitsAndIsMarkedNotTakenBack() {
        let run = Self.earlyHitThenStrike(felt: true)
        #expect(run.early == .felt(takeBack: []))
        #expect(run.strike == .play(holdMicros: 0, takeBack: []))
        #expect(run.stands.counts == run.before)
        // Marked as crosstalk: a weak hit on a third pad just after is not its crosstalk.
        #expect(!run.stands.model.recentIsSource(id: run.earlyID))
    }

    /// A stand where a's 6 g strikes reach b at 8 % (learned), then b's hit of 0.24 g (`felt`:
    /// a push it felt) arriving 8 ms before a's strike that caused it: the stands, both
    /// decisions, the counts before the two, and the early hit's number.
    static func earlyHitThenStrike(felt: Bool)
        -> (stands: StandCrosstalk, early: StandCrosstalk.Decision, strike: StandCrosstalk.Decision,
            before: (cancelled: Int, takenBack: Int, swayed: Int, weak: Int, shaken: Int), earlyID: UInt32) {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        teach(stands, "a", "b", strikes: 30, strength: 6, answer: 0.48, id: &id)
        let before = stands.counts
        let earlyID = id + 1
        let early = stands.decide(padKey: "b", rateHz: 250, strikeMicros: 10_001_000, arrivalMicros: 10_009_000,
                                  strength: 0.24, id: earlyID, felt: felt)
        let strike = decide(stands, "a", 10_000, 6, id: earlyID + 1, arrivalMs: 10_012)
        return (stands, early, strike, before, earlyID)
    }

    /// A stand of two pads: every strike on `a` reaches `b` at 8 % of its strength, 1 ms later.
    /// `b` is never struck: from the first strike on, none of its hits plays, and the coupling
    /// it learned is about 8 %.
    @Test func anIdlePadsCrosstalkNeverPlaysAndItsCouplingIsLearned() {
        let found = Mutex<[String]>([])
        let stands = StandCrosstalk { source, receiver, _ in found.withLock { $0.append("\(source)→\(receiver)") } }
        var id: UInt32 = 0
        var played = 0
        for k in 0..<60 {
            let t = Double(k) * 250
            let strength = 4.0 + Double(k % 5) * 0.8  // its crosstalk 0.32-0.58 g, over a stroke's least (`leastStrokeG`)
            id += 1
            #expect(Self.decide(stands, "a", t, strength, id: id) != .crosstalk, "strike \(k) on a")
            id += 1
            if Self.decide(stands, "b", t + 1, strength * 0.08, id: id) != .crosstalk { played += 1 }
        }
        #expect(played == 0)
        let coupling = stands.model.couplings.first { $0.source == "a" && $0.receiver == "b" }
        #expect(coupling != nil && abs(coupling!.coupling - 0.08) < 0.03, "\(stands.model.couplings)")
        #expect(found.withLock { $0.contains("a→b") })
    }

    /// A stand of two 100 Hz pads: every strike on `a` (4-6 g, every 0.5 s) sets the stand
    /// swaying, and idle `b` fires on the sway 120 and 250 ms later (at 5 % and 3 % of the
    /// strike; the first within the long ring tail of a pad that has hardly played, the second
    /// past it), and on the crosstalk of every other strike, 2 ms after it, at 8 %. Those sway
    /// hits are within `a`'s sway (`swayShare`), so they make `b` neither known as played nor a
    /// pad that has played: from the eleventh strike on none of its crosstalk plays, nor any of
    /// its hits 120 ms on. Without the rule (measured: all 35 crosstalk hits and all 70 of those
    /// played) the sway hits made it played, and its crosstalk then counted as its own strikes.
    /// The sway of unlearned pairs on a pad in its first hits (`unplayedSwayShare`) is off here,
    /// so that this rule is judged alone; on, without this rule, it takes the first sway hits
    /// itself, and the crosstalk does not play either.
    @Test func anIdlePadFiringOnItsStandsSwayIsNotTakenForPlayed() {
        func played(swayShare: Double, unplayedSwayShare: Double = 0) -> (crosstalk: Int, sway: Int) {
            var configuration = StandModel.Configuration()
            configuration.swayShare = swayShare
            configuration.unplayedSwayShare = unplayedSwayShare
            let stands = StandCrosstalk(model: StandModel(configuration))
            var id: UInt32 = 0
            var crosstalk = 0, sway = 0
            for k in 0..<80 {
                let t = 1000 + Double(k) * 500
                let strength = 4.0 + Double(k % 5) * 0.5
                id += 1
                _ = Self.decide(stands, "a", t, strength, id: id, rateHz: 100)
                if k % 2 == 0 {
                    id += 1
                    if Self.decide(stands, "b", t + 2, strength * 0.08, id: id, rateHz: 100) != .crosstalk, k >= 10 { crosstalk += 1 }
                }
                for (lag, share) in [(120.0, 0.05), (250.0, 0.03)] {
                    id += 1
                    if Self.decide(stands, "b", t + lag, strength * share, id: id, rateHz: 100) != .crosstalk, k >= 10, lag < 200 { sway += 1 }
                }
            }
            return (crosstalk, sway)
        }
        let with = played(swayShare: StandModel.Configuration().swayShare)
        let without = played(swayShare: 0)
        #expect(with.crosstalk == 0 && with.sway == 0, "with the rule \(with)")
        #expect(without.crosstalk > 30 && without.sway > 60, "without it \(without)")
        let unplayed = played(swayShare: 0, unplayedSwayShare: StandModel.Configuration().unplayedSwayShare)
        #expect(unplayed.crosstalk == 0, "the unplayed pad's sway alone \(unplayed)")
    }

    /// Only another pad's strikes before a hit sway it: pad b strikes alone three times (1 g),
    /// each 100 ms before an 8 g strike on a, whose hit arrives first (b's link is slower).
    /// b's strikes settle after a's, and a strike dated after them must not sway them (the sway
    /// once took the newest strike's level for a hit before it): b is known as played, and its
    /// hit at a quarter of a's strike struck with it plays, as on a played pad (with the sway
    /// off too), not crosstalk by the idle prior.
    @Test func aStrikeDatedAfterAHitDoesNotSwayIt() {
        for swayShare in [StandModel.Configuration().swayShare, 0] {
            var configuration = StandModel.Configuration()
            configuration.swayShare = swayShare
            let stands = StandCrosstalk(model: StandModel(configuration))
            var id: UInt32 = 0
            for k in 0..<3 {
                let t = 1000 + Double(k) * 600
                id += 1
                _ = Self.decide(stands, "a", t + 100, 8, id: id)
                id += 1
                _ = Self.decide(stands, "b", t, 1.0, id: id, arrivalMs: t + 120)
            }
            id += 1
            _ = Self.decide(stands, "a", 5_000, 4, id: id)
            id += 1
            let stroke = Self.decide(stands, "b", 5_001, 1.0, id: id)
            #expect(stroke != .crosstalk, "sway \(swayShare): \(stroke)")
        }
    }

    /// Two stands: c's strikes never reach d. Once c has struck a few times with d silent (and
    /// ready: its one soft note, 0.1 g, long before), a soft note on d played with a loud strike
    /// on c (a unison, 2 ms apart) plays, though it is weaker than the prior would allow.
    @Test func padsOnDifferentStandsDoNotCancelEachOther() {
        let stands = StandCrosstalk()
        var id: UInt32 = 1
        _ = Self.decide(stands, "d", -1000, 0.1, id: id)  // d's own soft note: its softest hit
        for k in 0..<8 {
            id += 1
            _ = Self.decide(stands, "c", Double(k) * 300, 3.0, id: id)
        }
        id += 1
        _ = Self.decide(stands, "d", 3000, 1.5, id: id)  // d's own strike
        id += 1
        _ = Self.decide(stands, "c", 3600, 3.0, id: id)
        id += 1
        #expect(Self.decide(stands, "d", 3602, 0.6, id: id) != .crosstalk)
        #expect(stands.model.couplings.isEmpty)
    }

    /// Before anything is learned, a 1.6 kHz pad's hit explains only a little of itself on a
    /// 100 Hz pad (the prior lowered by their rates): a 1.6 kHz sensor reads a shake nearly
    /// whole, a 100 Hz one a fraction of it. On a stand mixing them, the idle 1.6 kHz ride's
    /// crosstalk of a floortom strike, played first at 0.9 g, cancelled the strike itself, read
    /// at 0.12 g. The other way the prior is raised (`aSlowPadsCrosstalkOnAFasterIdlePad…`).
    @Test func aFastPadsHitExplainsLittleOfASlowPadsStrikeBeforeAnythingIsLearned() {
        let mixed = StandCrosstalk()
        _ = mixed.decide(padKey: "ride", rateHz: 1600, strikeMicros: 10_000_000, arrivalMicros: 10_001_000, strength: 0.9, id: 1)
        let strike = mixed.decide(padKey: "floortom", rateHz: 100, strikeMicros: 10_001_000, arrivalMicros: 10_030_000,
                                  strength: 0.12, id: 2)
        #expect(strike != .crosstalk)
        let other = StandCrosstalk()
        _ = other.decide(padKey: "floortom", rateHz: 100, strikeMicros: 10_000_000, arrivalMicros: 10_025_000, strength: 1.0, id: 1)
        let crosstalk = other.decide(padKey: "ride", rateHz: 1600, strikeMicros: 10_001_000, arrivalMicros: 10_026_000,
                                     strength: 0.25, id: 2)
        #expect(crosstalk == .crosstalk)
    }

    /// Before anything is learned, the prior from a slower pad to a faster one is raised by
    /// their rates, as the ratio a response may have is: a 100 Hz phone reads a strike at 3-36 %
    /// of itself, a 1.6 kHz pad its crosstalk nearly whole, so the idle ride's crosstalk read
    /// 0.5-1.1 times the floortom's reading in the first seconds of the simulated mixed-rates
    /// stands, and played (17 of the 29 hits on the idle ride over seeds 1-12). Arriving first,
    /// the ride's hit waits within its slot for the floortom's strike (both pads known from their
    /// hellos), which takes it back. A
    /// ride hit 2.5 times the strike's reading (above the raised prior, 2.09) is no crosstalk of it.
    @Test func aSlowPadsCrosstalkOnAFasterIdlePadIsTakenBackBeforeAnythingIsLearned() {
        var id: UInt32 = 0
        for (k, (strike, felt)) in [(0.32, 0.36), (0.28, 0.14), (0.59, 0.22), (0.11, 0.12), (0.5, 1.0)].enumerated() {
            // A fresh brain for each: the prior alone judges, nothing learned from the others.
            let stands = StandCrosstalk()
            stands.greet(padKey: "floortom", rateHz: 100)  // both said hello: each knows the other
            stands.greet(padKey: "ride", rateHz: 1600)
            let t = 10_000_000 + Int64(k) * 400_000
            id += 1
            let early = id
            // The ride's hit, 0.7 ms after the strike, arrives 4 ms later; the slot is 53 ms.
            let waiting = stands.decide(padKey: "ride", rateHz: 1600, strikeMicros: t + 700, arrivalMicros: t + 4_700,
                                        strength: felt, id: early, slotMicros: t + 53_700)
            guard case .play = waiting else {
                Issue.record("strike \(k): the ride's hit was \(waiting)")
                continue
            }
            id += 1
            let main = stands.decide(padKey: "floortom", rateHz: 100, strikeMicros: t, arrivalMicros: t + 25_000,
                                     strength: strike, id: id, slotMicros: t + 53_000)
            #expect(main == .play(holdMicros: 0, takeBack: [early]), "strike \(k) read \(strike) g, the ride \(felt) g: \(main)")
        }
        let stands = StandCrosstalk()
        stands.greet(padKey: "floortom", rateHz: 100)
        stands.greet(padKey: "ride", rateHz: 1600)
        id += 1
        let loud = stands.decide(padKey: "ride", rateHz: 1600, strikeMicros: 20_000_700, arrivalMicros: 20_004_700,
                                 strength: 2.5, id: id, slotMicros: 20_053_700)
        id += 1
        #expect(stands.decide(padKey: "floortom", rateHz: 100, strikeMicros: 20_000_000, arrivalMicros: 20_025_000,
                              strength: 1.0, id: id, slotMicros: 20_053_000) == .play(holdMicros: 0, takeBack: []),
                "the ride's \(loud)")
    }

    /// Two stands, two rates: a 1.6 kHz ride keeps 8ths (4-7 g, read whole) and a 250 Hz snare on
    /// another stand plays backbeats (8-10 g) with every other one, 1-2 ms apart. Each ride hit
    /// in a backbeat's window is 40-88 % of it: more than a pad of the snare's rate could feel,
    /// within what a faster one may read (`candidateRatio`), but as strong as the ride's own soft
    /// strikes, so no response. Taken for responses, the ride learned to feel 40-140 % of the
    /// snare and lost its unison strikes to it (a simulated two-stands stand, 15-65 strikes).
    /// Nor does the prior, raised from a slower pad to a faster one, take them before the pair is
    /// bounded: weighed against it, the ride lost 60 strokes here.
    @Test func aFastPadsStrikesWithASlowerPadOnAnotherStandAreNotItsCrosstalk() {
        let stands = StandCrosstalk()
        let lost = Self.playTogether(stands, steady: Part(pad: "ride", rateHz: 1600, atMs: 1.5, latencyMs: 4) { 4.0 + Double($0 * 7 % 4) },
                                     everyOther: Part(pad: "snare", rateHz: 250, atMs: 0, latencyMs: 4) { 8.0 + Double($0 % 3) },
                                     judged: "ride")
        #expect(lost == 0)
        #expect(!stands.model.couplings.contains { $0.source == "snare" && $0.receiver == "ride" },
                "\(stands.model.couplings)")
    }

    /// A ride keeping 8ths on the snare's stand, both at 250 Hz: three snare strokes in four come
    /// with a ride stroke of 24-40 % of them, and the fourth, alone, shakes the ride at 8 %.
    /// The ride plays alone too, so its soft strikes are known; a stroke that strong is one of
    /// them, not the snare's crosstalk, and the strike teaches nothing of the pair (so a long
    /// passage with a ride stroke on every snare stroke leaves what was learned). Taken for
    /// responses (`ownStrikeShare` 0), the strokes teach the ride to feel far more of the snare
    /// than it does, and it loses those struck with the snare.
    @Test func aPadsOwnStrikesWithANeighboursAreNotItsCrosstalk() {
        for share in [0.5, 0] {
            var configuration = StandModel.Configuration()
            configuration.ownStrikeShare = share
            let stands = StandCrosstalk(model: StandModel(configuration))
            var id: UInt32 = 0
            func hit(_ pad: String, _ ms: Double, _ strength: Double) -> StandCrosstalk.Decision {
                id += 1
                return stands.decide(padKey: pad, rateHz: 250, strikeMicros: Int64(ms * 1000), arrivalMicros: Int64((ms + 12) * 1000),
                                     strength: strength, id: id, slotMicros: Int64((ms + 30) * 1000))
            }
            var lost = 0, lostLater = 0
            for k in 0..<480 {
                let t = Double(k) * 250
                let ride = 2.4 + 0.4 * Double(k * 7 % 3)
                if k % 4 != 0 || k >= 240 {  // a snare stroke with a ride stroke (from 240 on, every one)
                    _ = hit("snare", t, 8.0 + Double(k % 3))
                    if hit("ride", t + 0.5, ride) == .crosstalk {
                        if k >= 120 && k < 240 { lost += 1 }
                        if k >= 400 { lostLater += 1 }
                    }
                } else {  // the ride alone, then a snare note alone and its crosstalk on the ride
                    _ = hit("ride", t, ride)
                    let note = 3.0 + Double(k % 5) * 0.5
                    _ = hit("snare", t + 125, note)
                    _ = hit("ride", t + 125.5, 0.08 * note)
                }
            }
            let learned = stands.model.couplings.first { $0.source == "snare" && $0.receiver == "ride" }?.coupling ?? 0
            if share > 0 {
                // Strikes with a ride stroke teach nothing of the pair: it stays learned through
                // a long passage of them, rather than fading back to the prior.
                #expect(lost == 0 && lostLater == 0 && learned > 0.05 && learned < 0.1,
                        "\(lost) lost, \(lostLater) later, \(stands.model.couplings)")
            } else {
                #expect(lost > 10 && learned > 0.1, "without the rule: \(lost) lost, \(stands.model.couplings)")
            }
        }
    }

    /// A pad's strikes in `playTogether`: its sensor's rate, when it strikes in each step, how
    /// long its hits take to arrive, and its strength at step k.
    struct Part {
        var pad: String
        var rateHz: Double
        var atMs: Double
        var latencyMs: Double
        var strength: (Int) -> Double
    }

    /// 240 steps 250 ms apart, `steady` striking on every one and `everyOther` on the odd ones
    /// (one clock); returns how many of `judged`'s hits in the last 120 steps were cancelled.
    static func playTogether(_ stands: StandCrosstalk, steady: Part, everyOther: Part, judged: String) -> Int {
        var id: UInt32 = 0
        var lost = 0
        for k in 0..<240 {
            let parts = (k % 2 == 1 ? [everyOther, steady] : [steady]).sorted { $0.atMs + $0.latencyMs < $1.atMs + $1.latencyMs }
            for part in parts {  // in the order they arrive
                let t = Double(k) * 250 + part.atMs
                id += 1
                let heard = stands.decide(padKey: part.pad, rateHz: part.rateHz, strikeMicros: Int64(t * 1000),
                                          arrivalMicros: Int64((t + part.latencyMs) * 1000), strength: part.strength(k), id: id)
                if k >= 120 && part.pad == judged && heard == .crosstalk { lost += 1 }
            }
        }
        return lost
    }

    /// The other way: a 100 Hz floortom on another stand plays with the 1.6 kHz ride's 8ths, its
    /// strikes read at 0.4-0.6 g (a phone's 45 Hz low-pass reads a stick's shock at a tenth to a
    /// third), 7-15 % of the ride's. A slower pad reads a faster one's crosstalk as a fraction of
    /// what that pad reads, so these are no responses; taken for them, the floortom learned to
    /// feel the ride and lost its strikes to it (a simulated two-stands stand, 24-41 strikes).
    @Test func aSlowPadsStrikesWithAFasterPadAreNotItsCrosstalk() {
        let stands = StandCrosstalk()
        let lost = Self.playTogether(stands, steady: Part(pad: "ride", rateHz: 1600, atMs: 0, latencyMs: 1) { 4.0 + Double($0 * 7 % 3) },
                                     everyOther: Part(pad: "floortom", rateHz: 100, atMs: 2, latencyMs: 10) { 0.4 + 0.1 * Double($0 % 3) },
                                     judged: "floortom")
        #expect(lost == 0)
        #expect(!stands.model.couplings.contains { $0.source == "ride" && $0.receiver == "floortom" },
                "\(stands.model.couplings)")
    }

    /// A 1.6 kHz pad none of whose own strikes is known yet (an idle ride) takes a 100 Hz pad's
    /// strike at that pad's loud level: the phone read a 9 g strike at 0.12 g, the ride its
    /// crosstalk at 0.89 g, over seven times the reading, and played it (on the mixed-rates stands
    /// of seeds 1-24, 12 of the idle ride's 16 hits). A ride that has struck alone keeps its
    /// soft strokes struck with the floortom's; with the rule off the idle ride plays.
    @Test func aFastPadWithNoStrikeOfItsOwnTakesASlowPadsStrikeAtItsLoudLevel() {
        for (rule, rideStrikes) in [(true, false), (false, false), (true, true)] {
            var configuration = StandModel.Configuration()
            configuration.loudWhileUnplayed = rule
            let player = Player(StandCrosstalk(model: StandModel(configuration)), slotMs: 53)
            for k in 0..<40 {  // the ride feels 45 % of the floortom's reading
                let t = Double(k) * 300
                let reading = k % 4 == 0 ? 2.0 : 0.6
                _ = player.hit("ride", 1600, t + 1, 0.45 * reading, arrives: t + 5)
                _ = player.hit("floortom", 100, t, reading, arrives: t + 30)
            }
            if rideStrikes {
                for k in 0..<5 { _ = player.hit("ride", 1600, 13_000 + Double(k) * 300, 4.0, arrives: 13_004 + Double(k) * 300) }
            }
            let t = 20_000.0
            // Idle: the floortom's 9 g strike read at 0.12 g. Played: a soft ride stroke of 1.8 g
            // struck with a floortom strike read at 0.5 g (2.25 g at the floortom's loud level).
            let ride = player.hit("ride", 1600, t + 1, rideStrikes ? 1.8 : 0.89, arrives: t + 5)
            let rideID = player.id
            guard case .play = ride, case .play(_, let takeBack) = player.hit("floortom", 100, t, rideStrikes ? 0.5 : 0.12, arrives: t + 30) else {
                Issue.record("rule \(rule), ride struck \(rideStrikes): \(ride)")
                continue
            }
            let played = !takeBack.contains(rideID)
            #expect(played == (!rule || rideStrikes), "rule \(rule), ride struck \(rideStrikes): \(player.stands.model.couplings)")
        }
    }

    /// A 100 Hz pad may read its strike at a tenth of itself while a 1.6 kHz pad beside it reads
    /// the strike's crosstalk whole: the idle 1.6 kHz ride of a mixed-rates stand played that
    /// crosstalk. The 200 Hz racktom between them felt the strike too; by what it learned, its
    /// 0.08 g is 15 % of a 0.53 g strike, and the ride's 0.5 g is that strike's crosstalk (by the
    /// floortom's 0.08 g alone, the most it explains is 0.39 g). Whether the floortom's hit
    /// arrives last (it takes the ride back) or first (the ride is crosstalk on arrival), and
    /// with the rule off the ride plays either way.
    @Test func aSlowPadsStrikeReadLowIsWeighedByWhatTheOtherPadsFeltOfIt() {
        for (witnesses, floortomLast) in [(true, true), (true, false), (false, true), (false, false)] {
            var configuration = StandModel.Configuration()
            configuration.witnesses = witnesses
            configuration.loudWhileUnplayed = false  // the ride is idle: that rule alone would cancel it
            let stands = StandCrosstalk(model: StandModel(configuration))
            let player = Player(stands, slotMs: 40)
            for k in 0..<40 {  // the stand, learned: the racktom feels 15 % of the floortom, the ride 45 %
                let t = Double(k) * 300
                _ = player.hit("ride", 1600, t + 1, 0.27, arrives: t + 5)
                _ = player.hit("racktom", 200, t + 1, 0.09, arrives: t + 20)
                _ = player.hit("floortom", 100, t, 0.6, arrives: t + 30)
            }
            let t = 20_000.0
            let played: Bool
            if floortomLast {
                _ = player.hit("ride", 1600, t + 1, 0.5, arrives: t + 5)
                let ride = player.id
                _ = player.hit("racktom", 200, t + 1, 0.08, arrives: t + 20)
                guard case .play(_, let takeBack) = player.hit("floortom", 100, t, 0.08, arrives: t + 30) else {
                    Issue.record("the floortom's strike did not play")
                    continue
                }
                played = !takeBack.contains(ride)
            } else {
                #expect(player.hit("floortom", 100, t, 0.08, arrives: t + 3) != .crosstalk)
                #expect(player.hit("racktom", 200, t + 1, 0.08, arrives: t + 6) == .crosstalk)
                played = player.hit("ride", 1600, t + 1, 0.5, arrives: t + 9) != .crosstalk
            }
            #expect(played != witnesses, "witnesses \(witnesses), floortom last \(floortomLast): \(stands.model.couplings)")
        }
    }

    /// A flam's grace note comes before its main stroke, 20 ms ahead on a coupled neighbour:
    /// crosstalk cannot come before its cause, so it plays.
    @Test func aFlamsGraceNoteBeforeTheMainStrokePlays() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        Self.teach(stands, "a", "b", strikes: 30, strength: 6, answer: 0.36, id: &id)  // learn a → b at 6 %
        id += 1
        #expect(Self.decide(stands, "b", 10_000, 0.5, id: id) != .crosstalk)  // the grace note
        id += 1
        #expect(Self.decide(stands, "a", 10_020, 7, id: id) != .crosstalk)   // the main stroke
    }

    /// At 100 Hz both onsets are dated to a 10 ms sample, a strong strike's often a sample late:
    /// crosstalk dated up to one and a half periods + 1 ms (16 ms) before its cause is taken
    /// back, and a flam's grace note dated 18 ms before its main stroke plays (with two periods
    /// + 1 ms, 21 ms, it was taken back as the main stroke's crosstalk).
    @Test func atAHundredHzAGraceNoteDatedOverOneAndAHalfPeriodsAheadPlays() {
        for (lead, takenBack) in [(18.0, false), (14.0, true)] {
            guard let (main, early) = Self.hitAheadOfAStroke(learned: (3, 0.18), hit: 0.3, stroke: 3.5, lead: lead) else {
                Issue.record("\(lead) ms ahead: the weak hit was not held")
                continue
            }
            #expect(main == .play(holdMicros: 0, takeBack: takenBack ? [early] : []), "\(lead) ms ahead: \(main)")
        }
    }

    /// At 100 Hz: a → b learned from 30 strikes of `learned.strike` g each answered at
    /// `learned.answer` g; then a hit of `hit` g on b at 10 s, arriving 25 ms later, and a stroke of
    /// `stroke` g on a `lead` ms after it, arriving 30 ms after the hit. The stroke's decision and
    /// the hit's id, or nil if the hit was not held for it.
    static func hitAheadOfAStroke(learned: (strike: Double, answer: Double), hit: Double, stroke: Double,
                                  lead: Double) -> (StandCrosstalk.Decision, UInt32)? {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        for k in 0..<30 {
            let t = Double(k) * 250
            id += 1
            _ = decide(stands, "a", t, learned.strike, id: id, arrivalMs: t + 30, rateHz: 100)
            id += 1
            _ = decide(stands, "b", t + 1, learned.answer, id: id, arrivalMs: t + 31, rateHz: 100)
        }
        id += 1
        let early = id
        guard case .play = decide(stands, "b", 10_000, hit, id: early, arrivalMs: 10_025, rateHz: 100) else { return nil }
        id += 1
        return (decide(stands, "a", 10_000 + lead, stroke, id: id, arrivalMs: 10_030, rateHz: 100), early)
    }

    /// A hit dated more than a sensor period before a strike is seldom its crosstalk and often
    /// a flam's grace note: it is weighed against less of the coupling the earlier it is
    /// (`earlyShare`). At 100 Hz, a pair learned at 6 %: a grace note read at 0.7 g, 15 ms
    /// before a 5 g stroke, plays; dated 3 ms before it, it is taken back, as it was at 15 ms
    /// before the rule (6 % × 2.5 × 5 g, and the pad's softest hit, 0.3 g, explain 1.05 g); 11 ms
    /// before it, just over a period, still (0.88 of the coupling: 0.96 g).
    @Test func atAHundredHzAHitDatedOverAPeriodAheadIsWeighedAgainstLessOfTheCoupling() {
        for (lead, takenBack) in [(15.0, false), (11.0, true), (3.0, true)] {
            guard let (main, early) = Self.hitAheadOfAStroke(learned: (5, 0.3), hit: 0.7, stroke: 5, lead: lead) else {
                Issue.record("\(lead) ms ahead: the hit was not held")
                continue
            }
            #expect(main == .play(holdMicros: 0, takeBack: takenBack ? [early] : []), "\(lead) ms ahead: \(main)")
        }
    }

    /// Before a pair is learned, a pad that has struck three times alone (a played pad) is judged
    /// by a prior of 0.2 (`playedPriorCoupling`), an idle pad by 0.3: a hit read at a quarter of
    /// a neighbour's strike struck with it plays on the played pad and is crosstalk on the idle
    /// one (both were crosstalk by the prior of 0.3).
    @Test func aPlayedPadIsJudgedByALowerPriorThanAnIdlePad() {
        for (played, plays) in [(true, true), (false, false)] {
            let player = Self.afterStrokesAlone(played ? 3 : 0)
            _ = player.hit("a", 2_000, 4)
            let stroke = player.hit("b", 2_001, 1.0)
            #expect((stroke != .crosstalk) == plays, "played \(played): \(stroke)")
        }
    }

    /// A pad whose strokes each come a few ms after a hit on a pad of another stand is still
    /// known as played once that pair has shown it cannot cause them (`causeMargin`): b strikes
    /// once alone (0.4 g, its softest), c's 24 g strikes go unanswered on b eight times (the
    /// pair bounded at about 3 × b's softest hit over 24 g, 0.05), then b strikes three times
    /// at 2 g, each 3 ms after an 8 g strike of c's. Those count as b's own strikes (twice what
    /// c could cause, 0.8 g, with b's softest hit added: 1.2 g), so b is known as played and
    /// judged by the played prior (0.2): its hit at a quarter of a's strike struck with it
    /// plays. Without the rule (0: any hit around keeps a strike from being alone) b has struck
    /// alone once, is not known as played, and the same hit is crosstalk by the prior of 0.3.
    @Test func aPadStruckJustAfterAnotherStandsHitsIsStillKnownAsPlayed() {
        for (causeMargin, plays) in [(2.0, true), (0.0, false)] {
            var configuration = StandModel.Configuration()
            configuration.causeMargin = causeMargin
            let player = Player(StandCrosstalk(model: StandModel(configuration)), slotMs: 0)
            _ = player.hit("b", 0, 0.4)
            for k in 1...8 { _ = player.hit("c", Double(k) * 300, 24) }
            for k in 9...11 {
                _ = player.hit("c", Double(k) * 300, 8)
                _ = player.hit("b", Double(k) * 300 + 3, 2.0)
            }
            _ = player.hit("a", 5_000, 8)
            let stroke = player.hit("b", 5_001, 2.0)
            #expect((stroke != .crosstalk) == plays, "margin \(causeMargin): \(stroke)")
        }
    }

    /// A pair whose answers read within a few per cent of each other (as a 100 Hz floortom reads
    /// a 1.6 kHz ride's crosstalk: within 1.3 × its median, the ride's strikes read truly) weighs
    /// a played receiver's hit against 1.6 × its coupling (`spreadFactor` × the answers' 90th
    /// percentile, at least `leastMargin`), not 2.5 ×: b's stroke struck with a's and read at
    /// 0.3 g (3 × what a's strike causes, 0.1 g, where 2.5 × and b's softest hit explain 0.35 g)
    /// plays. Without the rule it is cancelled, and so it is on a pad that has not played (an
    /// idle pad has no stroke to lose, and its rare loud crosstalk would play).
    @Test func aPairThatAnswersNarrowlyWeighsAPlayedPadsStrokeAgainstLessThanTheMargin() {
        for (played, spread, plays) in [(true, 1.5, true), (true, 0.0, false), (false, 1.5, false)] {
            var configuration = StandModel.Configuration()
            configuration.spreadFactor = spread
            let player = Player(StandCrosstalk(model: StandModel(configuration)), slotMs: 0)
            if played { for k in 0..<4 { _ = player.hit("b", Double(k) * 300, 1.0) } }
            for k in 0..<24 {  // a's 5 g strikes, each answered by b at 2 % ± 2.5 % of it
                let t = 2_000 + Double(k) * 250
                _ = player.hit("a", t, 5)
                _ = player.hit("b", t + 1, k % 2 == 0 ? 0.0975 : 0.1025)
            }
            _ = player.hit("a", 9_000, 5)
            let stroke = player.hit("b", 9_001, 0.3)
            #expect((stroke != .crosstalk) == plays, "played \(played), spread factor \(spread): \(stroke)")
            #expect(player.stands.model.couplings.count == 1)
        }
    }

    /// A stand that rings on long after a strike (`tools/corpus/stand --vary ringing`) can fire a
    /// pad 60-80 ms after a loud strike beside it, past the window and its 20 ms ring tail. On a
    /// pad that has played fewer than `unplayedHits` (5) hits a learned pair's tail lasts
    /// `unplayedRingTailMicros` (100 ms): its hit 70 ms after the strike is crosstalk. The pads
    /// (each taught that a's strikes reach it at 8 %, 1 ms later):
    /// - b, idle (every answer judged crosstalk on arrival): crosstalk;
    /// - c, struck alone 30 times: plays;
    /// - d4 and d5, struck only with a's strikes (never alone, so not known as played by their
    ///   soft strikes), 4 and 5 times: crosstalk, and plays;
    /// - e, idle, whose answers arrive before a's strikes, wait and are taken back (but the
    ///   first, before a is known, which plays): crosstalk;
    /// - b where the pair is not learned yet: plays (the prior must not reach so far into a
    ///   played pad's first strokes).
    /// A push b felt as late is not judged by the long tail: it stays a source, free to wait for a
    /// later cause. The stand's sway is off here (`swayCrosstalkShare`) but in the last case:
    /// with it, c's hit (a fifth of its soft strikes, within what the learned neighbour's sway
    /// could cause: 1.6 × 8 % × 1.6, the margin of its narrow spread, × 3 g × e^-0.47 ≈
    /// 0.38 g) is that sway's crosstalk (`StandSwayTests`); the rest is the long tail's test.
    @Test func aHardlyPlayedPadsHitInTheStandsLongRingingIsCrosstalk() {
        let cases: [(receiver: String, learned: Bool, plays: Bool, sway: Bool)] = [
            ("b", true, false, false), ("c", true, true, false), ("d4", true, false, false), ("d5", true, true, false),
            ("e", true, false, false), ("b", false, true, false), ("c", true, false, true),
        ]
        for (receiver, learned, plays, sway) in cases {
            var configuration = StandModel.Configuration()
            if !sway { configuration.swayCrosstalkShare = 0 }
            let stands = StandCrosstalk(model: StandModel(configuration))
            var id: UInt32 = 0
            func hit(_ pad: String, _ ms: Double, _ strength: Double, arrives: Double? = nil) -> StandCrosstalk.Decision {
                id += 1
                return Self.decide(stands, pad, ms, strength, id: id, arrivalMs: arrives, rateHz: 100)
            }
            if learned {
                for k in 0..<30 {
                    let t = Double(k) * 250
                    if receiver == "e" {
                        _ = hit("e", t + 1, 0.24)
                        _ = hit("a", t, 3, arrives: t + 11)
                    } else {
                        _ = hit("a", t, 3)
                        _ = hit(receiver, t + 1, 0.24)
                        if receiver == "c" { _ = hit("c", t + 125, 1.0) }
                    }
                }
                for k in 0..<(receiver == "d4" ? 4 : receiver == "d5" ? 5 : 0) {
                    let t = 8_000 + Double(k) * 250
                    _ = hit("a", t, 3)
                    #expect(hit(receiver, t + 2, 1.5) != .crosstalk, "\(receiver)'s stroke \(k)")
                }
            }
            _ = hit("a", 10_000, 3)
            let late = hit(receiver, 10_070, 0.2)
            #expect((late != .crosstalk) == plays, "\(receiver), learned \(learned), sway \(sway): \(late)")
            if receiver == "b" && learned {
                id += 1
                let push = stands.decide(padKey: "b", rateHz: 100, strikeMicros: 10_075_000, arrivalMicros: 10_075_000,
                                         strength: 0.2, id: id, felt: true)
                #expect(push == .felt(takeBack: []) && stands.model.recentIsSource(id: id), "\(push)")
            }
        }
    }

    /// A hit of no strength (a bare `/drum/hit`, or one a pad zeroed) in a strike's window is no
    /// answer: as a ratio of 0 it would pin the pair's median there (its steps are shares of
    /// itself), a learned coupling of 0 that cancels nothing.
    @Test func aHitOfNoStrengthTeachesNoCoupling() {
        let stands = StandCrosstalk()
        var id: UInt32 = 0
        Self.teach(stands, "a", "b", strikes: 30, strength: 3, answer: 0, id: &id)
        #expect(stands.model.couplings.isEmpty, "\(stands.model.couplings)")
    }

    /// A pair learned from its first few responses counts for no more than the prior until it has
    /// answered `trustedResponses` (5) strikes: those responses may be the receiver's own strokes,
    /// struck with the source's before its own strikes were known (a ride keeping 8ths with the
    /// racktom). Three such answers at 20 % of the source's strikes make a learned coupling of
    /// 0.5, over the prior of 0.3; the pad's next stroke, struck with the source's and read at
    /// 40 % of it, plays. After six answers the pair is trusted, and the same stroke is its
    /// crosstalk.
    @Test func aPairLearnedFromFewResponsesCountsForNoMoreThanThePrior() {
        for (answers, plays) in [(3, true), (6, false)] {
            let stands = StandCrosstalk()
            var id: UInt32 = 0
            id += 1
            _ = Self.decide(stands, "b", 0, 0.1, id: id)  // a soft stroke of b's alone: its softest hit
            Self.teach(stands, "a", "b", strikes: answers, strength: 4, answer: 0.8, from: 1_000, id: &id)
            let at = 1_000 + Double(answers) * 250 + 500
            id += 1
            _ = Self.decide(stands, "a", at, 4, id: id)
            id += 1
            let stroke = Self.decide(stands, "b", at + 1, 1.6, id: id)
            #expect((stroke != .crosstalk) == plays, "\(answers) answers: \(stroke)")
        }
    }

    /// A brain playing hundreds of pads judges a kit's worth and lets the rest play at once.
    @Test func padsBeyondAKitsWorthPlayUndecided() {
        let stands = StandCrosstalk()
        for k in 0..<StandModel.maxPads { _ = Self.decide(stands, "pad-\(k)", Double(k), 3, id: UInt32(k + 1)) }
        // A weak hit right after a loud one: crosstalk for a judged pad, played for one beyond.
        #expect(Self.decide(stands, "pad-0", 40, 3, id: 100) != .crosstalk)
        #expect(Self.decide(stands, "pad-1", 41, 0.5, id: 101) == .crosstalk)
        #expect(Self.decide(stands, "pad-extra", 41, 0.5, id: 102) == .play(holdMicros: 0, takeBack: []))
    }
}

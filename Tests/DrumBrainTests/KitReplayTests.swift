@testable import BrainCore
import HitDetect
import Testing
import TestSupport

/// `KitReplay`, the offline brain, on the simulated stand `Tests/Fixtures/stands/kit4-seed101`.
struct KitReplayTests {
    static let folder = KitReplayCommandTests.folder

    /// A pad whose drum the kit lacks still shakes its stand, and its hits are judged as any
    /// pad's: the stands decide every hit exactly as when the kit has all four drums, the hits
    /// of drums it lacks only failing to sound. (Before, every such hit reached the stands under
    /// the one number 0, so taking one back as crosstalk marked them all; with only the snare in
    /// the kit, 1 hit was decided otherwise.)
    @Test func padsOnDrumsTheKitLacksAreJudgedAsAnyPad() throws {
        let pads = try KitReplayCommandTests.pads.map { name in
            let found = try PadLogDetection.detect(path: Self.folder + name + ".csv", kind: .adaptive)
            return KitReplay.Pad(name: name, drum: name, rateHz: found.rateHz, hits: found.hits)
        }
        let whole = KitReplay.run(pads, drums: KitReplayCommandTests.pads)
        let snareOnly = KitReplay.run(pads, drums: ["snare"])
        #expect(whole.decisions.count == snareOnly.decisions.count)
        let outcomes = whole.decisions.map(\.outcome)
        #expect(outcomes.contains("crosstalk") && outcomes.contains("played") && !outcomes.contains("unknown_drum"))
        var differ = 0
        for (a, b) in zip(whole.decisions, snareOnly.decisions) {
            #expect(a.pad == b.pad && a.time == b.time)
            // A hit the kit cannot sound is never queued, so it cannot be taken back either.
            let expected = a.pad != 0 && ["played", "held", "taken_back"].contains(a.outcome) ? "unknown_drum" : a.outcome
            if b.outcome != expected { differ += 1 }
        }
        #expect(differ == 0, "\(differ) of \(whole.decisions.count) hits decided otherwise")
        #expect(snareOnly.played.allSatisfy { $0.pad == 0 } && snareOnly.played.count == whole.played.count { $0.pad == 0 })
    }

    /// The idle phone ride of a simulated phone stand (`kit4-seed304`, 34 s) plays nothing: the
    /// snare's phone read a 13.6 g backbeat at 31.68 s at 1.29 g and the ride its crosstalk at
    /// 0.19 g, 15 % of the reading (the stand: 7.4 %), which the ride, having played no hit, takes
    /// against the snare's loud level (`loudBeforeFirstHit`). With the rule off it plays that hit;
    /// the played pads lose at most two hits to it (its cost: a pad's first strokes struck with a
    /// loud one's; on this stand, none). The pads detect without the rebound test's stricter
    /// share until a loud hit (`slowReboundUntilLoud`), which feels that crosstalk at the ride
    /// already (`QuietPushTests`), so that the brain's rule still has it to judge.
    @Test func anIdlePadOfTheSameRateTakesALoudStrikeReadLowAtItsLoudLevel() throws {
        let folder = Program.repositoryRoot + "/Tests/Fixtures/stands/kit4-seed304/"
        let names = ["snare", "racktom", "floortom", "ride"]
        var lenient = AdaptiveDetector.Configuration()
        lenient.slowReboundUntilLoud = 0
        let pads = try names.map { name in
            let found = try PadLogDetection.detect(path: folder + name + ".csv", kind: .adaptive, adaptive: lenient)
            return KitReplay.Pad(name: name, drum: name, rateHz: found.rateHz, hits: found.hits)
        }
        var played: [[Double]] = []
        for rule in [true, false] {
            var configuration = StandModel.Configuration()
            configuration.loudBeforeFirstHit = rule
            let result = KitReplay.run(pads, drums: names, stands: StandCrosstalk(model: StandModel(configuration)))
            let ride = result.played.filter { $0.pad == 3 }.map(\.time)
            #expect(rule ? ride.isEmpty : ride.count == 1 && abs(ride[0] - 31.677) < 0.01, "rule \(rule): the ride played \(ride)")
            played.append(result.played.filter { $0.pad != 3 }.map(\.time))
        }
        #expect(Set(played[1]).subtracting(played[0]).count <= 2 && Set(played[0]).isSubset(of: Set(played[1])) && played[0].count > 150,
                "\(played[0].count) and \(played[1].count) hits played")
    }

    /// Every pad says hello as the replay begins, as live: the first strike of a 100 Hz pad,
    /// arriving 25 ms after it, takes back a 1.6 kHz pad's crosstalk of it that arrived 20 ms
    /// earlier, which waited in its slot for a pad the brain knew of.
    @Test func everyPadIsKnownFromTheStart() {
        let slow = KitReplay.Pad(name: "snare-pad", drum: "snare", rateHz: 100,
                                 hits: [.init(time: 1.0, arrival: 1.025, velocity: 1, strength: 2.5)])
        let fast = KitReplay.Pad(name: "tom-pad", drum: "racktom", rateHz: 1_600,
                                 hits: [.init(time: 1.0, arrival: 1.0045, velocity: 0.3, strength: 0.4)])
        let result = KitReplay.run([slow, fast], drums: ["snare", "racktom"])
        #expect(result.decisions.map(\.outcome) == ["taken_back", "played"], "\(result.decisions)")
        #expect(result.played.map(\.pad) == [0] && result.played.allSatisfy { $0.delayMs == 0 })
    }
}

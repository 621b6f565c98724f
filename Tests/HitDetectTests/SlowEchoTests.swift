@testable import HitDetect
import Testing

/// The slow echo test (`AdaptiveDetector.Configuration.slowEchoShare`): under about 170 Hz a
/// candidate whose onset lies within the mask of the pad's last hit from rest, and weaker than
/// 0.7 of it, is that hit's ringing.
struct SlowEchoTests {
    /// The independent phone seed 1 snare (`Tests/Fixtures/independent`, 26 s at 100 Hz, its mount
    /// ringing at 22 Hz over 130 ms and a second mode at 65 Hz): without the test a swing of the
    /// ringing fired four samples after the hits of three of its strokes (13.412, 20.791 and
    /// 24.932 s; 43-46 ms after each), its onset within that hit's mask, at 0.41-0.51 of it. With
    /// it those three are gone, every other hit is as before (times and strengths), and no
    /// stroke is lost. At a share of 0.4 the swings at 0.41 and over fire again.
    @Test func aMountsSwingWithinTheMaskOfALoudHitDoesNotFire() throws {
        let strikes = try MountRingingTests.strikeTimes("independent/phone-s1-snare.truth.csv")
        let judge = MountRingingTests.Judge(strikes: strikes)
        let with = try MountRingingTests.fixtureRun("phone-s1-snare.csv", folder: "independent")
        let without = try MountRingingTests.fixtureRun("phone-s1-snare.csv", folder: "independent") { $0.slowEchoShare = 0 }
        let echoes = without.filter { hit in !with.contains { $0.time == hit.time } }
        #expect(echoes.count == 3, "\(echoes)")
        for echo in echoes {
            // Each lies 40-47 ms after a true stroke, explains none, and is under 0.7 of the hit
            // before it, four samples on (45 ms from the chain's first sample ends there).
            let stroke = strikes.filter { $0 < echo.time }.max() ?? -1
            #expect(echo.time - stroke > 0.040 && echo.time - stroke < 0.047, "\(echo) after \(stroke)")
            #expect(judge.unexplained([echo.time]) == [echo.time])
            let before = without.filter { $0.time < echo.time }.last
            #expect(before.map { echo.index - $0.index == 4 && echo.strength < 0.7 * $0.strength } ?? false, "\(echo), \(String(describing: before))")
        }
        #expect(without.filter { hit in !echoes.contains { $0.time == hit.time } } == with, "every other hit as before")
        #expect(judge.notFound(with.map(\.time)) == judge.notFound(without.map(\.time)))
        #expect(judge.unexplained(with.map(\.time)).count == judge.unexplained(without.map(\.time)).count - 3)
        let lower = try MountRingingTests.fixtureRun("phone-s1-snare.csv", folder: "independent") { $0.slowEchoShare = 0.4 }
        #expect(echoes.allSatisfy { echo in lower.contains { $0.time == echo.time } }, "\(lower.filter { $0.index > 1300 && $0.index < 1350 })")
    }
}

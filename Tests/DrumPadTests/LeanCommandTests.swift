#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// The lean test (the adaptive detector reading x and y too) wherever a pad's log or sensor
/// goes: `drumpad replay`, `drumbrain replay` and `drumpad run --replay`. The log is
/// `LeaningPad`'s: 22 strikes along the pad's way, and 12 shakes through its stand, just as
/// strong and shaped in z, along another.
struct LeanCommandTests {
    static let pad = LeaningPad(rate: 250)
    static let strikes = pad.loud + pad.count

    @Test func everyCommandReadsTheOtherAxes() {
        let path = Program.temporaryFile(Self.pad.log())
        let zAlone = Program.temporaryFile(Self.pad.log(withXY: false))
        defer { unlink(path); unlink(zAlone) }
        // drumpad replay: the shakes are felt, not hits; from z alone they play.
        let replay = Program.run("drumpad", ["replay", path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.split(separator: "\n").count - 1 == Self.strikes, "\(replay.stdout)")
        #expect(replay.stderr.contains("\(Self.strikes) hits; \(Self.pad.count) pushes felt through the stand"), "\(replay.stderr)")
        let alone = Program.run("drumpad", ["replay", zAlone])
        #expect(alone.stdout.split(separator: "\n").count - 1 == Self.strikes + Self.pad.count, "\(alone.stdout)")
        // drumbrain replay: the same detection.
        let dir = "/tmp/drumtest-lean-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let brain = Program.run("drumbrain", ["replay", path, "--hits-dir", dir])
        #expect(brain.status == 0, "\(brain.stderr)")
        let stem = String(path.split(separator: "/").last!.split(separator: ".").first!)
        let played = Program.contents("\(dir)/\(stem).hits.csv").split(separator: "\n").count - 1
        #expect(played == Self.strikes, "\(brain.stderr)")
        // drumpad run --replay (the live pad's reading loop), playing locally.
        let wav = "/tmp/drumtest-lean-\(getpid()).wav"
        defer { unlink(wav) }
        let run = Program.run("drumpad", ["run", "--drum", "snare", "--replay", path, "--brain", "127.0.0.1:9",
                                          "--wait-for-brain", "0", "--local", "--local-output", "wav:\(wav)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("\(Self.strikes) played locally"), "\(run.stderr)")
    }
}

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
        #expect(alone.status == 0, "\(alone.stderr)")
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

    /// The pad's strike axis in the log's x column (`--axis x`): the other two (y and z) are what
    /// the lean test reads, and it finds the same. The shakes here differ from the strikes in
    /// the old y alone, so a reading that lost it (or read the strike axis twice) would not.
    @Test func theAxisReadIsTheOneTheOthersAreAcross() {
        var pad = Self.pad
        pad.standWay = (pad.strikeWay.x, 0.3)
        // Under the header t,x,y,z: the strike axis (z) under x, the old x under y, the old y under z.
        let rows = pad.log().split(separator: "\n").map { line -> String in
            guard !line.hasPrefix("#"), !line.hasPrefix("t,") else { return String(line) }
            let f = line.split(separator: ",")
            return [f[0], f[3], f[1], f[2]].joined(separator: ",")
        }
        let path = Program.temporaryFile(rows.joined(separator: "\n") + "\n")
        defer { unlink(path) }
        let replay = Program.run("drumpad", ["replay", path, "--axis", "x"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("\(Self.strikes) hits; \(Self.pad.count) pushes felt through the stand"), "\(replay.stderr)")
    }

    /// An x or y that does not parse only leaves the lean test without it: the row's z is read
    /// (the contract's x and y are optional), and nothing is lost.
    @Test func aBadXOrYIsNotABadRow() {
        var lines = Self.pad.log().split(separator: "\n").map(String.init)
        var spoiled = 0
        for k in lines.indices where !lines[k].hasPrefix("#") && !lines[k].hasPrefix("t,") && k % 50 == 0 {
            var f = lines[k].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            f[k % 100 == 0 ? 1 : 2] = k % 100 == 0 ? "" : "nan"
            lines[k] = f.joined(separator: ",")
            spoiled += 1
        }
        #expect(spoiled > 20)
        let path = Program.temporaryFile(lines.joined(separator: "\n") + "\n")
        defer { unlink(path) }
        let replay = Program.run("drumpad", ["replay", path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stdout.split(separator: "\n").count - 1 == Self.strikes, "\(replay.stdout)")
        let dir = "/tmp/drumtest-lean-bad-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let brain = Program.run("drumbrain", ["replay", path, "--hits-dir", dir])
        #expect(brain.status == 0, "\(brain.stderr)")
        // With --axis x, x is the axis read: a bad one is a bad row, named.
        let strict = Program.run("drumpad", ["replay", path, "--axis", "x"])
        #expect(strict.status != 0 && strict.stderr.contains(#/:\d+: column "[xy]": /#), "\(strict.stderr)")
    }
}

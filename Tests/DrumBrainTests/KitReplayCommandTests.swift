#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// `drumbrain replay` on a simulated stand (`Tests/Fixtures/stands/kit4-seed101`: four pads on
/// one stand, 250 Hz, three played, the ride never struck; every strike reaches the other pads
/// at 3–10 % of its strength). The brain learns the stand from the playing: every strike plays
/// on its pad, and the idle ride, whose detector fires on 33 of its neighbours' strikes (and
/// feels 15 more as pushes through the stand), plays none of them (2 at most allowed).
struct KitReplayCommandTests {
    static let folder = Program.repositoryRoot + "/Tests/Fixtures/stands/kit4-seed101/"
    static let pads = ["snare", "racktom", "floortom", "ride"]

    /// The hits of `pad` in a hits folder, and the file's header.
    static func hits(_ dir: String, _ pad: String) -> (header: String, times: [Double], delays: [Double]) {
        let lines = Program.contents("\(dir)/\(pad).hits.csv").split(separator: "\n").map(String.init)
        let rows = lines.dropFirst().map { $0.split(separator: ",").compactMap { Double($0) } }
        return (lines.first ?? "", rows.map { $0[0] }, rows.map { $0[3] })
    }

    /// The true strikes of `pad` (its labels).
    static func strikes(_ pad: String) -> [Double] {
        Program.contents(folder + "\(pad).labels.csv").split(separator: "\n").dropFirst()
            .compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
    }

    func replay(_ extra: [String]) -> (dir: String, stderr: String, status: Int32) {
        let dir = "/tmp/drumtest-replay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let run = Program.run("drumbrain", ["replay"] + Self.pads.map { Self.folder + $0 + ".csv" }
                              + ["--hits-dir", dir, "--detector", "adaptive"] + extra)
        return (dir, run.stderr, run.status)
    }

    @Test func theStandIsLearnedAndEveryStrikePlaysOnItsPad() {
        let run = replay([])
        #expect(run.status == 0, "\(run.stderr)")
        var found = 0, total = 0
        for pad in Self.pads {
            let played = Self.hits(run.dir, pad)
            #expect(played.header == "t,velocity,strength,delay_ms")
            let strikes = Self.strikes(pad)
            total += strikes.count
            found += strikes.filter { s in played.times.contains { abs($0 - s) <= 0.010 } }.count
            // Held only for crosstalk that may be explained: at most one 250 Hz period + 1 ms.
            #expect(played.delays.allSatisfy { $0 >= 0 && $0 <= 5.0 }, "\(pad): \(played.delays)")
        }
        #expect(total == 78 && found == total, "\(found) of \(total) strikes played")
        let ride = Self.hits(run.dir, "ride").times.count
        #expect(ride <= 2, "the idle ride played \(ride) hits")
        #expect(run.stderr.contains("share a stand"), "\(run.stderr)")
        #expect(run.stderr.contains("pad ride: \(ride) played"), "\(run.stderr)")
        // Some of the cancelled hits were a 250 Hz pad firing on the stand's sway (past a learned
        // neighbour's window), counted apart; every strike still played, above.
        #expect(run.stderr.contains(#/: [1-9]\d* of the hits cancelled were a stand's sway/#), "\(run.stderr)")
        // And some were too weak for a stroke at 250 Hz (`leastStrokeG`), counted apart too.
        #expect(run.stderr.contains(#/: [1-9]\d* of the hits cancelled were too weak for a stroke at their pad's rate: under 0\.30 g/#),
                "\(run.stderr)")
    }

    /// The same logs with a crosstalk group of drums the kit lacks (so nothing is cancelled):
    /// each played pad then plays every hit its detector fired, its neighbours' crosstalk with
    /// them (53 hits past the 78 strikes on this log), which shows what the learning removes.
    /// The idle ride's detector feels all of its crosstalk as pushes through the stand (it has
    /// never been played: the felt ceiling), and those never play.
    @Test func withoutTheLearnedStandsThePlayedPadsPlayTheirNeighboursCrosstalk() {
        let run = replay(["--crosstalk-group", "gong,cowbell"])
        #expect(run.status == 0, "\(run.stderr)")
        var extra = 0
        for pad in Self.pads where pad != "ride" {
            let played = Self.hits(run.dir, pad).times.count
            extra += played - Self.strikes(pad).count
            // Exactly the hits its detector fired.
            #expect(run.stderr.contains("\(pad).csv: 5000 samples (250.0 Hz), \(played) hits by the adaptive detector"),
                    "\(run.stderr)")
            #expect(run.stderr.contains("pad \(pad): \(played) played, 0 cancelled as crosstalk"), "\(run.stderr)")
        }
        #expect(extra >= 40, "\(extra) hits past the strikes")
        #expect(Self.hits(run.dir, "ride").times.isEmpty)
        #expect(run.stderr.contains(#/pad ride: 0 played, 0 cancelled as crosstalk, [1-9]\d* pushes felt through the stand/#),
                "\(run.stderr)")
        #expect(!run.stderr.contains("a stand's sway"), "\(run.stderr)")
        #expect(!run.stderr.contains("too weak for a stroke"), "\(run.stderr)")
    }

    /// `drumbrain replay stand/*.csv` on a folder that also holds each pad's labels: the labels
    /// are skipped and said, and the pads play exactly as when given alone.
    @Test func labelsBesideTheLogsAreSkippedAndSaid() throws {
        let all = try FileManager.default.contentsOfDirectory(atPath: Self.folder).filter { $0.hasSuffix(".csv") }.sorted()
        #expect(all.count == 2 * Self.pads.count)
        let dir = "/tmp/drumtest-replay-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let run = Program.run("drumbrain", ["replay"] + all.map { Self.folder + $0 } + ["--hits-dir", dir])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("snare.labels.csv: skipped: not a sensor log"), "\(run.stderr)")
        let alone = replay([])
        for pad in Self.pads {
            #expect(Program.contents("\(dir)/\(pad).hits.csv") == Program.contents("\(alone.dir)/\(pad).hits.csv"), "\(pad)")
        }
        let none = Program.run("drumbrain", ["replay", Self.folder + "snare.labels.csv"])
        #expect(none.status != 0 && none.stderr.contains("the file given is not a sensor log"), "\(none.stderr)")
    }

    /// The records of a CSV text as the replay writes it (each record ends in a line feed; a
    /// quoted field may hold commas, doubled quotes and line breaks), read by Unicode scalar.
    static func csvRecords(_ text: String) -> [[String]] {
        var records: [[String]] = [], record: [String] = [], field = String.UnicodeScalarView()
        var quoted = false, wasQuote = false
        for scalar in text.unicodeScalars {
            if quoted {
                if scalar == "\"" { quoted = false; wasQuote = true } else { field.append(scalar) }
                continue
            }
            switch scalar {
            case "\"":
                if wasQuote { field.append(scalar) }
                quoted = true
            case ",": record.append(String(field)); field = .init()
            case "\n": record.append(String(field)); records.append(record); record = []; field = .init()
            default: field.append(scalar)
            }
            wasQuote = false
        }
        if !field.isEmpty || !record.isEmpty { record.append(String(field)); records.append(record) }
        return records
    }

    /// A pad is named by its log's file name, which may hold a line break, a tab, a quote or a
    /// comma (one followed by a combining mark too): every message and error stays one line, the
    /// name escaped as a name (`\x0A`, `\x09`, `\"`), and the decisions file quotes it, so each
    /// of its records has its six fields. Before, the name's line break started a line of its
    /// own on standard error and in the decisions file.
    @Test func aPadsFileNameWithALineBreakOrACommaForgesNoLineAndNoField() throws {
        let folder = "/tmp/drumtest-names-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder + "/again", withIntermediateDirectories: true)
        let names = ["snare": "sn\nare", "racktom": "rack,tom", "floortom": "floor\"\ttom", "ride": "ri,\u{301}de"]
        for (pad, name) in names {
            try Program.contents(Self.folder + pad + ".csv").write(toFile: "\(folder)/\(name).csv", atomically: true, encoding: .utf8)
        }
        let dir = folder + "/hits", decisions = folder + "/decisions.csv"
        let run = Program.run("drumbrain", ["replay"] + names.values.sorted().map { "\(folder)/\($0).csv" }
                              + ["--hits-dir", dir, "--decisions", decisions])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count > 8 && lines.allSatisfy { $0.hasPrefix("drumbrain replay: ") }, "\(run.stderr)")
        for shown in ["pad sn\\x0Aare: ", "pad rack,tom: ", "pad floor\\\"\\x09tom: ", "pad \"sn\\x0Aare\" playing snare"] {
            #expect(run.stderr.contains(shown), "\(shown) in \(run.stderr)")
        }
        let records = Self.csvRecords(Program.contents(decisions))
        #expect(records.first == ["pad", "t", "arrival", "strength", "outcome", "hold_ms"])
        #expect(records.count > 150 && records.allSatisfy { $0.count == 6 }, "\(records.filter { $0.count != 6 }.prefix(3))")
        #expect(Set(records.dropFirst().map { $0[0] }) == Set(names.values), "\(Set(records.dropFirst().map { $0[0] }))")
        for name in names.values {
            #expect(Self.hits(dir, name).times.count > (name.hasPrefix("ri") ? -1 : 10), "\(name)")
        }
        // Errors too: two logs of one name, and a log's bad row, each on one line.
        try Program.contents(Self.folder + "snare.csv").write(toFile: "\(folder)/again/sn\nare.csv", atomically: true, encoding: .utf8)
        let twice = Program.run("drumbrain", ["replay", "\(folder)/sn\nare.csv", "\(folder)/again/sn\nare.csv"])
        #expect(twice.status != 0 && twice.stderr.contains("the same name (sn\\x0Aare, sn\\x0Aare)"), "\(twice.stderr)")
        try "t,z\n1,x\n".write(toFile: "\(folder)/again/b\nad.csv", atomically: true, encoding: .utf8)
        let bad = Program.run("drumbrain", ["replay", "\(folder)/again/b\nad.csv"])
        #expect(bad.status != 0 && bad.stderr.contains("again/b\\x0Aad.csv:2: "), "\(bad.stderr)")
    }

    /// Logs named pad1.csv … pad4.csv with only the contract's three comment lines (no `# drum:`,
    /// so no drum the kit has): every pad is still decided, and each pad's hits are exactly those
    /// of the same log named by its drum. (Before, such pads wrote empty hits files, and the
    /// stands' model saw every hit of theirs under one number.)
    @Test func padsNamedForNoDrumAreDecidedAsAnyPad() throws {
        let plain = "/tmp/drumtest-plain-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: plain, withIntermediateDirectories: true)
        for (n, pad) in Self.pads.enumerated() {
            let lines = Program.contents(Self.folder + pad + ".csv").split(separator: "\n", omittingEmptySubsequences: false)
            let kept = lines.filter { !$0.hasPrefix("#") || $0.hasPrefix("# drumpad sensor log") || $0.hasPrefix("# rate_hz")
                || $0.hasPrefix("# device") }
            #expect(!kept.contains { $0.hasPrefix("# drum:") } && kept.count > 5000)
            try kept.joined(separator: "\n").write(toFile: "\(plain)/pad\(n + 1).csv", atomically: true, encoding: .utf8)
        }
        let dir = plain + "/hits"
        let run = Program.run("drumbrain", ["replay"] + (1...4).map { "\(plain)/pad\($0).csv" }
                              + ["--hits-dir", dir, "--detector", "adaptive", "--out", plain + "/kit.wav"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("has no drum pad1: the pad's hits are decided and written"), "\(run.stderr)")
        #expect(run.stderr.contains("0 hits rendered to \(plain)/kit.wav ("), "\(run.stderr)")
        let named = replay([])
        for (n, pad) in Self.pads.enumerated() {
            let mine = Program.contents("\(dir)/pad\(n + 1).hits.csv")
            #expect(mine == Program.contents("\(named.dir)/\(pad).hits.csv"), "pad\(n + 1) is \(pad)")
            #expect(mine.split(separator: "\n").count > (pad == "ride" ? 0 : 10), "pad\(n + 1): \(mine)")
        }
    }

    @Test func badInputIsAClearError() {
        let missing = Program.run("drumbrain", ["replay", "/nonexistent/pad.csv"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent/pad.csv"), "\(missing.stderr)")
        let twice = Program.run("drumbrain", ["replay", Self.folder + "snare.csv", "/tmp/snare.csv"])
        #expect(twice.status != 0 && twice.stderr.contains("same name"), "\(twice.stderr)")
    }

    /// What a replay learned is kept with --stand-state and read back by the next replay and by
    /// a live brain, which lists it at its end and keeps it again.
    @Test func theStandsLearnedAreKeptAndReadBack() throws {
        let state = "/tmp/drumtest-state-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/stands"
        let first = replay(["--stand-state", state])
        #expect(first.status == 0, "\(first.stderr)")
        let kept = Program.contents(state)
        #expect(kept.hasPrefix("# drumbrain stands v1\n") && kept.contains("pair\tsnare\tride\t"), "\(kept)")
        let second = replay(["--stand-state", state])
        #expect(second.stderr.contains("drumbrain: stands from \(state): 9 pairs of pads coupled"), "\(second.stderr)")
        // A replay without it starts from nothing and keeps nothing.
        let fresh = replay([])
        #expect(!fresh.stderr.contains("stands from"))
        // A live brain reads it, lists it when it stops, and keeps it.
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(freePort())",
                                                    "--output", "null", "--no-visual", "--stand-state", state]))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        #expect(brain.stop(signal: SIGINT) == 0)
        #expect(brain.output.contains("stands from \(state): 9 pairs"), "\(brain.output)")
        // What it lists is what was learned: the fixture's truth is 6.6 % (stand.json).
        let listed = brain.output.split(separator: "\n").first { $0.contains("stand: ride feels ") && $0.contains("% of snare's strikes") }
        let percent = listed.flatMap { Double($0.split(separator: "ride feels ")[1].split(separator: " ")[0]) }
        #expect(percent.map { (4.5...10).contains($0) } == true, "\(brain.output)")
        #expect(Program.contents(state).hasPrefix("# drumbrain stands v1\npair\t"))
    }
    /// An evemu recording replays as `drumpad replay` reads it (the issue's "CSV or evemu"):
    /// the same hits at the same times (drumpad's `struck`, the time a live pad sends), beside a
    /// CSV log on the one clock; before, it was read as a CSV and refused ("no t column").
    @Test func anEvemuRecordingReplaysAsDrumpadReadsIt() {
        let recording = Program.repositoryRoot + "/Tests/Fixtures/evdev/strikes.evemu"
        let pad = Program.run("drumpad", ["replay", recording])
        #expect(pad.status == 0, "\(pad.stderr)")
        let expected = pad.stdout.split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[4]) }
        #expect(expected.count >= 10)
        let dir = "/tmp/drumtest-evemu-\(getpid())"
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        let run = Program.run("drumbrain", ["replay", recording, Program.repositoryRoot + "/Samples/logs/snare-250hz.csv", "--hits-dir", dir])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("strikes.evemu: 1250 samples (250.0 Hz), \(expected.count) hits"), "\(run.stderr)")
        let times = Program.contents("\(dir)/strikes.hits.csv").split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
        #expect(times == expected)
        #expect(Program.contents("\(dir)/snare-250hz.hits.csv").split(separator: "\n").count > 40)
        // Told apart by its first line too, whatever its name.
        _ = Program.runTool("cp", [recording, "\(dir)/pad.rec"])
        let named = Program.run("drumbrain", ["replay", "\(dir)/pad.rec", "--hits-dir", "\(dir)/byContent"])
        #expect(named.status == 0, "\(named.stderr)")
        let byContent = Program.contents("\(dir)/byContent/pad.hits.csv").split(separator: "\n").dropFirst().map { String($0.split(separator: ",")[0]) }
        #expect(byContent == expected)
    }

    /// A log named for more than its drum (`groove-kick-250hz.csv`, as the bundled logs are)
    /// plays the kit's drum its name holds as a word; the longest such name where several fit.
    /// Before, every bundled log's pad played a drum the kit lacks: a silent WAV.
    @Test func aPadPlaysTheDrumItsFileNameHoldsAsAWord() {
        let dir = "/tmp/drumtest-named-\(getpid())"
        mkdir(dir, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        let logs = ["kick", "snare", "hihat"].map { Program.repositoryRoot + "/Samples/logs/groove-\($0)-250hz.csv" }
        let run = Program.run("drumbrain", ["replay"] + logs + ["--out", dir + "/groove.wav"])
        #expect(run.status == 0, "\(run.stderr)")
        for drum in ["kick", "snare", "hihat"] {
            #expect(run.stderr.contains("pad \"groove-\(drum)-250hz\" playing \(drum)"), "\(run.stderr)")
        }
        #expect(!run.stderr.contains("left silent") && !run.stderr.contains("has no drum"), "\(run.stderr)")
        // A kit with hat and hat-closed: a log named pad_hat-closed.csv plays hat-closed; one
        // whose name holds no drum as a word (tomato.csv: tom only inside a word) plays its stem.
        let kit = dir + "/kit"
        mkdir(kit, 0o755)
        for name in ["hat", "hat-closed", "tom"] { _ = Program.runTool("cp", [Program.repositoryRoot + "/Samples/kit/snare.wav", "\(kit)/\(name).wav"]) }
        FileManager.default.createFile(atPath: kit + "/kit.json", contents: Data(#"{"name": "hats", "drums": [{"name": "hat", "sample": "hat.wav"}, {"name": "hat-closed", "sample": "hat-closed.wav"}, {"name": "tom", "sample": "tom.wav"}]}"#.utf8))
        for (name, drum) in [("pad_hat-closed", "hat-closed"), ("tomato", "tomato")] {
            _ = Program.runTool("cp", [logs[1], "\(dir)/\(name).csv"])
            let named = Program.run("drumbrain", ["replay", "\(dir)/\(name).csv", "--kit", kit])
            #expect(named.stderr.contains("pad \"\(name)\" playing \(drum)"), "\(named.stderr)")
        }
    }
}

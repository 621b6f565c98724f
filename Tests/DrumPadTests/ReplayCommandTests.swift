import Foundation
import HitDetect
import Testing
import TestSupport

/// `drumpad replay` run as a program, as a user runs it (docs/architecture.md, `drumpad replay` output, §12).
struct ReplayCommandTests {
    static let sample = "Samples/logs/snare-250hz.csv"

    /// The bundled log's samples and labels, read with the library.
    static func sampleLog() throws -> SensorBatch {
        let text = Program.contents(Program.repositoryRoot + "/" + sample)
        return try readLogText(text)
    }

    static func readLogText(_ text: String) throws -> SensorBatch {
        var reader = SensorLogReader(fileName: "x")
        var batch = SensorBatch()
        _ = try Array(text.utf8).withUnsafeBytes { try reader.read($0, isEnd: true, into: &batch) }
        return batch
    }

    static func hitRows(_ stdout: String) -> [[Substring]] {
        stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",") }
    }

    @Test func findsEveryLabelledStrikeInTheBundledLog() throws {
        let run = Program.run("drumpad", ["replay", Self.sample, "--detector", "card"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first == "index,t,strength,velocity,struck")
        let log = try Self.sampleLog()
        let rows = Self.hitRows(run.stdout)
        #expect(rows.count == log.labelled.count && rows.count > 20)
        // Each hit's index names the row whose time it reports, and that row is labelled.
        for row in rows {
            let index = Int(row[0])!
            #expect(DecimalFormatting.string(log.time[index], decimals: 6) == String(row[1]))
            #expect(log.labelled.contains(index))
            let strength = Double(row[2])!
            let delta = log.z[index] - log.z[index - 1]
            #expect(abs(strength - delta * delta) < 1e-12)
            #expect((0.0...1.0).contains(Double(row[3])!))
        }
        #expect(run.stderr.contains("5000 samples over 19.996 s (~250.0 Hz)"))
        #expect(run.stderr.contains("\(rows.count) of \(rows.count) strikes found, 0 false hits"))
    }

    /// With the default detector too, `t` is the time of the row `index` (the contract:
    /// `tools/plot` checks it, and refused these hits while `t` carried the detector's sub-sample
    /// dating), and `struck`, when the detector dates the strike, lies within half a sample period
    /// of it.
    @Test func theDefaultDetectorsTIsItsRowsTimeAndStruckWithinHalfAPeriod() throws {
        for (path, period) in [(Self.sample, 0.004), ("Tests/Fixtures/stands/kit4-seed9/snare.csv", 0.01)] {
            let run = Program.run("drumpad", ["replay", Program.repositoryRoot + "/" + path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.split(separator: "\n").first == "index,t,strength,velocity,struck")
            let log = try Self.readLogText(Program.contents(Program.repositoryRoot + "/" + path))
            let rows = Self.hitRows(run.stdout)
            #expect(rows.count >= 5, "\(path): \(rows.count) hits")
            var dated = 0
            for row in rows {
                let index = try #require(Int(row[0]))
                #expect(DecimalFormatting.string(log.time[index], decimals: 6) == String(row[1]), "\(path): \(row)")
                let t = try #require(Double(row[1])), struck = try #require(Double(row[4]))
                #expect(abs(struck - t) <= period / 2 + 1e-6, "\(path): \(row)")
                if abs(struck - t) > 1e-6 { dated += 1 }
            }
            #expect(dated > 0, "\(path): no hit dated off its row, so the test shows nothing")
        }
    }

    /// A pad alone on a stand whose cymbal bumps it 0.15-1 g every 0.3-1.5 s (20 s, 250 Hz,
    /// `Tests/Fixtures/stands/idle-bumps-seed103`): the pad feels nearly every bump as a push
    /// through the stand and says so; none fires (2 did before the felt ceiling, 23 before the
    /// rebound test).
    @Test func aBumpedPadFeelsTheBumpsAndSaysSo() throws {
        let log = Program.repositoryRoot + "/Tests/Fixtures/stands/idle-bumps-seed103/pad.csv"
        let run = Program.run("drumpad", ["replay", log])
        #expect(run.status == 0, "\(run.stderr)")
        let hits = Self.hitRows(run.stdout).count
        let felt = try #require(run.stderr.firstMatch(of: #/; (\d+) pushes felt through the stand, not hits/#).flatMap { Int($0.1) },
                                "\(run.stderr)")
        #expect(run.stderr.contains(": \(hits) hits; \(felt) pushes"), "\(run.stderr)")
        #expect(hits == 0 && felt >= 20, "\(hits) hits, \(felt) felt")
    }

    /// A 1.6 kHz log (the corpus's ADXL345 groove): the accents, 4–8 g, play below velocity 1
    /// and in order at the adaptive detector's fast-rate full scale; `--velocity-full-scale 3`
    /// is the user's to choose, and then they reach the curve's headroom (0.95 and over).
    @Test func aFastSensorsAccentsKeepTheirVelocityUnlessAFullScaleIsGiven() {
        let log = Program.repositoryRoot + "/Tests/Fixtures/corpus/adxl345-groove.csv"
        func velocities(_ extra: [String]) -> [Double] {
            let run = Program.run("drumpad", ["replay", log, "--no-settings", "--detector", "adaptive"] + extra)
            #expect(run.status == 0, "\(run.stderr)")
            return Self.hitRows(run.stdout).compactMap { $0.count == 5 ? Double($0[3]) : nil }
        }
        let measured = velocities([])
        #expect(measured.count > 10 && measured.allSatisfy { $0 < 0.95 }, "\(measured)")
        let given = velocities(["--velocity-full-scale", "3"])
        #expect(given.count == measured.count && given.filter { $0 >= 0.95 }.count >= 3
                    && given.filter { $0 >= 0.95 }.count > measured.filter { $0 >= 0.95 }.count, "\(given)")
    }

    @Test func thresholdAndRefractoryChangeTheHits() {
        let strict = Program.run("drumpad", ["replay", Self.sample, "--threshold", "100"])
        #expect(strict.status == 0)
        #expect(Self.hitRows(strict.stdout).isEmpty)
        #expect(strict.stderr.contains(": 0 hits"))
        let loose = Program.run("drumpad", ["replay", Self.sample, "--threshold", "0.01",
                                            "--refractory", "0"])
        let normal = Program.run("drumpad", ["replay", Self.sample, "--detector", "card"])
        #expect(Self.hitRows(loose.stdout).count > Self.hitRows(normal.stdout).count)
        #expect(loose.stderr.contains("false hits"))
    }

    @Test func tvdrumsDetectorRuns() {
        let run = Program.run("drumpad", ["replay", Self.sample, "--detector", "tvdrums"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("tvdrums detector (threshold 0.4 g, blocked 8 samples)"))
        #expect(!Self.hitRows(run.stdout).isEmpty)
    }

    @Test func badRowStopsWithFileAndLineAfterWritingEarlierHits() {
        let path = Program.temporaryFile("# log\nt,z\n0,1\n0.004,3\n0.008,3\n0.012,x1\n0.016,5\n")
        let run = Program.run("drumpad", ["replay", path, "--detector", "card"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("\(path):6: column \"z\": \"x1\" is not a number"))
        #expect(Self.hitRows(run.stdout).map { $0[0] } == ["1"])
    }

    @Test func skipBadRowsCountsThemAndGoesOn() {
        let path = Program.temporaryFile("t,z\n0,1\n0.004,3\n0.008,oops\n0.012,3\n0.3,5\n")
        let run = Program.run("drumpad", ["replay", path, "--skip-bad-rows", "--refractory", "0"])
        #expect(run.status == 0)
        #expect(run.stderr.contains("skipped 1 bad row"))
        #expect(run.stderr.contains(":4: column \"z\""))
        #expect(Self.hitRows(run.stdout).map { $0[0] } == ["1", "3"])
    }

    @Test func missingFileAndMissingColumnAreClearErrors() {
        let missing = Program.run("drumpad", ["replay", "/nonexistent/log.csv"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("/nonexistent/log.csv: cannot open: No such file or directory"))
        let path = Program.temporaryFile("t,x,y\n0,0,0\n")
        let noZ = Program.run("drumpad", ["replay", path])
        #expect(noZ.status == 1)
        #expect(noZ.stderr.contains("\(path):1: header has no \"z\" column (found: t,x,y)"))
    }

    @Test func invalidOptionsAreRefusedWithTheFix() {
        let run = Program.run("drumpad", ["replay", Self.sample, "--threshold=-1"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--threshold must be a number ≥ 0"))
        let detector = Program.run("drumpad", ["replay", Self.sample, "--detector", "magic"])
        #expect(detector.status != 0)
        #expect(detector.stderr.contains("default") && detector.stderr.contains("tvdrums"))
    }

    @Test func labelsFileIsScored() {
        // Two of the bundled log's strikes plus one the pad never saw.
        let log = try! Self.sampleLog()
        let times = log.labelled.prefix(2).map { DecimalFormatting.string(log.time[$0], decimals: 6) }
        let labels = Program.temporaryFile("t\n" + times.joined(separator: "\n") + "\n25.0\n")
        let run = Program.run("drumpad", ["replay", Self.sample, "--labels", labels])
        #expect(run.status == 0)
        let hits = Self.hitRows(run.stdout).count
        #expect(run.stderr.contains("score against \(labels): 2 of 3 strikes found, \(hits - 2) false hits"))
    }

    @Test func sweepPrintsTheGridAndTheBestSetting() {
        let run = Program.run("drumpad", ["replay", Self.sample, "--sweep",
                                          "--thresholds", "0.2,0.4,50", "--refractories", "5:10:5"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first == "threshold,refractory,hits,true_positives,false_positives,false_negatives,precision,recall,f1")
        #expect(lines.count == 1 + 6)
        #expect(lines.last?.hasPrefix("50.0,10,0,0,0,") == true)
        #expect(run.stderr.contains("best: --threshold"))
        #expect(run.stderr.contains("F1 1.000"))
        #expect(run.stderr.contains("try: drumpad replay \(Self.sample) --detector card"))
    }

    @Test func sweepWithoutLabelsSaysSo() {
        let path = Program.temporaryFile("t,z\n0,1\n0.004,3\n0.008,3\n")
        let run = Program.run("drumpad", ["replay", path, "--sweep", "--thresholds", "0.4",
                                          "--refractories", "10"])
        #expect(run.status == 0)
        #expect(run.stdout.hasSuffix("0.4,10,1,,,,,,\n"))
        #expect(run.stderr.contains("no labels"))
    }

    /// Crosstalk from the pad beside it on the stand (the corpus fixture's neighbour log):
    /// alone the adaptive detector fires on it; with --neighbour and the brain's 30 ms jitter
    /// buffer it is all cancelled and every strike is still found.
    @Test func aNeighbourLogCancelsCrosstalk() {
        let base = Program.repositoryRoot + "/Tests/Fixtures/corpus/dualsense-crosstalk"
        let alone = Program.run("drumpad", ["replay", base + ".csv", "--labels", base + ".labels.csv",
                                            "--detector", "adaptive", "--no-settings"])
        func withNeighbour(holding hold: Int) -> ProgramRun {
            Program.run("drumpad", ["replay", base + ".csv", "--labels", base + ".labels.csv", "--detector", "adaptive",
                                    "--no-settings", "--neighbour", base + ".neighbour.csv", "--jitter-buffer-ms", "\(hold)"])
        }
        let together = withNeighbour(holding: 30), atOnce = withNeighbour(holding: 0)
        #expect(alone.status == 0 && together.status == 0, "\(alone.stderr)\n\(together.stderr)")
        let strikes = Program.contents(base + ".labels.csv").split(separator: "\n").count - 1
        // Decided when each hit would reach the brain (after its detector's scan) and held 30 ms,
        // every one of the 16 is cancelled. Decided at once, 1 stays: its detector's scan ended
        // before that of the neighbour's strike that caused it, so it arrives first. (The pad's
        // first four, weak and before its first loud stroke, it feels: `reboundUntilLoud`.)
        func falseHits(_ run: ProgramRun) -> Int? {
            guard let range = run.stderr.range(of: "\(strikes) of \(strikes) strikes found, ") else { return nil }
            return Int(run.stderr[range.upperBound...].prefix { $0.isNumber })
        }
        let before = falseHits(alone), after = falseHits(together)
        #expect(before != nil && after != nil, "\(alone.stderr)\n\(together.stderr)")
        #expect((before ?? 0) >= 15 && after == 0, "\(alone.stderr)\n\(together.stderr)")
        #expect(falseHits(atOnce) == 1, "\(atOnce.stderr)")
        #expect(together.stderr.contains("more cancelled as crosstalk from 1 neighbour: window 25.0 ms, ratio 0.6"),
                "\(together.stderr)")
        #expect(together.stderr.contains("drumpad replay: neighbour \(base).neighbour.csv: "))
        #expect(Self.hitRows(together.stdout).count == strikes + (after ?? 99))
        // The count printed is this log's hits dropped, not the neighbour's too.
        let dropped = Self.hitRows(alone.stdout).count - Self.hitRows(together.stdout).count
        #expect(together.stderr.contains(" (\(dropped) more cancelled as crosstalk"), "\(together.stderr)")
        let evemu = Program.run("drumpad", ["replay", Program.repositoryRoot + "/Tests/Fixtures/evdev/strikes.evemu",
                                            "--neighbour", base + ".neighbour.csv"])
        #expect(evemu.status != 0 && evemu.stderr.contains("--neighbour needs sensor logs (CSV)"), "\(evemu.stderr)")
    }
    /// The brain decides crosstalk in the order hits arrive. A soft hit struck 4 ms before its
    /// louder neighbour, but delivered 12 ms late (its sensor reports in bursts, `t_event`),
    /// reaches the brain after the neighbour's and is cancelled; without the delivery times
    /// it would be decided first and play.
    @Test func crosstalkIsDecidedInTheOrderHitsWouldArrive() {
        func log(strikeAt strike: Int, to level: Double, delay: Double?) -> String {
            var text = delay == nil ? "t,z\n" : "t,z,t_event\n"
            for n in 0..<500 {
                let t = Double(n) * 0.004
                let z = n == strike ? level : 1.0
                text += DecimalFormatting.string(t, decimals: 3) + ",\(z)"
                if let delay { text += "," + DecimalFormatting.string(t + delay, decimals: 4) }
                text += "\n"
            }
            return text
        }
        for delivered in [true, false] {
            let soft = Program.temporaryFile(log(strikeAt: 250, to: 1.8, delay: delivered ? 0.012 : nil))
            let loud = Program.temporaryFile(log(strikeAt: 251, to: 3.0, delay: delivered ? 0.001 : nil))
            let run = Program.run("drumpad", ["replay", soft, "--no-settings", "--neighbour", loud])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.hitRows(run.stdout).count == (delivered ? 0 : 1), "delivery times \(delivered): \(run.stdout)")
            #expect(run.stderr.contains(" (\(delivered ? 1 : 0) more cancelled as crosstalk"), "\(run.stderr)")
        }
        // The soft hit delivered first and the loud one 12 ms late: decided at once, the soft
        // one plays; held 30 ms as the brain's jitter buffer holds it, it is taken back.
        let soft = Program.temporaryFile(log(strikeAt: 250, to: 1.8, delay: 0.001))
        let loud = Program.temporaryFile(log(strikeAt: 251, to: 3.0, delay: 0.012))
        for hold in [0, 30] {
            let run = Program.run("drumpad", ["replay", soft, "--no-settings", "--neighbour", loud,
                                              "--jitter-buffer-ms", "\(hold)"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Self.hitRows(run.stdout).count == (hold > 0 ? 0 : 1), "held \(hold) ms: \(run.stdout)")
            #expect(run.stderr.contains(hold > 0 ? "(1 more cancelled as crosstalk from 1 neighbour: window 25.0 ms, ratio 0.6, "
                                        + "jitter buffer 30.0 ms, 1 of them taken back)" : "(0 more cancelled"), "\(run.stderr)")
        }
        let bad = Program.run("drumpad", ["replay", soft, "--neighbour", loud, "--jitter-buffer-ms", "500"])
        #expect(bad.status != 0 && bad.stderr.contains("--jitter-buffer-ms must be 0…200"), "\(bad.stderr)")
    }
}

/// What a new user tried and was misled by (a walkthrough of the built programs, 2026-12-02).
struct FirstUseTests {
    static let sample = Program.repositoryRoot + "/Samples/logs/snare-250hz.csv"

    /// The sweep's suggestion for the adaptive detector named --threshold and --refractory,
    /// which that detector ignored without a word; it names the options the grid sets now, and a
    /// setting of another detector than the one in force is a usage error.
    @Test func aSweepSuggestsTheOptionsOfItsDetectorAndOthersAreRefused() throws {
        let sweep = Program.run("drumpad", ["replay", Self.sample, "--sweep", "--detector", "adaptive",
                                            "--thresholds", "0.1,0.2", "--refractories", "30,45"])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let suggestion = sweep.stderr.split(separator: "\n").first { $0.hasPrefix("try: ") }.map(String.init) ?? ""
        #expect(suggestion.contains("--detector adaptive --minimum-g 0.") && suggestion.contains(" --mask-ms "), "\(sweep.stderr)")
        // The suggestion runs, and runs what it says.
        let words = suggestion.dropFirst("try: drumpad ".count).split(separator: " ").map(String.init)
        let tried = Program.run("drumpad", words)
        #expect(tried.status == 0, "\(suggestion): \(tried.stderr)")
        let at = try #require(words.firstIndex(of: "--minimum-g"), "\(suggestion)")
        let minimum = words[at + 1]
        #expect(tried.stderr.contains("at least \(minimum) g"), "\(tried.stderr)")
        for (detector, options) in [("adaptive", ["--threshold", "0.8"]), ("card", ["--mask-ms", "30"])] {
            let run = Program.run("drumpad", ["replay", Self.sample, "--detector", detector] + options)
            #expect(run.status == 64, "\(detector) \(options): \(run.stderr)")
        }
        // The standard grid prints its thresholds as typed: 0.7, not 0.7000000000000001.
        let standard = Program.run("drumpad", ["replay", Self.sample, "--sweep"])
        #expect(standard.stdout.contains("\n0.7,") && !standard.stdout.contains("00000000"), "\(standard.stdout.prefix(400))")
    }

    /// A settings file's options give way to the command line's choice of detector, and only
    /// those of another detector: after `drumpad calibrate` (adaptive, its minimum, mask and full
    /// scale) `--detector card` or `--threshold` runs the card's detector as given (refused
    /// once, by the check that a setting belongs to the detector in force), while a file's
    /// tvdrums stays tvdrums under a `--refractory` given here.
    @Test func aSettingsFileGivesWayToTheCommandLinesDetector() {
        let calibrated = Program.temporaryFile("detector = adaptive\nminimum-g = 0.2\nmask-ms = 30\nvelocity-full-scale = 4\n", suffix: ".conf")
        let tvdrums = Program.temporaryFile("detector = tvdrums\nthreshold = 0.3\n", suffix: ".conf")
        defer { unlink(calibrated); unlink(tvdrums) }
        for (file, options, says) in [
            (calibrated, [String](), "adaptive detector (4.0× noise floor, at least 0.2 g, mask 30.0 ms"),
            (calibrated, ["--detector", "card"], "card detector (threshold 0.4 g², refractory 10 samples)"),
            (calibrated, ["--threshold=0.5"], "card detector (threshold 0.5 g², refractory 10 samples)"),
            (calibrated, ["--mask-ms", "40"], "adaptive detector (4.0× noise floor, at least 0.2 g, mask 40.0 ms"),
            (tvdrums, ["--refractory", "6"], "tvdrums detector (threshold 0.3 g, blocked 6 samples)"),
            (tvdrums, ["--detector", "adaptive"], "adaptive detector (4.0× noise floor, at least 0.11 g, mask 45.0 ms"),
        ] {
            let run = Program.run("drumpad", ["replay", Self.sample, "--settings", file] + options)
            #expect(run.status == 0 && run.stderr.contains(says), "\(options): \(run.stderr)")
        }
    }

    /// `drumpad run ARGUMENTS`, stopped after 60 s at most.
    static func runPad(_ arguments: [String]) -> ProgramRun {
        Program.runTool("timeout", ["-k", "5", "60", Program.productsFolder + "/drumpad", "run"] + arguments)
    }

    /// A temporary log of the bundled log's first second (its first strikes); the caller unlinks it.
    static func firstSecond() -> String {
        Program.temporaryFile(Program.contents(sample).split(separator: "\n").prefix(260).joined(separator: "\n") + "\n")
    }

    /// `drumpad run --replay` of a log it cannot read waited 5 s for the brain before saying so;
    /// it says so first now. A replay whose hits reached no brain exited 0 ("0 sent"): a script
    /// took it for done. Values that become integer µs are checked (NaN waited forever).
    @Test func aReplayThatReachesNoBrainFailsAndABadLogIsSaidFirst() {
        let missing = Self.runPad(["--drum", "snare", "--replay", "/nonexistent/x.csv", "--brain", "127.0.0.1:9"])
        #expect(missing.status == 1 && missing.stderr.contains("/nonexistent/x.csv: cannot open"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("no brain after"), "\(missing.stderr)")
        // One second of the bundled log (its first strikes), into a port nothing listens on.
        let short = Self.firstSecond()
        defer { unlink(short) }
        let run = Self.runPad(["--drum", "snare", "--replay", short, "--brain", "127.0.0.1:9", "--wait-for-brain", "0"])
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("0 sent") && run.stderr.contains("no hit reached a brain"), "\(run.stderr)")
        // Through a pipe, the early check reads nothing of it: every hit is still found (a byte
        // read there was lost to the replay, and the log's first line with it).
        let piped = Program.runTool("sh", ["-c", "cat \(Program.shellQuoted(short)) | timeout -k 5 60 \(Program.productsFolder)/drumpad run "
                                           + "--drum snare --replay /dev/stdin --brain 127.0.0.1:9 --wait-for-brain 0 --local --local-output null"])
        #expect(piped.status == 0, "\(piped.stderr)")
        let found = Program.run("drumpad", ["replay", short]).stdout.split(separator: "\n").count - 1
        #expect(found >= 2 && piped.stderr.contains(": \(found) hits, 0 sent"), "\(found) hits by replay: \(piped.stderr)")
        for option in [["--wait-for-brain", "nan"], ["--start-at", "1e300"]] {
            let bad = Self.runPad(["--drum", "snare", "--replay", short, "--brain", "127.0.0.1:9"] + option)
            #expect(bad.status == 64, "\(option): \(bad.stderr)")
        }
    }

    /// `drumpad run --local` with a kit that lacks the drum, a kit that is not there, or an
    /// output that cannot be opened waited for the brain (5 s, or what `--wait-for-brain` asks)
    /// before saying so; it says so first now, and a WAV's time still starts after the wait.
    @Test func aLocalKitOrOutputThatCannotPlayIsSaidBeforeTheWait() {
        let short = Self.firstSecond()
        defer { unlink(short) }
        let cases: [(options: [String], says: String)] = [
            (["--kit", "/nonexistent/kit"], "/nonexistent/kit"),
            (["--local-output", "wav:/nonexistent/dir/x.wav"], "/nonexistent/dir/x.wav"),
            (["--local-output", "loud"], "--local-output must be"),
        ]
        for (options, says) in cases {
            let run = Self.runPad(["--drum", "snare", "--replay", short, "--brain", "127.0.0.1:9", "--wait-for-brain", "30",
                                "--local"] + options)
            #expect(run.status != 0 && run.status != 124 && run.stderr.contains(says), "\(options): exit \(run.status): \(run.stderr)")
            #expect(!run.stderr.contains("no brain after"), "\(options): \(run.stderr)")
        }
        let noDrum = Self.runPad(["--drum", "cowbell", "--replay", short, "--brain", "127.0.0.1:9", "--wait-for-brain", "30", "--local"])
        #expect(noDrum.status != 0 && noDrum.stderr.contains("has no drum \"cowbell\""), "exit \(noDrum.status): \(noDrum.stderr)")
        #expect(!noDrum.stderr.contains("no brain after"), "\(noDrum.stderr)")
        // Played: the WAV holds the replay's second of hits from its start, not a wait's silence.
        let wav = Program.temporaryFile("", suffix: ".wav")
        defer { unlink(wav) }
        let played = Self.runPad(["--drum", "snare", "--replay", short, "--brain", "127.0.0.1:9", "--wait-for-brain", "10",
                                "--local", "--local-output", "wav:" + wav])
        let locally = played.stderr.split(separator: "; ").first { $0.hasSuffix("played locally") || $0.contains("played locally\n") }
        #expect(played.status == 0 && played.stderr.contains("no brain after 10.0 s")
                    && (locally?.split(separator: " ").first.flatMap { Int($0) } ?? 0) >= 3,
                "exit \(played.status): \(played.stderr)")
        let seconds = Double((try? FileManager.default.attributesOfItem(atPath: wav)[.size] as? Int) ?? 0) / (48_000 * 8)
        // (Written in real time: a stalled machine may lengthen it, but not by the 10 s wait.)
        #expect(seconds > 0.5 && seconds < 6, "the WAV holds \(seconds) s")
    }
}

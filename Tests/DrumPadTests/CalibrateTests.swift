#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// `drumpad calibrate` and the settings file that `run` and `replay` read.
struct CalibrateTests {
    @Test func calibrationOfALogGivesSettingsThatFindEveryStrike() {
        let settings = "/tmp/drumpad-calibrate-\(getpid()).conf"
        defer { unlink(settings) }
        let calibrate = Program.run("drumpad", ["calibrate", "Samples/logs/snare-250hz.csv", "--out", settings])
        #expect(calibrate.status == 0, "\(calibrate.stderr)")
        #expect(calibrate.stderr.contains("43 strikes"))
        #expect(calibrate.stderr.contains("the same samples give 43 hits"))
        let text = Program.contents(settings)
        #expect(text.contains("detector = adaptive\n") && text.contains("minimum-g = ") && text.contains("mask-ms = "))
        let replay = Program.run("drumpad", ["replay", "Samples/logs/snare-250hz.csv", "--settings", settings])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("drumpad: settings from \(settings): --detector adaptive --minimum-g "))
        #expect(replay.stderr.contains("43 of 43 strikes found, 0 false hits"))
        // An option given on the command line wins over the file.
        let overridden = Program.run("drumpad", ["replay", "Samples/logs/snare-250hz.csv", "--settings", settings,
                                                 "--detector", "default"])
        #expect(overridden.stderr.contains("card detector (threshold 0.4 g²"))
    }

    @Test func aBadSettingsFileNamesItsLine() {
        let settings = Program.temporaryFile("detector = adaptive\nthreshold 0.3\n", suffix: ".conf")
        defer { unlink(settings) }
        let replay = Program.run("drumpad", ["replay", "Samples/logs/snare-250hz.csv", "--settings", settings])
        #expect(replay.status != 0)
        #expect(replay.stderr.contains("\(settings):2: a setting is NAME = VALUE, such as threshold = 0.3 (found \"threshold 0.3\")"))
        let missing = Program.run("drumpad", ["replay", "Samples/logs/snare-250hz.csv", "--settings", "/nonexistent.conf"])
        #expect(missing.status != 0 && missing.stderr.contains("/nonexistent.conf: cannot open"))
    }

    @Test func theDefaultSettingsFileIsReadAndCanBeIgnored() {
        let home = "/tmp/drumpad-home-\(getpid())"
        defer { _ = system("rm -rf \(home)") }
        _ = system("mkdir -p \(home)/drumpad && printf 'detector = tvdrums\\n' > \(home)/drumpad/settings.conf")
        let used = Program.runTool("env", ["XDG_CONFIG_HOME=\(home)", Program.productsFolder + "/drumpad", "replay",
                                           "Samples/logs/snare-250hz.csv"])
        #expect(used.stderr.contains("settings from \(home)/drumpad/settings.conf: --detector tvdrums"))
        #expect(used.stderr.contains("tvdrums detector"))
        let ignored = Program.runTool("env", ["XDG_CONFIG_HOME=\(home)", Program.productsFolder + "/drumpad", "replay",
                                              "Samples/logs/snare-250hz.csv", "--no-settings"])
        // Without the file: the default detector, the adaptive one.
        #expect(!ignored.stderr.contains("settings from") && ignored.stderr.contains("adaptive detector"))
    }

    @Test func aLogWithoutStrikesSaysWhatToDo() {
        var quiet = "t,z\n"
        for i in 0..<500 { quiet += "\(Double(i) / 250),1.0\n" }
        let log = Program.temporaryFile(quiet)
        defer { unlink(log) }
        let run = Program.run("drumpad", ["calibrate", log, "--out", "/tmp/never-\(getpid()).conf"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("no strikes found over the noise"))
        #expect(run.stderr.contains("strike the pad 5 to 10 times"))
    }
}

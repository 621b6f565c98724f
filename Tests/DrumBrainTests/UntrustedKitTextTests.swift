#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// A kit file's text never reaches the terminal raw: its name in `check-kit`'s listing and the
/// brain's messages, a bad layer's sample name in the error that stops the brain. Each control
/// character is written as `\xNN` (`TerminalText`), a newline in a name too: a name cannot
/// forge a line.
struct UntrustedKitTextTests {
    /// Whether `text` holds a byte that acts on a terminal: ESC or BEL.
    static func acts(_ text: String) -> Bool { text.utf8.contains { $0 == 0x1B || $0 == 0x07 } }

    static func kitFolder(_ json: String) -> String {
        let folder = "/tmp/drumtest-kittext-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        MIDIFileTests.write(json, to: folder + "/kit.json")
        return folder
    }

    @Test func aKitsNameIsEscapedInCheckKitAndTheBrainsMessages() {
        let sample = Program.repositoryRoot + "/Samples/kit/snare.wav"
        let folder = Self.kitFolder("{\"name\": \"Evil\\u001b[2J\\u0007Kit\\nhit drum=forged\", \"drums\": [{\"name\": \"snare\", \"sample\": \"\(sample)\"}]}")
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let check = Program.run("drumbrain", ["check-kit", folder])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(!Self.acts(check.stdout) && check.stdout.contains("kit \"Evil\\x1B[2J\\x07Kit\\x0Ahit drum=forged\""), "\(check.stdout.debugDescription)")
        MIDIFileTests.write("t,drum,velocity\n0.1,snare,0.8\n", to: folder + "/hits.csv")
        let render = Program.run("drumbrain", ["render", "--kit", folder, "--hits", folder + "/hits.csv", "--out", folder + "/out.wav"])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(!(check.stdout + render.stderr).contains("\nhit drum=forged"))
        #expect(!Self.acts(render.stderr) && render.stderr.contains("kit \"Evil\\x1B[2J\\x07Kit\\x0Ahit drum=forged\""), "\(render.stderr.debugDescription)")
    }

    /// The welcome carries the kit's name as its file gave it, and the pad escapes it once: a
    /// backslash shows as `\\`, an escape as `\x1B`, quotes as they are (escaped by the brain as
    /// well, a backslash showed as four); a NUL, which an OSC string cannot hold, as U+FFFD (sent
    /// as it was, it stopped the brain on the encoder's precondition when the pad said hello).
    @Test func aPadIsWelcomedWithTheKitsNameEscapedOnce() throws {
        let sample = Program.repositoryRoot + "/Samples/kit/snare.wav"
        let folder = Self.kitFolder("{\"name\": \"a\\\\b \\\"c\\\"\\u001b\\u0000\", \"drums\": [{\"name\": \"snare\", \"sample\": \"\(sample)\"}]}")
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let port = freePort()
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--kit", folder, "--output", "null",
                                                    "--port", "\(port)", "--no-visual", "--stand-state", "none"]))
        defer { brain.stop(signal: SIGINT) }
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        #expect(brain.output.contains("kit \"a\\\\b \\\"c\\\"\\x1B\u{FFFD}\""), "\(brain.output)")
        var log = "# drumpad sensor log v1\nt,z\n"
        for i in 0..<50 { log += "\(Double(i) * 0.004),\(i == 10 ? 2.5 : 1.0)\n" }
        let path = Program.temporaryFile(log)
        defer { unlink(path) }
        let pad = Program.run("drumpad", ["run", "--drum", "snare", "--replay", path, "--brain", "127.0.0.1:\(port)"])
        #expect(pad.status == 0, "\(pad.stderr)")
        #expect(!Self.acts(pad.stderr) && pad.stderr.contains("(kit a\\\\b \"c\"\\x1B\u{FFFD}) welcomed"), "\(pad.stderr)")
        #expect(!brain.hasExited, "\(brain.output)")
    }

    @Test func aBadKitsTextIsEscapedInTheErrorThatStopsTheBrain() {
        let folder = Self.kitFolder("{\"name\": \"k\", \"drums\": [{\"name\": \"snare\", \"layers\": "
                                    + "[{\"sample\": \"x\\u001b[31m.wav\", \"min\": 0.9, \"max\": 0.1}]}]}")
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        for arguments in [["check-kit", folder], ["--kit", folder, "--output", "null", "--port", "0", "--no-visual"]] {
            let run = Program.run("drumbrain", arguments)
            #expect(run.status != 0)
            #expect(!Self.acts(run.stderr), "\(arguments): \(run.stderr.debugDescription)")
            #expect(run.stderr.contains("layer \"x\\x1B[31m.wav\" needs 0 ≤ min ≤ max ≤ 1"), "\(arguments): \(run.stderr)")
        }
    }
}

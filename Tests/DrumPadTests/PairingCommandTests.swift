#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Pairing with the real programs over loopback: `drumbrain --key-file` and `drumpad run
/// --key-file` (docs/protocol.md "Pairing").
@Suite(.serialized)
struct PairingCommandTests {
    /// The first 3 s of the snare log (several hits).
    static func shortLog() -> String {
        let lines = Program.contents(Program.repositoryRoot + "/Samples/logs/snare-250hz.csv")
            .split(separator: "\n", omittingEmptySubsequences: false).prefix(5 + 750)
        return Program.temporaryFile(lines.joined(separator: "\n") + "\n")
    }

    @Test func onlyPadsWithTheKeyPlayAndTheKeyIsNeverPrinted() throws {
        let keyText = "pairing-test-key-\(UInt32.random(in: 0...UInt32.max))-0123456789"
        let keyPath = Program.temporaryFile(keyText + "\n", suffix: ".key")
        let wrongPath = Program.temporaryFile("another-key-entirely-0123456789\n", suffix: ".key")
        chmod(keyPath, 0o600)
        chmod(wrongPath, 0o600)
        let log = Self.shortLog()
        defer { for path in [keyPath, wrongPath, log] { unlink(path) } }
        let port = freePort()
        let brain = try #require(BackgroundProcess([
            Program.productsFolder + "/drumbrain", "--port", "\(port)", "--bind", "127.0.0.1", "--output", "null",
            "--no-visual", "--key-file", keyPath]))
        #expect(brain.waitForOutput("listening"), "\(brain.output)")
        #expect(brain.output.contains("pads must pair with the key in \(keyPath)"))

        func pad(_ name: String, _ key: [String]) -> BackgroundProcess? {
            BackgroundProcess([Program.productsFolder + "/drumpad", "run", "--drum", "snare", "--replay", log,
                               "--brain", "127.0.0.1:\(port)", "--name", name, "--wait-for-brain", "2"] + key)
        }
        let good = try #require(pad("good", ["--key-file", keyPath]))
        let wrong = try #require(pad("wrong", ["--key-file", wrongPath]))
        let none = try #require(pad("none", []))
        for p in [good, wrong, none] { p.wait() }

        if toolAvailable("oscsend") {
            let run = Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "s", "snare"])
            #expect(run.status == 0, "\(run.stderr)")
            usleep(300_000)
        } else {
            print("PairingCommandTests: oscsend not found (apt-get install liblo-tools); its refusal not checked")
        }
        brain.stop()
        let brainOutput = brain.output

        #expect(brainOutput.components("pad=good ") >= 3, "\(brainOutput)\n\(good.output)")
        #expect(brainOutput.components("pad=wrong ") == 0 && brainOutput.components("pad=none ") == 0)
        #expect(brainOutput.components("hit drum=snare") == brainOutput.components("pad=good "),
                "oscsend's hit played: \(brainOutput)")
        #expect(good.output.contains("welcomed \"good\""), "\(good.output)")
        #expect(wrong.output.contains("the brain says: wrong key"), "\(wrong.output)")
        #expect(none.output.contains("the brain needs a key: give --key-file"), "\(none.output)")
        for output in [brainOutput, good.output, wrong.output, none.output] {
            #expect(!output.contains(keyText) && !output.contains("another-key-entirely"))
        }
    }

    @Test func aBrainWithoutKeySaysAnyHostCanPlayIt() throws {
        // Port 0: the kernel's choice, as nothing connects to it.
        let brain = try #require(BackgroundProcess([
            Program.productsFolder + "/drumbrain", "--port", "0", "--bind", "127.0.0.1", "--output", "null",
            "--no-visual"]))
        #expect(brain.waitForOutput("listening"), "\(brain.output)")
        brain.stop()
        #expect(brain.output.contains("drumbrain: no --key-file: any host on the network can play this brain"))
    }

    @Test func aShortKeyFileIsRefusedNamingTheFileAndTheFix() {
        let path = Program.temporaryFile("short-secret\n", suffix: ".key")
        defer { unlink(path) }
        let run = Program.run("drumpad", ["run", "--drum", "snare", "--replay", "Samples/logs/snare-250hz.csv",
                                          "--brain", "127.0.0.1:1", "--key-file", path])
        #expect(run.status != 0)
        #expect(run.stderr.contains(path) && run.stderr.contains("head -c 32 /dev/urandom | base64 > drum.key"),
                "\(run.stderr)")
        #expect(!run.stderr.contains("short-secret") && !run.stdout.contains("short-secret"))
    }
}

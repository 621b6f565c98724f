#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite(.serialized, .enabled(if: avahiSandboxAvailable,
                             "needs root, avahi-daemon, dbus-daemon, avahi-utils and iproute2 for a private Avahi"))
struct DiscoveryTests {
    let brain = Program.productsFolder + "/drumbrain"
    let pad = Program.productsFolder + "/drumpad"

    func shortLog() -> String {
        var text = "# drumpad sensor log v1\nt,z\n"
        for i in 0..<100 { text += "\(Double(i) * 0.004),\(i == 10 || i == 40 || i == 70 ? 2.5 : 1.0)\n" }
        return Program.temporaryFile(text)
    }

    @Test func brainIsPublishedRenamedOnCollisionAndFoundByPads() throws {
        let avahi = try AvahiSandbox()
        // Free ports (inside the namespace anything is free, but a fixed number is a habit to lose).
        let firstPort = freePort(), secondPort = freePort()
        let first = BackgroundProcess(avahi.inside([brain, "--name", "studio", "--port", "\(firstPort)", "--output", "null"]))!
        #expect(first.waitForOutput("published as \"studio\""))
        // avahi-browse sees it on the bridge and loopback, with its TXT records.
        let browse = Program.runTool(avahi.script, ["run", avahi.folder, "avahi-browse", "-rpt", "_drumbrain._tcp"])
        let resolved = browse.stdout.split(separator: "\n").filter { $0.hasPrefix("=") && $0.contains(";studio;") }
        #expect(!resolved.isEmpty)
        #expect(resolved.allSatisfy { $0.contains(";\(firstPort);") && $0.contains("\"proto=1\"") && $0.contains("\"kit=") })
        #expect(resolved.contains { $0.contains(";br0;") } && resolved.contains { $0.contains(";lo;") })

        let second = BackgroundProcess(avahi.inside([brain, "--name", "studio", "--port", "\(secondPort)", "--output", "null"]))!
        #expect(second.waitForOutput("publishing as \"studio #2\""), "\(second.output)")
        #expect(second.waitForOutput("published as \"studio #2\""), "\(second.output)")

        // A pad with no address finds the brain it names, and plays it.
        let run = Program.runTool(avahi.script, ["run", avahi.folder, pad, "run", "--drum", "snare",
                                                 "--replay", shortLog(), "--brain-name", "studio",
                                                 "--wait-for-brain", "30"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("welcomed"))
        #expect(first.waitForOutput("hit drum=snare"))
        #expect(eventually(within: 30) { first.output.components("hit drum=snare") == 3 })
        #expect(second.output.components("hit drum=snare") == 0)
        first.stop(signal: SIGINT)
        second.stop(signal: SIGINT)
    }

    /// The service's `kit=` TXT record follows the kit: a reload (SIGHUP) of a kit file now
    /// naming another kit is announced, and a fresh browse sees the new name only; a pad that
    /// finds the brain then is welcomed with the new name too.
    @Test func aReloadedKitsNameIsAnnouncedInTheTXTRecord() throws {
        let avahi = try AvahiSandbox()
        let folder = "/tmp/drumtest-txt-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        func writeKit(_ name: String) {
            let json = "{\"name\": \"\(name)\", \"drums\": [{\"name\": \"snare\", \"sample\": \"\(Program.repositoryRoot)/Samples/kit/snare.wav\"}]}"
            let file = fopen(folder + "/kit.json", "w")!
            _ = json.withCString { fputs($0, file) }
            fclose(file)
        }
        writeKit("First Kit")
        let brainProcess = BackgroundProcess(avahi.inside([brain, "--name", "txt", "--port", "\(freePort())", "--output", "null",
                                                          "--no-visual", "--kit", folder]))!
        defer { brainProcess.stop(signal: SIGINT) }
        #expect(brainProcess.waitForOutput("published as \"txt\""), "\(brainProcess.output)")
        func records() -> [Substring] {
            Program.runTool(avahi.script, ["run", avahi.folder, "avahi-browse", "-rpt", "_drumbrain._tcp"])
                .stdout.split(separator: "\n").filter { $0.hasPrefix("=") && $0.contains(";txt;") }
        }
        // One browse a look: every record it resolved names the kit.
        func named(_ kit: String) -> Bool {
            let seen = records()
            return !seen.isEmpty && seen.allSatisfy { $0.contains("\"kit=\(kit)\"") }
        }
        #expect(eventually(within: 10) { named("First Kit") }, "\(records())")
        writeKit("Second Kit")
        kill(brainProcess.pid, SIGHUP)
        #expect(brainProcess.waitForOutput("reloaded kit \"Second Kit\""), "\(brainProcess.output)")
        #expect(eventually(within: 10) { named("Second Kit") }, "\(records())")
        let run = Program.runTool(avahi.script, ["run", avahi.folder, pad, "run", "--drum", "snare", "--replay", shortLog(),
                                                 "--brain-name", "txt", "--wait-for-brain", "30"])
        #expect(run.status == 0 && run.stderr.contains("(kit Second Kit) welcomed"), "\(run.stderr)")
    }

    /// A kit name whose printable form is longer than a TXT record may be (64 right-to-left
    /// overrides, each written `\u{202E}`: 512 bytes) is cut to fit, and the brain is published;
    /// whole, Avahi refused the record and the brain was never found.
    @Test func aLongKitNameIsCutToFitItsTXTRecord() throws {
        let avahi = try AvahiSandbox()
        let folder = "/tmp/drumtest-txtlong-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let json = "{\"name\": \"\(String(repeating: "\\u202e", count: 64))\", \"drums\": [{\"name\": \"snare\", \"sample\": \""
            + Program.repositoryRoot + "/Samples/kit/snare.wav\"}]}"
        let file = fopen(folder + "/kit.json", "w")!
        _ = json.withCString { fputs($0, file) }
        fclose(file)
        let brainProcess = BackgroundProcess(avahi.inside([brain, "--name", "long", "--port", "\(freePort())", "--output", "null",
                                                          "--no-visual", "--kit", folder]))!
        defer { brainProcess.stop(signal: SIGINT) }
        #expect(brainProcess.waitForOutput("published as \"long\""), "\(brainProcess.output)")
        // Cut before an escape, and marked: 31 whole `\u{202E}` and `…` (255 bytes with `kit=`;
        // avahi-browse writes a backslash as two and the `…` as its bytes, `\226\128\166`).
        var seen = ""
        #expect(eventually(within: 10) {
            seen = Program.runTool(avahi.script, ["run", avahi.folder, "avahi-browse", "-rpt", "_drumbrain._tcp"]).stdout
            let resolved = seen.split(separator: "\n").filter { $0.hasPrefix("=") && $0.contains(";long;") }
            return !resolved.isEmpty && resolved.allSatisfy {
                $0.contains("\"kit=" + String(repeating: "\\\\u{202E}", count: 31) + "\\226\\128\\166\"")
            }
        }, "\(seen)")
    }

    @Test func afterTheDaemonRestartsTheBrainIsPublishedAgainAndFound() throws {
        let avahi = try AvahiSandbox()
        let brainProcess = BackgroundProcess(avahi.inside([brain, "--name", "stage", "--port", "\(freePort())", "--output", "null"]))!
        #expect(brainProcess.waitForOutput("published as \"stage\""))
        avahi.killDaemon()
        #expect(brainProcess.waitForOutput("the Avahi daemon went away"))
        avahi.startDaemon()
        #expect(eventually(within: 30) { brainProcess.output.components("published as \"stage\"") == 2 })
        let run = Program.runTool(avahi.script, ["run", avahi.folder, pad, "run", "--drum", "kick",
                                                 "--replay", shortLog(), "--wait-for-brain", "30"])
        #expect(run.status == 0 && run.stderr.contains("found brain \"stage\""), "\(run.stderr)")
        let played = eventually(within: 5) { brainProcess.output.components("hit drum=kick") == 3 }
        #expect(played)
        brainProcess.stop(signal: SIGINT)
        #expect(brainProcess.output.contains("pad "))
        if played && run.stderr.contains("found brain \"stage\"") {
            FaultTable.record("avahi-daemon killed and started again", load: "a published brain, then a new pad",
                              result: "survived; the brain said so, published itself again, the pad found it, 3 of 3 hits played")
        }
    }

    @Test func withoutADaemonBothSaySoOnceAndExplicitAddressesWork() throws {
        let avahi = try AvahiSandbox()
        avahi.killDaemon()
        let port = freePort()
        let brainProcess = BackgroundProcess(avahi.inside([brain, "--name", "alone", "--port", "\(port)", "--output", "null"]))!
        #expect(brainProcess.waitForOutput("no Avahi daemon is running"))
        let run = Program.runTool(avahi.script, ["run", avahi.folder, pad, "run", "--drum", "kick",
                                                 "--replay", shortLog(), "--brain", "127.0.0.1:\(port)"])
        #expect(run.status == 0)
        #expect(eventually(within: 30) { brainProcess.output.components("hit drum=kick") == 3 })
        brainProcess.stop(signal: SIGINT)
        #expect(brainProcess.output.components("no Avahi daemon is running") == 1)
    }
}

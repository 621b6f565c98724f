import DrumNet
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

let bigKitsInstalled = access("/usr/share/hydrogen/data/drumkits/BJA_Pacific/drumkit.xml", R_OK) == 0
    && access("/usr/share/hydrogen/data/drumkits/HardElectro1/drumkit.xml", R_OK) == 0

/// Loading a large kit while playing (issue 30): the brain loads it beside the old one and swaps it
/// in, so hits keep sounding on the old kit while the new one loads.
struct KitReloadTests {
    /// The brain plays HardElectro1 (the oldest form) from a link; the link is pointed at BJA_Pacific (32 MB
    /// of 44.1 kHz samples to resample, seconds to load) and the brain told to reload (SIGHUP).
    /// Hits sent meanwhile start (their lines carry the frame they start at) before the new kit
    /// is in; after it, they play on it.
    @Test(.enabled(if: bigKitsInstalled, "needs Debian's hydrogen-data and hydrogen-drumkits"))
    func hitsKeepPlayingWhileALargeKitLoads() throws {
        let folder = "/tmp/drumtest-reload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        defer { unlink(folder + "/kit"); rmdir(folder) }
        symlink("/usr/share/hydrogen/data/drumkits/HardElectro1", folder + "/kit")
        let port = freePort()
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(port)", "--output", "null",
                                                    "--no-visual", "--stand-state", "none", "--kit", folder + "/kit"]))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        let client = try #require(RawSocket(port: port))
        unlink(folder + "/kit")
        symlink("/usr/share/hydrogen/data/drumkits/BJA_Pacific", folder + "/kit")
        kill(brain.pid, SIGHUP)
        // Hits every 50 ms until the new kit is in (at most 60 s): both kits have a drum "snare".
        var sent = 0
        let deadline = Date().addingTimeInterval(60)
        while !brain.output.contains("reloaded kit") && Date() < deadline && !brain.hasExited {
            client.send(DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.5)).packet)
            sent += 1
            usleep(50_000)
        }
        let output = brain.output
        let reloaded = try #require(output.range(of: "drumbrain: reloaded kit \"BJA_Pacific\""), "\(output)")
        let before = output[..<reloaded.lowerBound]
        let startedBefore = before.components(separatedBy: "\n").filter { $0.hasPrefix("hit drum=snare") && $0.contains(" frame=") }
        // The load took many of the 50 ms rounds, and the hits sent during it started (with their
        // frame) before it ended, but for those of the last half second.
        #expect(sent >= 10, "the load was quick: \(sent) rounds")
        #expect(startedBefore.count >= sent - 10, "\(startedBefore.count) of \(sent) hits started while the kit loaded:\n\(output)")
        client.send(DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.5)).packet)
        client.close()
        #expect(brain.stop(signal: SIGINT) == 0)
        #expect(brain.output.contains("\(sent + 1) hits"), "\(brain.output)")
    }

    /// A reload asked for while the brain still loads its kit (`systemctl reload` as the service
    /// starts) is done once the kit is in. Before, SIGHUP kept its default action until the brain
    /// listened, and ended it.
    @Test(.enabled(if: bigKitsInstalled, "needs Debian's hydrogen-data and hydrogen-drumkits"))
    func aReloadAskedForWhileTheKitLoadsIsDoneOnceItIsIn() throws {
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(freePort())", "--output", "null",
                                                    "--no-visual", "--stand-state", "none",
                                                    "--kit", "/usr/share/hydrogen/data/drumkits/BJA_Pacific"]))
        // Said at the start of its run, before the kit (32 MB to resample, seconds) loads.
        #expect(brain.waitForOutput("no --key-file"), "\(brain.output)")
        kill(brain.pid, SIGHUP)
        let atHangUp = brain.output
        #expect(brain.waitForOutput("reloaded kit \"BJA_Pacific\"", within: 60), "\(brain.output)")
        let output = brain.output
        // Asked for while loading, done once it listened; still running.
        #expect(!atHangUp.contains("listening on"), "the kit had loaded before the SIGHUP: \(atHangUp)")
        let listening = try #require(output.range(of: "listening on"), "\(output)")
        let reloaded = try #require(output.range(of: "reloaded kit \"BJA_Pacific\""), "\(output)")
        #expect(listening.upperBound <= reloaded.lowerBound, "\(output)")
        #expect(output.components(separatedBy: "reloaded kit").count == 2, "one reload: \(output)")
        #expect(!brain.hasExited, "\(output)")
        #expect(brain.stop(signal: SIGINT) == 0)
    }

    /// A brain playing BJA_Pacific (32 MB of 44.1 kHz samples to resample: seconds to load), told
    /// to reload it once it listens; returned once the reload has started loading.
    static func reloadingBigKit() throws -> BackgroundProcess {
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(freePort())", "--output", "null",
                                                    "--no-visual", "--stand-state", "none",
                                                    "--kit", "/usr/share/hydrogen/data/drumkits/BJA_Pacific"]))
        #expect(brain.waitForOutput("listening on", within: 60), "\(brain.output)")
        kill(brain.pid, SIGHUP)
        #expect(brain.waitForOutput("reloading the kit from", within: 10), "\(brain.output)")
        return brain
    }

    /// SIGHUPs that come while a reload loads its kit (seconds for a large one) are one more
    /// reload, not one each: five in a row load the kit twice.
    @Test(.enabled(if: bigKitsInstalled, "needs Debian's hydrogen-data and hydrogen-drumkits"))
    func hangUpsWhileAReloadLoadsAreOneMore() throws {
        let brain = try Self.reloadingBigKit()
        for _ in 0..<4 {
            kill(brain.pid, SIGHUP)
            usleep(20_000)
        }
        let early = brain.output
        #expect(eventually(within: 120) { brain.output.components("reloaded kit") >= 2 }, "\(brain.output)")
        usleep(500_000)  // a third would have started by now
        #expect(brain.stop(signal: SIGINT) == 0)
        let output = brain.output
        #expect(!early.contains("reloaded kit"), "the first load was over before the other hang-ups: \(early)")
        #expect(output.components("reloading the kit from") == 2 && output.components("reloaded kit") == 2, "\(output)")
    }

    /// A stop while a reload loads its kit is not held up by the load (seconds for a large kit),
    /// and the kit it loads is never swapped into the stopped brain: the brain stops and exits
    /// cleanly, and says no reload. (With the stop made to wait for the whole reload, the new kit
    /// came in first, and a second Ctrl-C could not cut the wait short.)
    @Test(.enabled(if: bigKitsInstalled, "needs Debian's hydrogen-data and hydrogen-drumkits"))
    func aStopIsNotHeldUpByAReloadsLoad() throws {
        let brain = try Self.reloadingBigKit()
        #expect(brain.stop(signal: SIGINT) == 0)
        let output = brain.output
        #expect(output.contains("drumbrain: stopping") && !output.contains("reloaded kit"), "\(output)")
    }
}

import DrumNet
import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// `drumbrain --crosstalk-group`: a real brain, hits sent over TCP as a pad sends them.
struct CrosstalkGroupTests {
    /// Connects to 127.0.0.1:`port` and sends each hit's packet, waiting `after` seconds after it.
    static func send(port: Int, _ hits: [(DrumHit, after: Double)]) throws {
        let socket = try #require(RawSocket(port: port), "cannot connect to the brain: errno \(errno)")
        defer { socket.close() }
        for (hit, after) in hits {
            let packet = DrumMessage.hit(hit).packet
            #expect(socket.send(packet) == packet.count)
            usleep(UInt32(after * 1e6))
        }
    }

    /// A `drumbrain --output null` with the bundled kit on a free loopback port, given
    /// `options`, once it says it listens.
    static func startBrain(_ options: [String]) throws -> (brain: BackgroundProcess, port: Int) {
        let port = freePort()
        let brain = try #require(BackgroundProcess([
            Program.productsFolder + "/drumbrain", "--output", "null", "--port", "\(port)", "--bind", "127.0.0.1",
            "--kit", Program.repositoryRoot + "/Samples/kit", "--name", "crosstalk", "--no-visual",
        ] + options))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        return (brain, port)
    }

    @Test func aQuietHitJustAfterALouderOneOnTheSameStandIsNotPlayed() throws {
        // A window of 300 ms, so a loaded machine's scheduling cannot move hits out of it.
        let (brain, port) = try Self.startBrain([
            "--crosstalk-group", "snare,racktom", "--crosstalk-group", "floortom, crash", "--crosstalk-window-ms", "300",
        ])
        #expect(brain.output.contains("crosstalk cancelled within snare+racktom, floortom+crash"))
        try Self.send(port: port, [
            (DrumHit(drum: "snare", velocity: 0.9), after: 0.005),
            (DrumHit(drum: "racktom", velocity: 0.2), after: 0.005),   // crosstalk: 0.2 ≤ 0.6 × 0.9
            (DrumHit(drum: "kick", velocity: 0.1), after: 0.005),      // on no stand: plays
            (DrumHit(drum: "floortom", velocity: 0.3), after: 1.0),    // another stand: plays
            (DrumHit(drum: "racktom", velocity: 0.2), after: 0.005),   // a second after: plays
            (DrumHit(drum: "snare", velocity: 0.9), after: 0.005),     // the snare itself: plays
            (DrumHit(drum: "racktom", velocity: 0.6), after: 0.5),     // over half as loud: plays
        ])
        #expect(eventually(within: 30) { brain.output.components("velocity=") >= 7 }, "\(brain.output)")
        #expect(brain.stop() == 0)
        let lines = brain.output.split(separator: "\n").filter { $0.hasPrefix("hit ") || $0.hasPrefix("crosstalk ") }
            .map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        #expect(lines == [
            "hit drum=snare velocity=0.900", "crosstalk drum=racktom velocity=0.200", "hit drum=kick velocity=0.100",
            "hit drum=floortom velocity=0.300", "hit drum=racktom velocity=0.200", "hit drum=snare velocity=0.900",
            "hit drum=racktom velocity=0.600",
        ], "\(brain.output)")
        #expect(brain.output.contains("1 cancelled as crosstalk"), "\(brain.output)")
    }

    /// Crosstalk that reaches the brain before the louder strike that caused it (a sensor that
    /// reports in bursts): held in the jitter buffer, it is taken back when that strike arrives,
    /// and never sounds; arriving after the quieter hit has played, the louder one cannot.
    @Test func crosstalkArrivingFirstIsTakenBackFromTheJitterBuffer() throws {
        let (brain, port) = try Self.startBrain(["--crosstalk-group", "snare,racktom", "--jitter-buffer-ms", "200"])
        let socket = try #require(RawSocket(port: port))
        defer { socket.close() }
        // One machine, one clock: the pad's offset is 0, so the brain knows each hit's time.
        socket.send(DrumMessage.ping(timeMicros: MonotonicClock.nowMicros(), offsetMicros: 0, roundTripMicros: 100).packet)
        usleep(100_000)
        for wait in [0.02, 0.6] {
            let struck = MonotonicClock.nowMicros()
            // The racktom's crosstalk, 4 ms after the snare's strike, is delivered first.
            socket.send(DrumMessage.hit(DrumHit(drum: "racktom", velocity: 0.2, padTimeMicros: struck + 4_000)).packet)
            usleep(UInt32(wait * 1e6))
            // The second time, long after the racktom played (and too late itself: late_ms=).
            socket.send(DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.9, padTimeMicros: struck)).packet)
            usleep(400_000)
        }
        #expect(eventually(within: 30) { brain.output.components("velocity=") >= 4 }, "\(brain.output)")
        #expect(brain.stop() == 0)
        let lines = brain.output.split(separator: "\n").filter { $0.hasPrefix("hit ") || $0.hasPrefix("crosstalk ") }
            .map { line in line.split(separator: " ").filter { !$0.contains("_us=") && !$0.hasPrefix("frame=") && !$0.hasPrefix("pad=") && !$0.hasPrefix("late_ms=") }
                .joined(separator: " ") }
        #expect(lines == [
            "crosstalk drum=racktom velocity=0.200 taken_back", "hit drum=snare velocity=0.900",
            "hit drum=racktom velocity=0.200", "hit drum=snare velocity=0.900",
        ], "\(brain.output)")
        #expect(brain.output.contains("1 cancelled as crosstalk (1 taken back from the jitter buffer)"), "\(brain.output)")
    }

    @Test func aGroupNamingADrumTheKitLacksSaysWhichDrumsItHas() {
        let run = Program.run("drumbrain", [
            "--output", "null", "--port", "0", "--kit", Program.repositoryRoot + "/Samples/kit", "--no-visual",
            "--crosstalk-group", "snare,tom9",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("--crosstalk-group: the kit \"Default\" has no drum tom9 (it has kick, snare"), "\(run.stderr)")
    }

    @Test func aGroupOfOneIsAnError() {
        let run = Program.run("drumbrain", ["--output", "null", "--crosstalk-group", "snare"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("name two or more drums that share a stand"), "\(run.stderr)")
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import DrumNet
import Monotonic

/// Hostile and broken clients against a running `drumbrain` on loopback (issue 10, part 2), while
/// a well-behaved pad keeps playing. Each case is bounded in count and time; the suite writes a
/// Markdown table (case, load, result) to `.build/abuse-table.md` and prints it.
///
/// Timing-sensitive (a 10,000 hits/s flood, prompt refusals): `scripts/test` runs it alone.
@Suite(.serialized)
struct AbuseTests {
    @Test func theBrainSurvivesAbuseAndKeepsPlayingAWellBehavedPad() throws {
        // The latency and promptness checks are timing: a VM whose host stops it for tenths of a
        // second fails them whatever the brain does (p99 100-165 ms was seen with a third of the
        // CPU stolen), so they follow the StallProbe rule.
        try whereTheMachineMayStall { try Self.abuse($0) }
    }

    static func abuse(_ attempt: TimingAttempt) throws {
        let brain = try AbuseBrain()
        defer { brain.process.stop() }
        let good = try #require(GoodPad(port: brain.port))
        good.start()
        var table = AbuseTable(attempt: attempt)
        let startRSS = brain.residentKiB()
        table.rssLimitKiB = startRSS * 2 + 50 * 1024

        // 1. Connect and disconnect.
        try table.run("connect and disconnect", load: "1000 cycles, one after another",
                      brain: brain, good: good) {
            var refused = 0
            for _ in 0..<1000 {
                guard let s = RawSocket(port: brain.port) else { refused += 1; continue }
                s.close()
            }
            #expect(refused == 0)
            return refused == 0 ? "every connect accepted" : "\(refused) connects failed"
        }

        // 2. Idle connections against --max-connections.
        try table.run("idle connections", load: "500 at once, --max-connections \(brain.maxConnections)",
                      brain: brain, good: good) {
            // Connecting takes a fraction of a second here, but a loaded or stalled machine can
            // take longer than the idle limit, which would then free places for later connections
            // to take. So the connections made so far are kept alive while connecting, with a
            // ping each half second to those the brain has not refused (an unrefused socket has
            // nothing to read: the brain answers only what it is sent), and the limit is judged
            // every time: the places stay taken until the last connection is made.
            var sockets: [RawSocket] = []
            var connected: [Int64] = []
            var pinged: [Bool] = []
            var refusedSeen: [Int64] = []  // when a refusal was first seen readable (0: not)
            let ping = DrumMessage.ping(timeMicros: 1, offsetMicros: nil, roundTripMicros: nil).packet
            func keepAlive() {
                let now = MonotonicClock.nowMicros()
                for i in sockets.indices where refusedSeen[i] == 0 {
                    if !pinged[i] {
                        var fd = pollfd(fd: sockets[i].fd, events: Int16(POLLIN), revents: 0)
                        if poll(&fd, 1, 0) > 0 { refusedSeen[i] = now; continue }
                        guard now - connected[i] > 200_000 else { continue }  // the brain may not have decided yet
                    }
                    _ = ping.withUnsafeBytes { Glibc.send(sockets[i].fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                    pinged[i] = true
                }
            }
            let start = MonotonicClock.nowMicros()
            let connectDeadline = start + 120_000_000
            var lastKeepAlive = start
            var failedConnects = 0
            while sockets.count < 500 && failedConnects < 20 && MonotonicClock.nowMicros() < connectDeadline {
                if let s = RawSocket(port: brain.port) {
                    sockets.append(s)
                    connected.append(MonotonicClock.nowMicros())
                    pinged.append(false)
                    refusedSeen.append(0)
                } else {
                    failedConnects += 1
                }
                if MonotonicClock.nowMicros() - lastKeepAlive > 500_000 {
                    keepAlive()
                    lastKeepAlive = MonotonicClock.nowMicros()
                }
            }
            let connecting = MonotonicClock.nowMicros() - start
            #expect(sockets.count == 500, "\(sockets.count) of 500 connected in \(ms(connecting)); \(failedConnects) connects failed")
            let ends = waitForClose(sockets, withinSeconds: brain.idleTimeoutSeconds + 4)
            for s in sockets { s.close() }
            let refused = ends.indices.filter { ends[$0].text.contains("limit") }
            let idle = ends.filter { $0.text.contains("no message") }
            let others = Set(ends.map(\.text)).filter { !$0.contains("limit") && !$0.contains("no message") }
            let seen = "\(refused.count) refused, \(idle.count) closed as idle, \(ends.filter { $0.closedMicros == 0 }.count) "
                + "still open of \(sockets.count); others said \(others)"
            #expect(refused.count + idle.count == sockets.count && ends.allSatisfy { $0.closedMicros > 0 }, "\(seen)")
            // Refused as soon as the brain accepts them, not left hanging until the idle limit
            // (seen at once, or while connecting the rest).
            let slowest = refused.map { (refusedSeen[$0] > 0 ? min(refusedSeen[$0], ends[$0].closedMicros) : ends[$0].closedMicros)
                - connected[$0] }.max() ?? 0
            attempt.timing(slowest < Int64(brain.idleTimeoutSeconds * 1e6),
                           "refusals took up to \(slowest) µs, not before the \(brain.idleTimeoutSeconds) s idle limit")
            // The limit holds: the good pad has one place, so 99 of these are held (until the
            // idle limit closes them, after the last ping) and the rest refused. Judged however
            // long connecting took; a place freed by an earlier case's connection closing late is
            // the slack of 2.
            let held = brain.maxConnections - 1
            #expect(abs(idle.count - held) <= 2,
                    "\(idle.count) connections held, the limit leaves \(held); connecting took \(ms(connecting))")
            return "all 500 connected in \(ms(connecting)); \(idle.count) held (the limit leaves \(held)) and closed by "
                + "the idle limit, \(refused.count) refused with `/drum/error` and closed "
                + "(each within \(ms(slowest)) of its connect, which the kernel completes before the brain accepts); none hung"
        }

        // 3. Slow loris: a packet's bytes trickled, one every 0.4 s.
        try table.run("slow loris", load: "20 connections each trickling a hit's bytes, 1 byte / 0.4 s",
                      brain: brain, good: good) {
            let sockets = (0..<20).compactMap { _ in RawSocket(port: brain.port) }
            let packet = DrumMessage.hit(DrumHit(drum: "snare")).packet
            let start = MonotonicClock.nowMicros()
            var closed = Array(repeating: Int64(0), count: sockets.count)
            var next = 0
            let deadline = start + Int64((brain.idleTimeoutSeconds + 4) * 1e6)
            while closed.contains(0) && MonotonicClock.nowMicros() < deadline && next < packet.count - 1 {
                for (i, s) in sockets.enumerated() where closed[i] == 0 {
                    if !s.trySend([packet[next]]) { closed[i] = MonotonicClock.nowMicros() }
                }
                next += 1
                let ends = waitForClose(sockets.enumerated().filter { closed[$0.offset] == 0 }.map(\.element),
                                        withinSeconds: 0.4)
                for end in ends where end.closedMicros > 0 {
                    if let i = sockets.firstIndex(where: { $0.fd == end.fd }) { closed[i] = end.closedMicros }
                }
            }
            for s in sockets { s.close() }
            let slowest = (closed.max() ?? 0) - start
            #expect(!closed.contains(0))
            attempt.timing(slowest < Int64((brain.idleTimeoutSeconds + 2) * 1e6),
                           "slow lorises closed after up to \(slowest) µs, over the idle limit and 2 s")
            return closed.contains(0) ? "\(closed.filter { $0 == 0 }.count) still open"
                : "all closed by the idle limit within \(ms(slowest)), after \(next) of \(packet.count) bytes"
        }

        // 4. Bad length prefixes.
        let prefixes: [(String, [UInt8])] = [
            ("zero", [0, 0, 0, 0]), ("negative (0x80000000)", [0x80, 0, 0, 0]),
            ("negative (-1)", [0xFF, 0xFF, 0xFF, 0xFF]), ("huge (0x7FFFFFFF)", [0x7F, 0xFF, 0xFF, 0xFF]),
            ("one over the limit (4097)", [0, 0, 0x10, 0x01]),
        ]
        try table.run("bad length prefixes", load: prefixes.map(\.0).joined(separator: ", ") + "; 20 connections each",
                      brain: brain, good: good) {
            var results: [String] = []
            for (name, prefix) in prefixes {
                let sockets = (0..<20).compactMap { _ in RawSocket(port: brain.port) }
                for s in sockets { _ = s.trySend(prefix) }
                let ends = waitForClose(sockets, withinSeconds: 3)
                for s in sockets { s.close() }
                let ok = ends.filter { $0.closedMicros > 0 && $0.text.contains("packet") }
                #expect(ok.count == 20, "\(name): \(ends.map(\.text))")
                results.append("\(name): \(ok.count)/20")
            }
            return "each told why in `/drum/error` and closed at once (" + results.joined(separator: "; ") + ")"
        }

        // 5. Random bytes.
        try table.run("random bytes", load: "200 connections, 1 KiB of random bytes each", brain: brain, good: good) {
            var generator = SystemRandomNumberGenerator()
            let sockets = (0..<200).compactMap { _ in RawSocket(port: brain.port) }
            for s in sockets { _ = s.trySend((0..<1024).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
            let ends = waitForClose(sockets, withinSeconds: brain.idleTimeoutSeconds + 3)
            for s in sockets { s.close() }
            let errors = ends.filter { !$0.text.isEmpty && !$0.text.contains("no message") }.count
            let idle = ends.filter { $0.text.contains("no message") }.count
            #expect(ends.allSatisfy { $0.closedMicros > 0 })
            return "all \(ends.filter { $0.closedMicros > 0 }.count) closed: \(errors) at once with `/drum/error`, "
                + "\(idle) (a plausible length, then waiting for its body) by the idle limit"
        }

        // 6. NaN and out-of-range velocities.
        try table.run("velocities", load: "NaN (f and d); ±inf, 5, -3, 1e300, MIDI 1000 and -5", brain: brain, good: good) {
            var results: [String] = []
            for (name, tag, bytes) in [("f NaN", "f", bigEndian(Float.nan.bitPattern)),
                                       ("d NaN", "d", bigEndian(Double.nan.bitPattern))] {
                let s = try #require(RawSocket(port: brain.port))
                _ = s.trySend(rawHit(tag: tag, value: bytes))
                let ends = waitForClose([s], withinSeconds: 3)
                s.close()
                #expect(ends[0].closedMicros > 0 && ends[0].text.contains("velocity"))
                results.append("\(name): refused with `/drum/error`")
            }
            let s = try #require(RawSocket(port: brain.port))
            _ = s.trySend(DrumMessage.hello(version: 1, padName: "wild", drum: "kick").packet)
            let wild: [(String, [UInt8])] = [
                ("f", bigEndian(Float.infinity.bitPattern)), ("f", bigEndian((-Float.infinity).bitPattern)),
                ("f", bigEndian(Float(5).bitPattern)), ("f", bigEndian(Float(-3).bitPattern)),
                ("d", bigEndian(Double(1e300).bitPattern)), ("i", bigEndian(UInt32(1000))),
                ("i", bigEndian(UInt32(bitPattern: -5))),
            ]
            for (tag, value) in wild { _ = s.trySend(rawHit(tag: tag, value: value)) }
            let played = brain.waitForLines(pad: "wild", count: wild.count, withinSeconds: 3)
            s.close()
            let velocities = played.compactMap { field("velocity", in: $0).flatMap(Double.init) }
            #expect(velocities == [1, 0, 1, 0, 1, 1, 0])
            results.append("others played, clamped to 0…1: " + velocities.map { String($0) }.joined(separator: ", "))
            return results.joined(separator: "; ")
        }

        // 7. Unknown drums.
        try table.run("unknown drums", load: "100 hits in 1 s: 'cowbell', a 4000-byte name, non-ASCII names, 'Snare'",
                      brain: brain, good: good) {
            let s = try #require(RawSocket(port: brain.port))
            _ = s.trySend(DrumMessage.hello(version: 1, padName: "stranger", drum: "cowbell").packet)
            let names = ["cowbell", String(repeating: "x", count: 4000), "тарелка", "🥁", "Snare"]
            // 100 per second, under the hit limit, so every one reaches the kit lookup.
            let start = MonotonicClock.nowMicros()
            for i in 0..<100 {
                let due = start + Int64(i) * 10_000
                let now = MonotonicClock.nowMicros()
                if due > now { usleep(UInt32(due - now)) }
                let message = OSCMessage("/drum/hit", [.string(names[i % names.count]), .float32(1)])
                _ = s.trySend(OSCEncoding.packet(message))
            }
            let ends = waitForClose([s], withinSeconds: 0.5)
            s.close()
            #expect(ends[0].closedMicros == 0)
            return "the connection " + (ends[0].closedMicros > 0 ? "was closed: \(ends[0].text)"
                : "stayed open; each hit ignored and counted (the totals below)")
        }

        // 8. A flood from one client.
        try table.run("flood", load: "10,000 hits/s for 3 s from one client (30,000 hits)", brain: brain, good: good) {
            let s = try #require(RawSocket(port: brain.port))
            _ = s.trySend(DrumMessage.hello(version: 1, padName: "flood", drum: "kick").packet)
            let batch = Array(repeating: DrumMessage.hit(DrumHit(drum: "kick", velocity: 0.2)).packet, count: 100).joined()
            let start = MonotonicClock.nowMicros()
            var sent = 0
            while sent < 30_000 {
                let due = start + Int64(sent) * 100  // 10,000 per second
                let now = MonotonicClock.nowMicros()
                if due > now { usleep(UInt32(due - now)) }
                _ = s.trySend(Array(batch))
                sent += 100
            }
            let seconds = Double(MonotonicClock.nowMicros() - start) / 1e6
            usleep(300_000)
            s.close()
            let played = brain.waitForLines(pad: "flood", count: Int.max, withinSeconds: 1).count
            // 200 per second and a burst of 50 (the brain's defaults).
            let allowed = Int(200 * (seconds + 0.5)) + 50
            #expect(played > 0 && played <= allowed)
            return "\(sent) sent in \(String(format: "%.2f", seconds)) s, \(played) played (limit 200/s, burst 50), "
                + "the rest dropped and counted"
        }

        good.stop()
        let totals = brain.stopAndReadTotals()
        let flood = totals.split(separator: "\n").first { $0.contains("pad flood") }.map(String.init) ?? ""
        #expect(flood.contains("hits over the rate limit dropped"))
        #expect(brain.exitStatus == 0)
        let audio = totals.split(separator: "\n").first { $0.hasPrefix("audio:") }.map(String.init) ?? ""
        // Only the unknown-drums case sent drums the kit lacks.
        #expect(audio.contains(" 100 hits for drums the kit lacks"))
        table.notes.append("The brain's totals: `\(flood)`; `\(audio)`")
        table.notes.append("Resident size (VmRSS): \(startRSS / 1024) MB at the start, at most "
                           + "\(table.maxRSSKiB / 1024) MB (limit 2× + 50 MB = \(table.rssLimitKiB / 1024) MB); "
                           + "brain exit status \(brain.exitStatus.map(String.init) ?? "?") after SIGTERM.")
        table.write()
    }
}

// MARK: - The brain under test

/// A release or debug `drumbrain --output null` on a free loopback port.
final class AbuseBrain: @unchecked Sendable {
    // @unchecked: used from the test's thread only.
    let process: BackgroundProcess
    let port: Int
    let maxConnections = 100
    let idleTimeoutSeconds = 4.0
    var exitStatus: Int32?

    init() throws {
        // A free port can be taken by another program before the brain binds it: try another.
        var started: (BackgroundProcess, Int)?
        var lastOutput = ""
        for _ in 0..<3 where started == nil {
            let port = freePort()
            let process = try #require(BackgroundProcess([
                Program.productsFolder + "/drumbrain", "--output", "null", "--port", "\(port)", "--bind", "127.0.0.1",
                "--kit", Program.repositoryRoot + "/Samples/kit", "--name", "abuse", "--no-visual",
                "--idle-timeout", "\(idleTimeoutSeconds)", "--max-connections", "\(maxConnections)",
            ]))
            let deadline = MonotonicClock.nowMicros() + 20_000_000
            while MonotonicClock.nowMicros() < deadline && !process.output.contains("listening on")
                    && !process.output.contains("Address already in use") { usleep(20_000) }
            if process.output.contains("listening on") { started = (process, port) } else { lastOutput = process.output }
        }
        let (process, port) = try #require(started, "the brain did not start: \(String(lastOutput.suffix(2_000)))")
        self.process = process
        self.port = port
    }

    /// Whether the process is still running.
    var isAlive: Bool {
        var status: Int32 = 0
        return waitpid(process.pid, &status, WNOHANG) == 0
    }

    /// VmRSS from /proc, in KiB.
    func residentKiB() -> Int {
        let status = Program.contents("/proc/\(process.pid)/status")
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }

    /// The hit lines printed so far for pad `pad`.
    func hitLines(pad: String) -> [Substring] {
        process.output.split(separator: "\n").filter { $0.hasPrefix("hit ") && $0.contains(" pad=\(pad) ") }
    }

    /// Waits until `count` hit lines of `pad` are printed (or the time is up); returns them.
    func waitForLines(pad: String, count: Int, withinSeconds: Double) -> [Substring] {
        let deadline = MonotonicClock.nowMicros() + Int64(withinSeconds * 1e6)
        var lines = hitLines(pad: pad)
        while lines.count < count && MonotonicClock.nowMicros() < deadline {
            usleep(20_000)
            lines = hitLines(pad: pad)
        }
        return lines
    }

    /// Stops it with SIGTERM and returns what it printed on stopping.
    func stopAndReadTotals() -> String {
        exitStatus = process.stop()
        return process.output.split(separator: "\n").filter { !$0.hasPrefix("hit ") }.joined(separator: "\n")
    }
}

// MARK: - The well-behaved pad

/// A pad that says hello, pings every 0.5 s (with a zero clock offset: one machine, one clock)
/// and sends a snare hit every 50 ms with its time and sequence number, on its own thread.
final class GoodPad: Sendable {
    let socket: RawSocket
    let sent = Atomic<Int>(0)
    let running = Atomic<Bool>(true)
    let finished = Atomic<Bool>(false)

    init?(port: Int) {
        guard let s = RawSocket(port: port) else { return nil }
        socket = s
        _ = s.trySend(DrumMessage.hello(version: 1, padName: "good", drum: "snare").packet)
    }

    func start() {
        Thread.detachNewThread { [self] in
            let start = MonotonicClock.nowMicros()
            var tick: Int64 = 0
            while running.load(ordering: .relaxed) {
                let due = start + tick * 50_000
                let now = MonotonicClock.nowMicros()
                if due > now { usleep(UInt32(due - now)) }
                if tick % 10 == 0 {
                    _ = socket.trySend(DrumMessage.ping(timeMicros: MonotonicClock.nowMicros(), offsetMicros: 0,
                                                 roundTripMicros: 100).packet)
                }
                // Counted before it is sent, so a hit is never played before it is counted.
                let n = sent.add(1, ordering: .relaxed).oldValue
                _ = socket.trySend(DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.7,
                                                    padTimeMicros: MonotonicClock.nowMicros(),
                                                    sequence: Int32(n))).packet)
                tick += 1
            }
            finished.store(true, ordering: .relaxed)
        }
    }

    func stop(sourceLocation: SourceLocation = #_sourceLocation) {
        running.store(false, ordering: .relaxed)
        // Its thread sleeps at most 50 ms between sends; one stuck in a send is a failure, not a hang.
        let deadline = MonotonicClock.nowMicros() + 10_000_000
        while !finished.load(ordering: .relaxed) && MonotonicClock.nowMicros() < deadline { usleep(10_000) }
        let stopped = finished.load(ordering: .relaxed), count = sent.load(ordering: .relaxed)
        #expect(stopped, "the good pad's thread did not stop within 10 s (\(count) hits sent)", sourceLocation: sourceLocation)
        socket.close()
    }
}

// MARK: - The table

/// The rows of the abuse table, each checked for the brain's life, the good pad and memory.
struct AbuseTable {
    let attempt: TimingAttempt
    var rows: [(name: String, load: String, result: String)] = []
    var notes: [String] = []
    var rssLimitKiB = 0
    var maxRSSKiB = 0

    /// Runs one case; afterwards the brain must be up, every hit the good pad sent during it
    /// played, and the resident size within the limit.
    mutating func run(_ name: String, load: String, brain: AbuseBrain, good: GoodPad,
                      _ body: () throws -> String) throws {
        let sentBefore = good.sent.load(ordering: .relaxed)
        _ = brain.waitForLines(pad: "good", count: sentBefore, withinSeconds: 5)
        let start = MonotonicClock.nowMicros()
        let outcome = try body()
        let seconds = Double(MonotonicClock.nowMicros() - start) / 1e6
        let sentAfter = good.sent.load(ordering: .relaxed)
        let lines = brain.waitForLines(pad: "good", count: sentAfter, withinSeconds: 5)
        let played = min(lines.count, sentAfter) - sentBefore
        let latencies = lines[min(sentBefore, lines.count)..<min(sentAfter, lines.count)]
            .compactMap { field("latency_us", in: $0).flatMap { Int64($0) } }.sorted()
        // Every hit line of the good pad's says its latency (it pings with its clock offset
        // before its first hit): a p99 of no latencies would judge nothing.
        #expect(latencies.count == played, "\(name): \(latencies.count) of \(played) played hits say their latency")
        let p99 = latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        let rss = brain.residentKiB()
        maxRSSKiB = max(maxRSSKiB, rss)
        let alive = brain.isAlive
        #expect(alive, "\(name): the brain died")
        #expect(played == sentAfter - sentBefore, "\(name): the good pad sent \(sentAfter - sentBefore), \(played) played")
        #expect(rss < rssLimitKiB, "\(name): VmRSS \(rss) KiB over \(rssLimitKiB)")
        // The latency budget's network part is under 1 ms on loopback; allow a noisy VM 50 ms.
        attempt.timing(p99 < 50_000, "\(name): the good pad's p99 latency \(p99) µs")
        let lost = sentAfter - sentBefore - played
        let result = (alive ? "survived" : "**died**") + "; \(outcome). Good pad: \(played) of \(sentAfter - sentBefore) "
            + "hits played (lost: \(lost == 0 ? "none" : "**\(lost)**")), p99 latency \(ms(p99)); "
            + "VmRSS \(rss / 1024) MB; \(String(format: "%.1f", seconds)) s"
        rows.append((name, load, result))
    }

    /// Writes the table to `.build/abuse-table.md` and prints it.
    func write() {
        var text = "| case | load | result |\n|---|---|---|\n"
        for row in rows { text += "| \(row.name) | \(row.load) | \(row.result) |\n" }
        text += "\n" + notes.map { $0 + "\n" }.joined()
        let path = Program.repositoryRoot + "/.build/abuse-table.md"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        print("abuse table (\(path)):\n" + text)
    }
}

// MARK: - Helpers

/// How a socket ended: the text of the `/drum/error` it got, and when it was closed (0: not).
struct SocketEnd {
    var fd: Int32
    var text = ""
    var closedMicros: Int64 = 0
}

/// Reads every socket until the peer closes it or the time is up, with poll(2).
func waitForClose(_ sockets: [RawSocket], withinSeconds: Double) -> [SocketEnd] {
    var ends = sockets.map { SocketEnd(fd: $0.fd) }
    var bytes = Array(repeating: [UInt8](), count: sockets.count)
    let deadline = MonotonicClock.nowMicros() + Int64(withinSeconds * 1e6)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while ends.contains(where: { $0.closedMicros == 0 }) {
        let left = deadline - MonotonicClock.nowMicros()
        if left <= 0 { break }
        let open = ends.indices.filter { ends[$0].closedMicros == 0 }
        var fds = open.map { pollfd(fd: ends[$0].fd, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&fds, nfds_t(fds.count), Int32(min(left / 1000 + 1, 200)))
        if ready <= 0 { continue }
        for (k, i) in open.enumerated() where fds[k].revents != 0 {
            let n = read(ends[i].fd, &buffer, buffer.count)
            if n > 0 { bytes[i] += buffer[..<n]; continue }
            ends[i].closedMicros = MonotonicClock.nowMicros()
            ends[i].text = messages(in: bytes[i]).compactMap {
                if case .error(let text) = $0 { text } else { nil }
            }.joined(separator: "; ")
        }
    }
    return ends
}

extension RawSocket {
    /// Sends without blocking for long; false when the peer has closed the connection.
    func trySend(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }
}

/// A `/drum/hit s snare <tag> <value>` packet built by hand (the encoder refuses NaN nowhere,
/// but this also makes `d` and `i` velocities).
func rawHit(tag: String, value: [UInt8]) -> [UInt8] {
    func padded(_ text: String) -> [UInt8] {
        var b = Array(text.utf8) + [0]
        while b.count % 4 != 0 { b.append(0) }
        return b
    }
    let body = padded("/drum/hit") + padded(",s" + tag) + padded("snare") + value
    return bigEndian(UInt32(body.count)) + body
}

func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
}

/// The value of `name=` in a hit line.
func field(_ name: String, in line: Substring) -> String? {
    line.split(separator: " ").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
}

func ms(_ micros: Int64) -> String { String(format: "%.1f ms", Double(micros) / 1000) }

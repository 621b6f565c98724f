#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TestSupport
@testable import DrumNet
import Monotonic

/// Collects what a brain server receives, from its network thread.
final class HitCollector: Sendable {
    private let hits = Mutex<[ReceivedHit]>([])
    func add(_ hit: ReceivedHit) { hits.withLock { $0.append(hit) } }
    var all: [ReceivedHit] { hits.withLock { $0 } }
}

/// Collects a pad link's events with the time each arrived.
final class EventCollector: Sendable {
    private let events = Mutex<[(PadLink.Event, Int64)]>([])
    func add(_ event: PadLink.Event) { events.withLock { $0.append((event, MonotonicClock.nowMicros())) } }
    var all: [PadLink.Event] { events.withLock { $0.map(\.0) } }
    func firstTime(where match: (PadLink.Event) -> Bool, after: Int64 = 0) -> Int64? {
        events.withLock { $0.first { match($0.0) && $0.1 >= after }?.1 }
    }
}

func startBrain(port: Int = 0, limits: BrainConnection.Limits = .init(), maxConnections: Int = 300,
                collector: HitCollector) async throws -> BrainServer {
    try await BrainServer(
        configuration: .init(host: "127.0.0.1", port: port, brainName: "test-brain", kitName: "Test Kit",
                             limits: limits, maxConnections: maxConnections),
        onHit: { collector.add($0) })
}

func messages(in bytes: [UInt8]) -> [DrumMessage] {
    var framer = PacketFramer()
    framer.append(bytes)
    var out: [DrumMessage] = []
    while let packet = try? framer.nextPacket(), let message = try? DrumMessage(OSCDecoding.message(packet)) {
        out.append(message)
    }
    return out
}

@Suite(.serialized)
struct NetworkTests {
    @Test func padLinkDeliversHitsInOrderWithClockSyncAndStatistics() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        let events = EventCollector()
        let link = try PadLink(configuration: .init(padName: "pad-a", drum: "snare",
                                                target: .address(host: "127.0.0.1", port: brain.port),
                                                pingIntervalMicros: 50_000)) { events.add($0) }
        link.start()
        #expect(await eventually(within: 10) { events.all.contains(.welcomed(brainName: "test-brain", kitName: "Test Kit")) })
        // Connected to the brain's address first and welcomed once, nothing lost or refused.
        #expect(events.all == [.connected(address: "127.0.0.1:\(brain.port)"),
                               .welcomed(brainName: "test-brain", kitName: "Test Kit")], "\(events.all)")
        // Wait for a few pings so the pad knows the brain's clock and tells it.
        try await Task.sleep(for: .milliseconds(300))
        let sending = MonotonicClock.nowMicros()
        for i in 0..<50 { link.send(DrumHit(drum: "snare", velocity: Float(i) / 50)) }
        #expect(await eventually(within: 10) { collector.all.count == 50 })
        let collected = MonotonicClock.nowMicros()
        let hits = collector.all
        #expect(hits.map(\.hit.sequence) == (0..<50).map { Int32($0) })
        #expect(hits.allSatisfy { $0.padName == "pad-a" })
        // Same host, same monotonic clock: the estimated offset is near 0, and each hit's
        // latency is known and no longer than the test saw between sending and collecting
        // (how long that is depends on the machine's load, not on the code).
        let stats = await link.statistics()
        #expect(stats.sentHits == 50 && stats.droppedHits == 0)
        #expect(abs(stats.clockOffsetMicros ?? 1_000_000) < 5_000)
        #expect(hits.allSatisfy { ($0.latencyMicros ?? -1) >= -5_000 && ($0.latencyMicros ?? .max) <= collected - sending + 5_000 },
                "latencies \(hits.map { $0.latencyMicros ?? -1 }) µs; sent to collected \(collected - sending) µs")
        let pads = try await brain.statistics()
        #expect(pads.count == 1 && pads[0].padName == "pad-a" && pads[0].drum == "snare" && pads[0].hits == 50)
        #expect(pads[0].roundTripMicros != nil)
        await link.stop()
        let totals = await brain.stop()
        #expect(totals.first?.hits == 50)
    }

    @Test(.enabled(if: toolAvailable("oscsend"), "needs liblo's oscsend (apt-get install liblo-tools)"))
    func oscsendPlaysTheBrain() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        let url = "osc.tcp://127.0.0.1:\(brain.port)"
        // The unknown address first: by the time the hits sent after it have arrived, its
        // connection has long been read (sent last, the brain could stop before reading it).
        for arguments in [["/lights/on", "i", "1"], ["/drum/hit", "s", "snare"], ["/drum/hit", "sf", "kick", "0.5"],
                          ["/drum/hit", "si", "hihat", "127"]] {
            let run = Program.runTool("oscsend", [url] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(await eventually(within: 10) { collector.all.count == 3 })
        #expect(collector.all.map(\.hit.drum) == ["snare", "kick", "hihat"])
        #expect(collector.all.map(\.hit.velocity) == [1, 0.5, 1])
        // The last oscsend may still be unread when the hits are in (seen under load): wait for it.
        _ = await eventually(within: 3) {
            let open = (try? await brain.statistics()) ?? [], closed = (try? await brain.closedStatistics()) ?? []
            return (open + closed).map(\.unknownMessages).reduce(0, +) == 1
        }
        let totals = await brain.stop()
        #expect(totals.map(\.unknownMessages).reduce(0, +) == 1)
    }

    @Test(.enabled(if: toolAvailable("oscdump"), "needs liblo's oscdump (apt-get install liblo-tools)"))
    func padStreamPrintsCorrectlyInOscdump() async throws {
        let port = freePort()
        guard let dump = BackgroundProcess(["oscdump", "-L", "osc.tcp://:\(port)"]) else {
            Issue.record("cannot start oscdump")
            return
        }
        let events = EventCollector()
        let link = try PadLink(configuration: .init(padName: "pad-dump", drum: "kick",
                                                target: .address(host: "127.0.0.1", port: port))) { events.add($0) }
        link.start()
        #expect(await eventually(within: 10) { events.all.contains(.connected(address: "127.0.0.1:\(port)")) })
        link.send(DrumHit(drum: "kick", velocity: 0.75, padTimeMicros: 123_456_789))
        link.send(DrumHit(drum: "kick", velocity: 0.25, padTimeMicros: 123_556_789))
        #expect(await eventually(within: 10) { dump.output.contains("123556789 1") })
        await link.stop()
        let output = dump.output
        dump.stop()
        #expect(output.contains("/drum/hello iss \(DrumMessage.protocolVersion) \"pad-dump\" \"kick\""))
        #expect(output.contains("/drum/ping h "))
        #expect(output.contains("/drum/hit sfhi \"kick\" 0.750000 123456789 0"))
        #expect(output.contains("/drum/hit sfhi \"kick\" 0.250000 123556789 1"))
    }

    @Test(arguments: [
        [0, 0, 0, 0] as [UInt8],                          // zero length
        [0xFF, 0xFF, 0xFF, 0xF0],                         // negative
        [0x00, 0x10, 0x00, 0x00],                         // 1 MiB: over the limit
        [0, 0, 0, 8] + Array("/x\0\0abc\0".utf8),        // no type tags
    ])
    func malformedInputGetsAnErrorAndTheConnectionClosed(_ bytes: [UInt8]) async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        guard let socket = RawSocket(port: brain.port) else { Issue.record("cannot connect"); return }
        socket.send(DrumMessage.hit(DrumHit(drum: "kick")).packet + bytes)
        let (reply, closed) = socket.readUntilClosed()
        socket.close()
        #expect(closed)
        guard case .error(let text)? = messages(in: reply).last else {
            Issue.record("no /drum/error in \(reply)")
            return
        }
        #expect(!text.isEmpty)
        #expect(collector.all.map(\.hit.drum) == ["kick"])  // what came before still played
        // The brain still serves others.
        guard let other = RawSocket(port: brain.port) else { Issue.record("brain gone"); return }
        other.send(DrumMessage.hit(DrumHit(drum: "snare")).packet)
        #expect(await eventually(within: 10) { collector.all.count == 2 })
        other.close()
        await brain.stop()
    }

    @Test func connectionsBeyondTheLimitAreRefusedCleanly() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(maxConnections: 2, collector: collector)
        let a = RawSocket(port: brain.port)!, b = RawSocket(port: brain.port)!
        a.send(DrumMessage.ping(timeMicros: 1, offsetMicros: nil, roundTripMicros: nil).packet)
        b.send(DrumMessage.ping(timeMicros: 1, offsetMicros: nil, roundTripMicros: nil).packet)
        #expect(await eventually(within: 10) { ((try? await brain.statistics())?.count ?? 0) == 2 })
        let c = RawSocket(port: brain.port)!
        let (reply, closed) = c.readUntilClosed()
        #expect(closed)
        if case .error(let text)? = messages(in: reply).first { #expect(text.contains("limit")) }
        else { Issue.record("no error for the third connection") }
        for s in [a, b, c] { s.close() }
        await brain.stop()
    }

    /// A client that sends its hits and closes at once (as oscsend does) is played and its
    /// connection closed at once, not left to the idle limit: the brain sees the close together
    /// with the last bytes.
    @Test func aClientThatSendsAndClosesIsPlayedAndClosedAtOnce() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        for round in 0..<20 {
            let socket = RawSocket(port: brain.port)!
            socket.send(DrumMessage.hit(DrumHit(drum: "snare", sequence: Int32(round))).packet)
            socket.close()
        }
        #expect(await eventually(within: 10) { collector.all.count == 20 })
        #expect(await eventually(within: 10) { ((try? await brain.closedStatistics())?.count ?? 0) == 20 })
        #expect(try await brain.statistics().isEmpty)
        await brain.stop()
    }

    /// A client that pings and never reads its pongs fills the socket's buffers; once the brain
    /// holds more than `BrainLoop.outboxLimit` unsent bytes for it, it closes the connection
    /// instead of growing, and goes on serving other pads.
    @Test func aClientThatNeverReadsItsPongsIsClosedNotBuffered() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        let greedy = RawSocket(port: brain.port)!
        var small: Int32 = 4096  // a small receive buffer, so the brain's side fills sooner
        setsockopt(greedy.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        let pings = Array(repeating: DrumMessage.ping(timeMicros: 1, offsetMicros: nil, roundTripMicros: nil).packet,
                          count: 1000).joined()
        let batch = Array(pings)
        var sentBytes = 0
        // Sent without blocking, and the brain's own record of the close checked between sends:
        // a blocked send can wait on TCP's zero-window probes (backing off to 2 minutes) long
        // after the brain has closed, on a loaded machine.
        let deadline = MonotonicClock.nowMicros() + 20_000_000
        var closed = false
        while !closed && MonotonicClock.nowMicros() < deadline {
            let sent = batch.withUnsafeBytes {
                Glibc.send(greedy.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if sent > 0 {
                sentBytes += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                usleep(5_000)
            } else if sent < 0 && errno != EINTR {
                break  // reset by the brain's close
            }
            closed = ((try? await brain.closedStatistics())?.count ?? 0) == 1
        }
        #expect(closed || MonotonicClock.nowMicros() < deadline, "still open after \(sentBytes) bytes of pings")
        #expect(await eventually(within: 10) { ((try? await brain.closedStatistics())?.count ?? 0) == 1 })
        greedy.close()
        let good = RawSocket(port: brain.port)!
        good.send(DrumMessage.hit(DrumHit(drum: "snare")).packet)
        #expect(await eventually(within: 10) { collector.all.count == 1 })
        good.close()
        await brain.stop()
    }

    @Test func silentConnectionsAreClosedAfterTheIdleLimit() async throws {
        let brain = try await startBrain(limits: .init(idleTimeoutMicros: 200_000), collector: HitCollector())
        let socket = RawSocket(port: brain.port)!
        let start = MonotonicClock.nowMicros()
        let (reply, closed) = socket.readUntilClosed()
        let waited = MonotonicClock.nowMicros() - start
        socket.close()
        // Closed by the idle check (every second), well before the read would time out.
        #expect(closed && waited < 8_000_000)
        if case .error(let text)? = messages(in: reply).first { #expect(text.contains("no message")) }
        else { Issue.record("no idle error") }
        await brain.stop()
    }

    @Test func padReconnectsWithinTwoSecondsOfTheBrainsReturn() async throws {
        let collector = HitCollector()
        var brain = try await startBrain(collector: collector)
        let port = brain.port
        let events = EventCollector()
        let link = try PadLink(configuration: .init(padName: "pad-r", drum: "kick",
                                                target: .address(host: "127.0.0.1", port: port))) { events.add($0) }
        link.start()
        #expect(await eventually(within: 10) { events.all.contains { if case .welcomed = $0 { true } else { false } } })
        await brain.stop()
        #expect(await eventually(within: 10) { events.all.contains { if case .lost = $0 { true } else { false } } })
        // Down for a while: hits now are dropped, and the backoff grows to its cap.
        try await Task.sleep(for: .milliseconds(1500))
        link.send(DrumHit(drum: "kick"))
        link.send(DrumHit(drum: "kick"))
        let restarted = MonotonicClock.nowMicros()
        brain = try await startBrain(port: port, collector: collector)
        #expect(await eventually(within: 10) {
            events.firstTime(where: { if case .welcomed = $0 { true } else { false } }, after: restarted) != nil
        })
        let back = events.firstTime(where: { if case .welcomed = $0 { true } else { false } }, after: restarted)!
        #expect(back - restarted < 2_000_000)
        #expect(events.all.contains(.droppedWhileDisconnected(count: 2)))
        link.send(DrumHit(drum: "kick"))
        #expect(await eventually(within: 10) { collector.all.count == 1 })
        let stats = await link.stop()
        #expect(stats.reconnects == 1 && stats.droppedHits == 2)
        await brain.stop()
    }
}


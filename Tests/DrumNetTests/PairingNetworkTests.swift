#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import DrumNet

/// Pairing over loopback: a keyed BrainServer with PadLinks and liblo's oscsend.
@Suite(.serialized)
struct PairingNetworkTests {
    static let key = PairingKey(bytes: Array("pairing-network-test-key-0123456".utf8))

    func startKeyedBrain(_ collector: HitCollector) async throws -> BrainServer {
        try await BrainServer(
            configuration: .init(host: "127.0.0.1", port: 0, brainName: "test-brain", kitName: "Test Kit",
                                 key: Self.key),
            onHit: { collector.add($0) })
    }

    func link(port: Int, key: PairingKey?, events: EventCollector) throws -> PadLink {
        try PadLink(configuration: .init(padName: "pad-k", drum: "snare", target: .address(host: "127.0.0.1", port: port),
                                     pingIntervalMicros: 50_000, key: key)) { events.add($0) }
    }

    @Test func rightKeyPlays() async throws {
        let collector = HitCollector()
        let brain = try await startKeyedBrain(collector)
        let events = EventCollector()
        let pad = try link(port: brain.port, key: Self.key, events: events)
        pad.start()
        #expect(await eventually(within: 10) { events.all.contains(.welcomed(brainName: "test-brain", kitName: "Test Kit")) })
        for _ in 0..<10 { pad.send(DrumHit(drum: "snare")) }
        #expect(await eventually(within: 10) { collector.all.count == 10 })
        #expect(!events.all.contains { if case .pairing = $0 { true } else { false } })
        await pad.stop()
        let totals = await brain.stop()
        #expect(totals.map(\.errors).reduce(0, +) == 0)
    }

    @Test(arguments: [
        (PairingKey(bytes: Array("a different key, long enough".utf8)) as PairingKey?, BrainConnection.wrongKeyMessage),
        (nil, nil),
    ])
    func wrongOrNoKeyIsRefusedAndRetries(key: PairingKey?, error: String?) async throws {
        let collector = HitCollector()
        let brain = try await startKeyedBrain(collector)
        let events = EventCollector()
        let pad = try link(port: brain.port, key: key, events: events)
        pad.start()
        if let error {
            #expect(await eventually(within: 10) { events.all.contains(.brainError(error)) })
        } else {
            #expect(await eventually(within: 10) { events.all.contains(.pairing(.brainNeedsKey)) })
        }
        // It keeps retrying (backing off): a second connection is refused too, and nothing plays.
        #expect(await eventually(within: 10) { events.all.filter { if case .connected = $0 { true } else { false } }.count >= 2 })
        for _ in 0..<5 { pad.send(DrumHit(drum: "snare")) }
        try await Task.sleep(for: .milliseconds(200))
        #expect(collector.all.isEmpty)
        #expect(!events.all.contains { if case .welcomed = $0 { true } else { false } })
        await pad.stop()
        let totals = await brain.stop()
        if error != nil { #expect(totals.map(\.errors).reduce(0, +) >= 1) }
    }

    @Test func keyedPadMeetingAnOpenBrainPlaysAndSaysSoOnce() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        let events = EventCollector()
        let pad = try link(port: brain.port, key: Self.key, events: events)
        pad.start()
        #expect(await eventually(within: 10) { events.all.contains(.pairing(.brainAsksNoKey)) })
        pad.send(DrumHit(drum: "snare"))
        #expect(await eventually(within: 10) { collector.all.count == 1 })
        await pad.stop()
        await brain.stop()
    }

    @Test(.enabled(if: toolAvailable("oscsend"), "needs liblo's oscsend (apt-get install liblo-tools)"))
    func oscsendIsRefusedByAKeyedBrain() async throws {
        let collector = HitCollector()
        let brain = try await startKeyedBrain(collector)
        let run = Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(brain.port)", "/drum/hit", "s", "snare"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(await eventually(within: 10) {
            ((try? await brain.closedStatistics()) ?? []).map(\.errors).reduce(0, +) == 1
        })
        #expect(collector.all.isEmpty)
        await brain.stop()
    }

    @Test func rawHitIsAnsweredWithTheNeedsKeyError() async throws {
        let brain = try await startKeyedBrain(HitCollector())
        guard let socket = RawSocket(port: brain.port) else { Issue.record("cannot connect"); return }
        socket.send(DrumMessage.hit(DrumHit(drum: "snare")).packet)
        let (bytes, closed) = socket.readUntilClosed()
        socket.close()
        #expect(closed)
        #expect(messages(in: bytes) == [.error(BrainConnection.needsKeyMessage)])
        await brain.stop()
    }

    @Test func keyFilesAreCheckedAndErrorsNeverShowTheKey() throws {
        let good = Program.temporaryFile("s3cret-pairing-key-material\n", suffix: ".key")
        defer { unlink(good) }
        chmod(good, 0o600)
        let loaded = try PairingKey.load(path: good)
        #expect(loaded.warning == nil)
        #expect(loaded.key.answer(nonce: [1], padName: "p")
                == PairingKey(bytes: Array("s3cret-pairing-key-material".utf8)).answer(nonce: [1], padName: "p"))
        chmod(good, 0o644)
        #expect(try PairingKey.load(path: good).warning?.contains("chmod 600") == true)

        let short = Program.temporaryFile("too-short-s3cret\n\n".replacingOccurrences(of: "-s3cret", with: ""), suffix: ".key")
        defer { unlink(short) }
        do {
            _ = try PairingKey.load(path: short)
            Issue.record("a short key was accepted")
        } catch {
            #expect(error.description.contains(short) && error.description.contains("head -c 32 /dev/urandom"))
            #expect(!error.description.contains("too-short"))
        }
        #expect(throws: DrumNetError.self) { try PairingKey.load(path: "/nonexistent/drum.key") }
    }
}

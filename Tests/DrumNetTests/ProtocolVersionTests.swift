#if canImport(Glibc)
import Glibc
#endif
import Monotonic
import Synchronization
import Testing
import TestSupport
@testable import DrumNet

/// Protocol 2 (a hit's strength, the hello's sensor rate) and version 1 peers work together
/// both ways; a bare `/drum/hit s snare` still plays.
struct ProtocolVersionTests {
    @Test func aHitsStrengthRoundTripsAndBothDecodersAgree() throws {
        let hit = DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: 123_456, sequence: 7, strength: 3.25)
        let packet = DrumMessage.hit(hit).packet
        let body = Array(packet.dropFirst(4))
        #expect(try DrumMessage(OSCDecoding.message(body[...])) == .hit(hit))
        var last = ""
        let fast = body.withUnsafeBytes { DrumHit.fastDecode($0, drum: &last) }
        #expect(fast == hit)
        // Integer velocity with a strength, on both paths.
        let midi = OSCEncoding.packet(OSCMessage("/drum/hit", [.string("kick"), .int32(127), .int64(5), .int32(1), .float32(0.75)]))
        let midiBody = Array(midi.dropFirst(4))
        let general = try DrumMessage(OSCDecoding.message(midiBody[...]))
        #expect(general == .hit(DrumHit(drum: "kick", velocity: 1, padTimeMicros: 5, sequence: 1, strength: 0.75)))
        #expect(midiBody.withUnsafeBytes { DrumHit.fastDecode($0, drum: &last) }.map { DrumMessage.hit($0) } == general)
    }

    /// `/drum/felt`: a push the pad felt through its stand, with all five of a protocol 2 hit's
    /// arguments; anything less is refused as malformed.
    @Test func aFeltPushRoundTripsAndAnIncompleteOneIsRefused() throws {
        let push = DrumHit(drum: "snare", velocity: 0.25, padTimeMicros: 99, sequence: 3, strength: 0.5, felt: true)
        let packet = DrumMessage.hit(push).packet
        #expect(try OSCDecoding.message(packet.dropFirst(4)).address == "/drum/felt")
        #expect(try DrumMessage(OSCDecoding.message(packet.dropFirst(4))) == .hit(push))
        var last = ""
        #expect(Array(packet.dropFirst(4)).withUnsafeBytes { DrumHit.fastDecode($0, drum: &last) } == nil)  // not a hit
        let bad: [[OSCArgument]] = [
            [.string("snare"), .float32(0.25), .int64(99), .int32(3)],
            [.string("snare"), .float32(0.25), .int64(99), .int32(3), .float32(-1)],
            [.string("snare"), .float32(.nan), .int64(99), .int32(3), .float32(0.5)],
            [.string(""), .float32(0.25), .int64(99), .int32(3), .float32(0.5)],
            [.string("snare"), .int32(20), .int64(99), .int32(3), .float32(0.5)],
        ]
        for arguments in bad {
            let body = OSCEncoding.packet(OSCMessage("/drum/felt", arguments)).dropFirst(4)
            #expect(throws: DrumNetError.self, "\(arguments)") { try DrumMessage(OSCDecoding.message(body)) }
        }
    }

    /// The brain counts felt pushes apart from hits: their own numbers make no gap in the hits',
    /// their lateness is not the pad's, and one with an implausible time is refused, not
    /// delivered (it could only teach the stands wrong).
    @Test func theBrainCountsFeltPushesApartFromHits() {
        var c = BrainConnection(connectionID: 1, address: "a", brainName: "b", kitName: "k", nowMicros: 0)
        _ = c.receive(DrumMessage.hello(version: 2, padName: "p", drum: "snare").packet, nowMicros: 1)
        // The pad's clock is 1 s behind the brain's.
        _ = c.receive(DrumMessage.ping(timeMicros: 1_000, offsetMicros: 1_000_000, roundTripMicros: 500).packet, nowMicros: 1_001_100)
        #expect(c.statistics.clockOffsetMicros == 1_000_000)
        for n in 0..<3 {
            let hit = DrumHit(drum: "snare", velocity: 1, padTimeMicros: 2_000, sequence: Int32(n), strength: 2)
            let push = DrumHit(drum: "snare", velocity: 0.1, padTimeMicros: 2_000, sequence: Int32(100 + n), strength: 0.3, felt: true)
            #expect(c.receive(DrumMessage.hit(hit).packet + DrumMessage.hit(push).packet, nowMicros: 1_012_000)
                    == [.deliver(hit, latencyMicros: 10_000), .deliver(push, latencyMicros: 10_000)])
        }
        #expect(c.statistics.hits == 3 && c.statistics.felt == 3 && c.statistics.sequenceGaps == 0)
        #expect(c.statistics.latencyMicros.count == 3)  // the hits' only
        let wild = DrumHit(drum: "snare", velocity: 0.1, padTimeMicros: Int64.max - 5, sequence: 103, strength: 0.3, felt: true)
        #expect(c.receive(DrumMessage.hit(wild).packet, nowMicros: 1_013_000).isEmpty)
        #expect(c.statistics.refusedTimes == 1 && c.statistics.felt == 4)
    }

    @Test func aStrengthThatIsNoNumberOrNegativeIsRefused() {
        for strength: Float in [.nan, -1, .infinity, -.infinity] { refused(strength) }
    }

    func refused(_ strength: Float) {
        let packet = OSCEncoding.packet(OSCMessage("/drum/hit", [.string("snare"), .float32(1), .int64(5), .int32(1), .float32(strength)]))
        let body = Array(packet.dropFirst(4))
        var last = ""
        #expect(body.withUnsafeBytes { DrumHit.fastDecode($0, drum: &last) } == nil)
        #expect(throws: DrumNetError.self) { try DrumMessage(OSCDecoding.message(body[...])) }
    }

    @Test func helloCarriesTheRateAndABadRateIsRefused() throws {
        let hello = DrumMessage.hello(version: 2, padName: "p", drum: "snare", rateHz: 250)
        #expect(try DrumMessage(OSCDecoding.message(hello.packet.dropFirst(4))) == hello)
        for bad: Float in [0, -250, .nan, .infinity] {
            let packet = OSCEncoding.packet(OSCMessage("/drum/hello", [.int32(2), .string("p"), .string("snare"), .float32(bad)]))
            #expect(throws: DrumNetError.self) { try DrumMessage(OSCDecoding.message(packet.dropFirst(4))) }
        }
    }

    @Test func theBrainLearnsTheRateFromASecondHelloAndWelcomesOnce() {
        var c = BrainConnection(connectionID: 1, address: "a", brainName: "b", kitName: "k", nowMicros: 0)
        let first = c.receive(DrumMessage.hello(version: 2, padName: "p", drum: "snare").packet, nowMicros: 1)
        #expect(first == [.greeted, .send(.welcome(version: 2, brainName: "b", kitName: "k"))])
        // Greeted again: the brain learns the rate (the latency, the stands) before any hit.
        let second = c.receive(DrumMessage.hello(version: 2, padName: "p", drum: "snare", rateHz: 1600).packet, nowMicros: 2)
        #expect(second == [.greeted] && c.statistics.rateHz == 1600 && c.statistics.version == 2)
        // A hello under another name renames the connection but makes no second pad known.
        let renamed = c.receive(DrumMessage.hello(version: 2, padName: "q", drum: "snare").packet, nowMicros: 3)
        #expect(renamed.isEmpty && c.statistics.padName == "q")
        // A bare hit from any OSC client still plays.
        let bare = c.receive(OSCEncoding.packet(OSCMessage("/drum/hit", [.string("snare")])), nowMicros: 3)
        #expect(bare == [.deliver(DrumHit(drum: "snare"), latencyMicros: nil)])
    }

    /// A brain of `version` on a plain socket: welcomes the first hello, records every message.
    final class FakeBrain: @unchecked Sendable {
        // @unchecked: `messages` behind its mutex; the fds are set once.
        let port: Int
        let version: Int32
        private let listenFD: Int32
        let messages = Mutex<[DrumMessage]>([])

        init(version: Int32) {
            self.version = version
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            listen(fd, 4)
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            listenFD = fd
            port = Int(UInt16(bigEndian: bound.sin_port))
            let me = Unmanaged.passRetained(self).toOpaque()
            var thread = pthread_t()
            pthread_create(&thread, nil, { argument in
                Unmanaged<FakeBrain>.fromOpaque(argument!).takeRetainedValue().serve()
                return nil
            }, me)
            pthread_detach(thread)
        }

        private func serve() {
            let fd = accept(listenFD, nil, nil)
            guard fd >= 0 else { return }
            var timeout = timeval(tv_sec: 20, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var framer = PacketFramer()
            var buffer = [UInt8](repeating: 0, count: 4096)
            var welcomed = false
            while true {
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { break }
                framer.append(buffer[..<n])
                while let packet = try? framer.nextPacket() {
                    guard let message = try? DrumMessage(OSCDecoding.message(packet)) else { continue }
                    messages.withLock { $0.append(message) }
                    if case .hello = message, !welcomed {
                        welcomed = true
                        let reply = DrumMessage.welcome(version: version, brainName: "old", kitName: "k").packet
                        _ = reply.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                    }
                }
            }
            close(fd)
            close(listenFD)
        }

        var hits: [DrumHit] { messages.withLock { $0.compactMap { if case .hit(let h) = $0 { h } else { nil } } } }
        var hellos: [DrumMessage] { messages.withLock { $0.filter { if case .hello = $0 { true } else { false } } } }
    }

    static let versions: [Int32] = [1, 2]
    @Test(arguments: versions)
    func aPadSendsProtocol2OnlyToABrainThatSpeaksIt(version: Int32) async throws {
        let brain = FakeBrain(version: version)
        let welcomed = Mutex(false)
        let link = try PadLink(configuration: .init(padName: "p", drum: "snare", target: .address(host: "127.0.0.1", port: brain.port),
                                                pingIntervalMicros: 60_000_000)) { event in
            if case .welcomed = event { welcomed.withLock { $0 = true } }
        }
        link.start()
        // The pad sends protocol 2 only once welcomed: wait for that (a loaded machine may take
        // seconds), then for the rate's second hello.
        #expect(await eventually(within: 60) { welcomed.withLock { $0 } })
        link.setRate(250)
        if version >= 2 { #expect(await eventually(within: 60) { brain.hellos.count >= 2 }) }
        // A push felt through the stand goes to a brain of protocol 2 only, then a hit.
        link.send(DrumHit(drum: "snare", velocity: 0.2, padTimeMicros: 8, strength: 0.4, felt: true))
        link.send(DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: 10, strength: 2.5))
        #expect(await eventually(within: 60) { brain.hits.contains { !$0.felt } }, "\(brain.messages.withLock { $0 })")
        let felt = await link.statistics().sentFelt
        await link.stop()
        let hit = brain.hits.last
        #expect(hit?.strength == (version >= 2 ? 2.5 : nil))
        #expect(hit?.sequence == 0)  // the felt push did not take a hit's number
        #expect(brain.hits.filter(\.felt) == (version >= 2 ? [DrumHit(drum: "snare", velocity: 0.2, padTimeMicros: 8, sequence: 0,
                                                                     strength: 0.4, felt: true)] : []))
        #expect(felt == (version >= 2 ? 1 : 0))
        #expect(brain.hellos.first == .hello(version: DrumMessage.protocolVersion, padName: "p", drum: "snare"))
        #expect(brain.hellos.count == (version >= 2 ? 2 : 1))
        if version >= 2 {
            #expect(brain.hellos.last == .hello(version: 2, padName: "p", drum: "snare", rateHz: 250))
        }
    }
}

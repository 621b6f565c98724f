import AllocationCounter
import Testing
@testable import DrumNet

/// The brain's fast path for `/drum/hit` (`DrumHit.fastDecode`) and its zero-copy framing
/// (`PacketFramer.forEachPacket`) give exactly what the general path gives.
struct HitFastPathTests {
    /// What the general path makes of one message's bytes: a hit, or nil (another message or an
    /// error).
    static func generalHit(_ bytes: [UInt8]) -> DrumHit? {
        guard case .hit(let hit)? = try? DrumMessage(OSCDecoding.message(bytes)) else { return nil }
        return hit
    }

    static func fastHit(_ bytes: [UInt8], drum: inout String) -> DrumHit? {
        bytes.withUnsafeBytes { DrumHit.fastDecode($0, drum: &drum) }
    }

    static func message(_ arguments: [OSCArgument], address: String = "/drum/hit") -> [UInt8] {
        var bytes: [UInt8] = []
        OSCEncoding.appendMessage(OSCMessage(address, arguments), to: &bytes)
        return bytes
    }

    /// Every form the pads and liblo send takes the fast path, with the general path's result.
    @Test(arguments: [
        [.string("snare")],
        [.string("snare"), .float32(0.25)],
        [.string("snare"), .float32(7)],
        [.string("snare"), .float32(-1)],
        [.string("kick"), .int32(64)],
        [.string("kick"), .int32(1000)],
        [.string("kick"), .float32(0.5), .int64(-12)],
        [.string("kick"), .float32(0.5), .int64(123_456_789_012), .int32(7)],
        [.string("tom"), .int32(-5), .int64(1), .int32(-1)],
        [.string("a-drum-name-longer-than-fifteen-bytes"), .float32(1), .int64(5), .int32(9)],
        [.string("cymbale-é"), .float32(1)],
    ] as [[OSCArgument]])
    func usualHitsTakeTheFastPathAndAgree(_ arguments: [OSCArgument]) throws {
        let bytes = Self.message(arguments)
        var drum = ""
        let fast = try #require(Self.fastHit(bytes, drum: &drum))
        #expect(fast == Self.generalHit(bytes))
        #expect(drum == fast.drum)
        // Again with the name remembered: the same hit.
        #expect(Self.fastHit(bytes, drum: &drum) == fast)
    }

    /// Rarer forms, other messages and malformed hits are left to the general path.
    @Test(arguments: [
        message([.string("snare"), .float64(0.5)]),
        message([.string("snare"), .float32(.nan)]),
        message([.string("")]),
        message([.string("snare"), .int64(5)]),
        message([.string("snare"), .float32(1), .int64(5), .int32(1), .int32(2)]),
        message([.int32(1)]),
        message([]),
        message([.int64(1)], address: "/drum/ping"),
        message([.string("snare")], address: "/drum/hits"),
        Array("/drum/hit".utf8) + [0, 0, 0] + Array(",S".utf8) + [0, 0] + Array("kick".utf8) + [0, 0, 0, 0],
        Array("/drum/hit".utf8) + [0, 0, 0] + Array(",s".utf8) + [0, 0] + [0xC3, 0x28, 0, 0],
        Array("/drum/hit".utf8) + [0, 0, 0] + Array(",s".utf8) + [0, 0] + Array("snare".utf8) + [0, 1, 0],
        Array("/drum/hit".utf8) + [0, 0, 0] + Array(",s".utf8) + [0, 1] + Array("kick".utf8) + [0, 0, 0, 0],
        Array("/drum/hit".utf8) + [0, 0, 1] + Array(",s".utf8) + [0, 0] + Array("kick".utf8) + [0, 0, 0, 0],
        Array("/drum/hit".utf8) + [0, 0, 0] + Array(",sf".utf8) + [0] + Array("kick".utf8) + [0, 0, 0, 0],
    ] as [[UInt8]])
    func otherBytesAreLeftToTheGeneralPath(_ bytes: [UInt8]) {
        var drum = ""
        #expect(Self.fastHit(bytes, drum: &drum) == nil)
    }

    /// Random damage to hits: whatever the fast path accepts, the general path decodes the same.
    @Test func damagedHitsAgreeWithTheGeneralPath() {
        var state: UInt64 = 11
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let valid = [
            Self.message([.string("snare"), .float32(0.8), .int64(99), .int32(3)]),
            Self.message([.string("kick"), .int32(100)]),
            Self.message([.string("hh")]),
        ]
        var drum = "snare"
        var accepted = 0
        for _ in 0..<50_000 {
            var bytes = valid[Int(next()) % valid.count]
            for _ in 0..<(1 + Int(next() % 2)) {
                bytes[Int(next()) % bytes.count] = UInt8(truncatingIfNeeded: next())
            }
            if next() % 8 == 0 { bytes.removeLast(4 * (Int(next()) % (bytes.count / 4 + 1))) }
            if let fast = Self.fastHit(bytes, drum: &drum) {
                accepted += 1
                #expect(fast == Self.generalHit(bytes), "\(bytes)")
            }
        }
        #expect(accepted > 1000)  // the damage often hits only a value, which stays a hit
    }

    /// Feeds `bytes` to `framer` as one read and calls `body` with each whole packet.
    static func feed(_ bytes: [UInt8], to framer: inout PacketFramer,
                     _ body: (UnsafeRawBufferPointer) throws(DrumNetError) -> Void) throws(DrumNetError) {
        // withUnsafeBytes rethrows untyped errors: the typed one comes out in a Result.
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(DrumNetError) in
                try framer.forEachPacket(in: raw) { (packet) throws(DrumNetError) -> Bool in
                    try body(packet)
                    return true
                }
            }
        }
        try outcome.get()
    }

    /// A stream cut into any pieces gives the same packets through `forEachPacket` as through
    /// `append` and `nextPacket`.
    @Test func forEachPacketSplitsAStreamArrivingInAnyPieces() throws {
        let messages = OSCCodecTests.roundTrips
        let stream = messages.flatMap { OSCEncoding.packet($0) }
        for piece in [1, 3, 4, 7, 64, stream.count] {
            var framer = PacketFramer()
            var decoded: [OSCMessage] = []
            var offset = 0
            while offset < stream.count {
                let chunk = Array(stream[offset..<min(stream.count, offset + piece)])
                offset += piece
                try Self.feed(chunk, to: &framer) { (packet) throws(DrumNetError) in
                    decoded.append(try OSCDecoding.message(packet))
                }
            }
            #expect(decoded == messages, "pieces of \(piece)")
            #expect(framer.bufferedBytes == 0)
        }
    }

    @Test func forEachPacketRefusesABadLengthAndKeepsRefusing() {
        var framer = PacketFramer(maxPacketBytes: 64)
        let stream = DrumMessage.hit(DrumHit(drum: "kick")).packet + [0, 0, 1, 0] + Array(repeating: 0, count: 256)
        var seen = 0
        #expect(throws: DrumNetError.packetTooLarge(size: 256, limit: 64)) {
            try Self.feed(stream, to: &framer) { (_) throws(DrumNetError) in seen += 1 }
        }
        #expect(seen == 1)
        #expect(throws: DrumNetError.packetTooLarge(size: 256, limit: 64)) {
            try Self.feed([0, 0, 0, 4, 1, 2, 3, 4], to: &framer) { (_) throws(DrumNetError) in seen += 1 }
        }
        #expect(seen == 1)
    }

    /// A connection that knows its pad's clock (so hits have latencies) and the server's reused
    /// actions array, counting the allocations of one read.
    struct CountedConnection {
        var connection = BrainConnection(connectionID: 1, address: "a", brainName: "b", kitName: "k", nowMicros: 0)
        var actions: [BrainConnection.Action] = []

        init() {
            actions.reserveCapacity(16)
            let ping = DrumMessage.ping(timeMicros: 0, offsetMicros: 10, roundTripMicros: 50).packet
            ping.withUnsafeBytes { connection.receive($0, nowMicros: 1, into: &actions) }
        }

        /// Receives `read` as one read, counting the allocations it makes.
        mutating func allocations(receiving read: [UInt8], nowMicros: Int64 = 100_000) -> Int64 {
            var counted: Int64 = -1
            read.withUnsafeBytes { bytes in
                actions.removeAll(keepingCapacity: true)
                allocation_counter_start()
                connection.receive(bytes, nowMicros: nowMicros, into: &actions)
                counted = allocation_counter_stop()
            }
            return counted
        }
    }

    /// A snapshot of a connection's statistics held while hits come (the terminal's status poll)
    /// costs the hit path nothing without the latency window; with it, the next hit copies the
    /// window, which is why the status asks for none.
    @Test func aStatusSnapshotWithoutLatenciesCostsTheHitPathNoAllocation() {
        var c = CountedConnection()
        let hit = DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: 5, sequence: 1)).packet
        _ = c.allocations(receiving: hit, nowMicros: 2)  // learns "snare", makes the window
        // The same path once more before counting: whatever the runtime makes on a path's first
        // use in the process (the parallel run once counted 1 here) is made now.
        _ = c.allocations(receiving: hit, nowMicros: 3)
        let status = c.connection.statistics.withoutLatencies()
        #expect(c.allocations(receiving: hit) == 0)
        #expect(status.hits == 2 && status.latencyMicros.count == 0 && c.connection.statistics.latencyMicros.count == 3)
        let full = c.connection.statistics
        #expect(c.allocations(receiving: hit) > 0, "a snapshot holding the window makes the next hit copy it")
        #expect(full.latencyMicros.count == 3 && c.connection.statistics.latencyMicros.count == 4)
    }

    /// The server's path: a read of usual hits, framed, decoded and counted, allocates nothing once
    /// the connection has seen its drum's name.
    @Test func receivingUsualHitsDoesNotAllocate() {
        var c = CountedConnection()
        let read = (0..<4).flatMap { i in
            DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: Int64(i), sequence: Int32(i))).packet
        }
        _ = c.allocations(receiving: read, nowMicros: 2)  // learns "snare"
        #expect(c.allocations(receiving: read) == 0)
        #expect(c.actions.count == 4 && c.connection.statistics.hits == 8 && c.connection.statistics.droppedHits == 0)
    }
}

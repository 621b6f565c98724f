import Testing
@testable import DrumNet

struct OSCCodecTests {
    static let roundTrips: [OSCMessage] = [
        OSCMessage("/drum/hit", [.string("snare")]),
        OSCMessage("/drum/hit", [.string("kick"), .float32(0.75), .int64(123_456_789_012), .int32(42)]),
        OSCMessage("/a", []),
        OSCMessage("/abc", [.int32(-1), .int32(Int32.max), .int64(Int64.min)]),
        OSCMessage("/x", [.float32(-0.5), .float64(3.141592653589793), .float32(.infinity)]),
        OSCMessage("/strings", [.string(""), .string("abc"), .string("abcd"), .string("Grüße 🥁")]),
        OSCMessage("/blobs", [.blob([]), .blob([1]), .blob([1, 2, 3, 4]), .blob([9, 8, 7, 6, 5])]),
        OSCMessage("/flags", [.true, .false, .nil, .impulse, .timeTag(0x0102_0304_0506_0708)]),
    ]

    @Test(arguments: roundTrips)
    func encodesAndDecodesBack(_ message: OSCMessage) throws {
        let packet = OSCEncoding.packet(message)
        #expect((packet.count - 4) % 4 == 0)
        let length = Int(packet[0]) << 24 | Int(packet[1]) << 16 | Int(packet[2]) << 8 | Int(packet[3])
        #expect(length == packet.count - 4)
        #expect(try OSCDecoding.message(packet[4...]) == message)
    }

    /// The exact bytes of docs/architecture.md, Wire protocol's example, as liblo's oscsend writes them.
    @Test func encodesTheContractBytes() {
        let packet = OSCEncoding.packet(OSCMessage("/drum/hit", [.string("snare")]))
        #expect(packet == [0, 0, 0, 24]
                + Array("/drum/hit".utf8) + [0, 0, 0]
                + Array(",s".utf8) + [0, 0]
                + Array("snare".utf8) + [0, 0, 0])
        let f = OSCEncoding.packet(OSCMessage("/f", [.float32(1.0), .int32(-2)]))
        #expect(Array(f[4...]) == Array("/f".utf8) + [0, 0] + Array(",fi".utf8) + [0]
                + [0x3F, 0x80, 0, 0] + [0xFF, 0xFF, 0xFF, 0xFE])
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let expected: DrumNetError
        var testDescription: String { name }
    }

    static let address: [UInt8] = Array("/drum/hit".utf8) + [0, 0, 0]

    static let malformed: [Malformed] = [
        Malformed(name: "empty", bytes: [], expected: .badAddress),
        Malformed(name: "misaligned", bytes: Array("/ab".utf8) + [0, 0], expected: .misaligned(size: 5)),
        Malformed(name: "no slash", bytes: Array("abc".utf8) + [0], expected: .badAddress),
        Malformed(name: "bundle", bytes: Array("#bundle".utf8) + [0], expected: .bundleNotSupported),
        Malformed(name: "address without NUL", bytes: Array("/abc".utf8), expected: .truncated(field: "address")),
        Malformed(name: "no type tags", bytes: address, expected: .missingTypeTags(address: "/drum/hit")),
        Malformed(name: "type tags not starting with comma",
                  bytes: address + Array("s".utf8) + [0, 0, 0] + Array("ab".utf8) + [0, 0],
                  expected: .missingTypeTags(address: "/drum/hit")),
        Malformed(name: "unknown tag", bytes: address + Array(",q".utf8) + [0, 0],
                  expected: .unknownTypeTag(address: "/drum/hit", tag: UInt8(ascii: "q"))),
        Malformed(name: "array tag", bytes: address + Array(",[".utf8) + [0, 0],
                  expected: .unknownTypeTag(address: "/drum/hit", tag: UInt8(ascii: "["))),
        Malformed(name: "missing int", bytes: address + Array(",i".utf8) + [0, 0],
                  expected: .truncated(field: "i")),
        Malformed(name: "missing int64 half", bytes: address + Array(",h".utf8) + [0, 0] + [0, 0, 0, 1],
                  expected: .truncated(field: "h")),
        Malformed(name: "string without terminator",
                  bytes: address + Array(",s".utf8) + [0, 0] + Array("snar".utf8),
                  expected: .truncated(field: "string argument")),
        Malformed(name: "non-zero padding",
                  bytes: address + Array(",s".utf8) + [0, 0] + Array("snare".utf8) + [0, 1, 0],
                  expected: .nonZeroPadding(field: "string argument")),
        Malformed(name: "invalid UTF-8",
                  bytes: address + Array(",s".utf8) + [0, 0] + [0xC3, 0x28, 0, 0],
                  expected: .invalidUTF8(field: "string argument")),
        Malformed(name: "blob larger than message",
                  bytes: address + Array(",b".utf8) + [0, 0] + [0, 0, 0, 9, 1, 2, 3, 4],
                  expected: .truncated(field: "blob")),
        Malformed(name: "blob with negative size",
                  bytes: address + Array(",b".utf8) + [0, 0] + [0xFF, 0xFF, 0xFF, 0xFF],
                  expected: .truncated(field: "blob")),
        Malformed(name: "trailing bytes", bytes: address + Array(",".utf8) + [0, 0, 0] + [0, 0, 0, 0],
                  expected: .trailingBytes(address: "/drum/hit", count: 4)),
    ]

    @Test(arguments: malformed)
    func malformedInputIsAPreciseError(_ c: Malformed) {
        #expect(throws: c.expected) { try OSCDecoding.message(c.bytes) }
    }

    /// Random bytes and random damage to valid messages never crash the decoder.
    @Test func noInputCrashes() {
        var state: UInt64 = 7
        func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33
        }
        let valid = OSCCodecTests.roundTrips.map { Array(OSCEncoding.packet($0)[4...]) }
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(next() % 64)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                bytes = valid[Int(next()) % valid.count]
                for _ in 0..<(1 + Int(next() % 3)) where !bytes.isEmpty {
                    bytes[Int(next()) % bytes.count] = UInt8(truncatingIfNeeded: next())
                }
                if next() % 4 == 0 { bytes.removeLast(Int(next()) % (bytes.count + 1)) }
            }
            _ = try? OSCDecoding.message(bytes)
        }
    }
}

struct PacketFramerTests {
    @Test func splitsAStreamArrivingInAnyPieces() throws {
        let messages = OSCCodecTests.roundTrips
        let stream = messages.flatMap { OSCEncoding.packet($0) }
        for piece in [1, 3, 7, 64, stream.count] {
            var framer = PacketFramer()
            var decoded: [OSCMessage] = []
            var offset = 0
            while offset < stream.count {
                framer.append(stream[offset..<min(stream.count, offset + piece)])
                offset += piece
                while let packet = try framer.nextPacket() {
                    decoded.append(try OSCDecoding.message(packet))
                }
            }
            #expect(decoded == messages)
            #expect(framer.bufferedBytes == 0)
        }
    }

    @Test func twoHitsInOneReadAreTwoHits() throws {
        // The original app's bug: two hits in one read were one garbled hit.
        var framer = PacketFramer()
        framer.append(DrumMessage.hit(DrumHit(drum: "kick")).packet + DrumMessage.hit(DrumHit(drum: "snare")).packet)
        let first = try framer.nextPacket().map { try DrumMessage(OSCDecoding.message($0)) }
        let second = try framer.nextPacket().map { try DrumMessage(OSCDecoding.message($0)) }
        #expect(first == .hit(DrumHit(drum: "kick")))
        #expect(second == .hit(DrumHit(drum: "snare")))
        #expect(try framer.nextPacket() == nil)
    }

    @Test(arguments: [
        ([0, 0, 0, 0] as [UInt8], DrumNetError.zeroLengthPacket),
        ([0xFF, 0xFF, 0xFF, 0xFC], DrumNetError.negativeLength(-4)),
        ([0x80, 0, 0, 0], DrumNetError.negativeLength(Int32.min)),
        ([0, 0, 0x10, 0x04], DrumNetError.packetTooLarge(size: 4100, limit: 4096)),
        ([0x7F, 0xFF, 0xFF, 0xFF], DrumNetError.packetTooLarge(size: Int(Int32.max), limit: 4096)),
    ])
    func badLengthsFailAtOnceAndStayFailed(prefix: [UInt8], expected: DrumNetError) {
        var framer = PacketFramer()
        framer.append(prefix)
        #expect(throws: expected) { try framer.nextPacket() }
        framer.append(DrumMessage.hit(DrumHit(drum: "kick")).packet)
        #expect(throws: expected) { try framer.nextPacket() }
    }

    @Test func partialPacketWaits() throws {
        var framer = PacketFramer()
        let packet = DrumMessage.hit(DrumHit(drum: "kick")).packet
        framer.append(packet.dropLast())
        #expect(try framer.nextPacket() == nil)
        framer.append(packet.suffix(1))
        #expect(try framer.nextPacket() != nil)
    }
}

struct DrumMessageTests {
    @Test(arguments: [
        DrumMessage.hit(DrumHit(drum: "snare", velocity: 0.5, padTimeMicros: 99, sequence: 3)),
        .hit(DrumHit(drum: "kick", velocity: 1)),
        .hello(version: 1, padName: "pad-1", drum: "hihat"),
        .welcome(version: 1, brainName: "studio", kitName: "Default"),
        .ping(timeMicros: 5, offsetMicros: nil, roundTripMicros: nil),
        .ping(timeMicros: 5, offsetMicros: -12, roundTripMicros: 150),
        .pong(timeMicros: 5, brainTimeMicros: 77),
        .error("too many connections"),
    ])
    func encodesAndDecodesBack(_ message: DrumMessage) throws {
        #expect(try DrumMessage(OSCDecoding.message(message.packet[4...])) == message)
    }

    @Test func bareHitFromAnyOSCClientPlaysAtFullVelocity() throws {
        #expect(try DrumMessage(OSCMessage("/drum/hit", [.string("snare")]))
                == .hit(DrumHit(drum: "snare", velocity: 1)))
    }

    @Test(arguments: [
        (OSCArgument.int32(127), Float(1)), (.int32(0), 0), (.int32(200), 1), (.int32(-5), 0),
        (.float32(0.25), 0.25), (.float32(7), 1), (.float32(-1), 0), (.float64(0.5), 0.5),
    ])
    func velocityAcceptsMidiIntegersAndClampsFloats(argument: OSCArgument, expected: Float) throws {
        guard case .hit(let hit) = try DrumMessage(OSCMessage("/drum/hit", [.string("kick"), argument]))
        else { Issue.record("not a hit"); return }
        #expect(abs(hit.velocity - expected) < 1e-6)
    }

    @Test(arguments: [
        [OSCArgument](), [.int32(1)], [.string("")], [.string("kick"), .string("loud")],
        [.string("kick"), .float32(.nan)], [.string("kick"), .float32(1), .int32(5)],
        [.string("kick"), .float32(1), .int64(5), .int32(1), .int32(2)],
    ])
    func badHitArgumentsAreErrors(_ arguments: [OSCArgument]) {
        #expect(throws: DrumNetError.self) { try DrumMessage(OSCMessage("/drum/hit", arguments)) }
    }

    @Test func unknownAddressesAreNotErrors() throws {
        #expect(try DrumMessage(OSCMessage("/light/on", [.int32(1)])) == .unknown(address: "/light/on"))
    }
}

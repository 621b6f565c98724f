/// Splits a TCP byte stream into OSC packets: a 4-byte big-endian length N, then N bytes.
///
/// Pure code: feed it bytes as they arrive and take whole packets out. A length of 0, one with
/// the top bit set (negative as an int32, as liblo would read it), or one above the limit is an
/// error, after which the connection should be closed: nothing after a bad length can be trusted.
///
///     ┌─────────────┐ 4 bytes ┌──────────────┐ N bytes ┌─────────────┐
///     │ needLength  ├────────►│   needBody   ├────────►│ needLength  │ (packet out)
///     └─────────────┘         └──────────────┘         └─────────────┘
///            └── bad length ──► failed (every later call throws the same error)
///
/// Thread safety: a value type; use each instance from one thread (one event loop) at a time.
public struct PacketFramer: Sendable {
    /// The largest packet accepted, in bytes (after the prefix).
    public let maxPacketBytes: Int
    private var buffer: [UInt8] = []
    private var readOffset = 0
    private var failure: DrumNetError?

    /// Creates a framer that refuses packets longer than `maxPacketBytes`.
    public init(maxPacketBytes: Int = 4096) {
        precondition(maxPacketBytes >= 8, "a packet limit below 8 bytes admits no OSC message")
        self.maxPacketBytes = maxPacketBytes
    }

    /// Bytes received but not yet returned as packets.
    public var bufferedBytes: Int { buffer.count - readOffset }

    /// Appends received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet's message bytes, or nil until more bytes arrive.
    ///
    /// Throws `zeroLengthPacket`, `negativeLength` or `packetTooLarge` for a bad prefix, as soon
    /// as its 4 bytes are in, without waiting for a body that may never come.
    public mutating func nextPacket() throws(DrumNetError) -> ArraySlice<UInt8>? {
        if let failure { throw failure }
        guard bufferedBytes >= 4 else { compact(); return nil }
        let b = buffer[readOffset..<(readOffset + 4)]
        let raw = UInt32(b[b.startIndex]) << 24 | UInt32(b[b.startIndex + 1]) << 16
            | UInt32(b[b.startIndex + 2]) << 8 | UInt32(b[b.startIndex + 3])
        if raw == 0 {
            failure = .zeroLengthPacket
        } else if raw & 0x8000_0000 != 0 {
            failure = .negativeLength(Int32(bitPattern: raw))
        } else if raw > UInt32(maxPacketBytes) {
            failure = .packetTooLarge(size: Int(raw), limit: maxPacketBytes)
        }
        if let failure { throw failure }
        let length = Int(raw)
        guard bufferedBytes >= 4 + length else { compact(); return nil }
        let start = readOffset + 4
        readOffset = start + length
        return buffer[start..<readOffset]
    }

    /// Drops consumed bytes once they are most of the buffer, so it never grows past about two
    /// packets.
    private mutating func compact() {
        if readOffset > 0 && readOffset >= buffer.count / 2 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
    }
}

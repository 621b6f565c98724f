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
        let length = try checkedLength(buffer[readOffset], buffer[readOffset + 1], buffer[readOffset + 2],
                                       buffer[readOffset + 3])
        guard bufferedBytes >= 4 + length else { compact(); return nil }
        let start = readOffset + 4
        readOffset = start + length
        return buffer[start..<readOffset]
    }

    /// Takes `input` (one read) and calls `body` with each whole packet's message bytes, in order.
    /// Packets that arrive whole in `input` are passed in place, without a copy; only a packet
    /// split across reads is gathered in the framer's buffer. `body` returns false to stop (the
    /// connection closed): the rest of `input` is then dropped.
    ///
    /// Throws like `nextPacket()` for a bad length prefix, and rethrows what `body` throws; the
    /// packets before the bad one have been passed. The pointer given to `body` is valid only
    /// during the call.
    public mutating func forEachPacket(
        in input: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(DrumNetError) -> Bool
    ) throws(DrumNetError) {
        if let failure { throw failure }
        // Offsets into `input` rather than slices of it: slices of a raw buffer go through
        // generic code that allocates in debug builds.
        var offset = 0
        if bufferedBytes > 0 {
            // Finish the packet begun in an earlier read: its prefix first, then its body.
            compactAll()
            if buffer.count < 4 {
                let take = min(4 - buffer.count, input.count)
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[0..<take]))
                offset = take
                guard buffer.count == 4 else { return }
            }
            let length = try checkedLength(buffer[0], buffer[1], buffer[2], buffer[3])
            let take = min(4 + length - buffer.count, input.count - offset)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset..<(offset + take)]))
            offset += take
            guard buffer.count == 4 + length else { return }
            // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
            let outcome = buffer.withUnsafeBytes { bytes in
                Result { () throws(DrumNetError) -> Bool in try body(UnsafeRawBufferPointer(rebasing: bytes[4...])) }
            }
            buffer.removeAll(keepingCapacity: true)
            guard try outcome.get() else { return }
        }
        while input.count - offset >= 4 {
            let length = try checkedLength(input[offset], input[offset + 1], input[offset + 2], input[offset + 3])
            guard input.count - offset >= 4 + length else { break }
            let packet = UnsafeRawBufferPointer(start: input.baseAddress! + offset + 4, count: length)
            offset += 4 + length
            guard try body(packet) else { return }
        }
        if offset < input.count {
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: input[offset...]))
        }
    }

    /// The length in a packet's prefix, or the error it makes (which is kept: later calls throw it).
    private mutating func checkedLength(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) throws(DrumNetError) -> Int {
        let raw = UInt32(b0) << 24 | UInt32(b1) << 16 | UInt32(b2) << 8 | UInt32(b3)
        if raw == 0 {
            failure = .zeroLengthPacket
        } else if raw & 0x8000_0000 != 0 {
            failure = .negativeLength(Int32(bitPattern: raw))
        } else if raw > UInt32(maxPacketBytes) {
            failure = .packetTooLarge(size: Int(raw), limit: maxPacketBytes)
        }
        if let failure { throw failure }
        return Int(raw)
    }

    /// Drops every consumed byte.
    private mutating func compactAll() {
        if readOffset > 0 {
            buffer.removeFirst(readOffset)
            readOffset = 0
        }
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

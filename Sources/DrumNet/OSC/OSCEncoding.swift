/// OSC 1.0 messages to bytes, and the 4-byte length prefix of OSC over TCP (docs/architecture.md, Wire protocol).
public enum OSCEncoding {
    /// Appends `message` encoded as OSC 1.0 (without a length prefix).
    public static func appendMessage(_ message: OSCMessage, to out: inout [UInt8]) {
        appendString(message.address, to: &out)
        appendString(message.typeTags, to: &out)
        for argument in message.arguments {
            switch argument {
            case .int32(let value): appendBigEndian(UInt32(bitPattern: value), to: &out)
            case .int64(let value): appendBigEndian(UInt64(bitPattern: value), to: &out)
            case .float32(let value): appendBigEndian(value.bitPattern, to: &out)
            case .float64(let value): appendBigEndian(value.bitPattern, to: &out)
            case .string(let value): appendString(value, to: &out)
            case .blob(let bytes):
                appendBigEndian(UInt32(bytes.count), to: &out)
                out.append(contentsOf: bytes)
                appendPadding(after: bytes.count, to: &out)
            case .timeTag(let value): appendBigEndian(value, to: &out)
            case .true, .false, .nil, .impulse: break
            }
        }
    }

    /// The packet for `message`: a 4-byte big-endian length, then the message.
    public static func packet(_ message: OSCMessage) -> [UInt8] {
        var out: [UInt8] = [0, 0, 0, 0]
        appendMessage(message, to: &out)
        let length = UInt32(out.count - 4)
        out[0] = UInt8(length >> 24)
        out[1] = UInt8((length >> 16) & 0xFF)
        out[2] = UInt8((length >> 8) & 0xFF)
        out[3] = UInt8(length & 0xFF)
        return out
    }

    static func appendString(_ text: String, to out: inout [UInt8]) {
        let utf8 = text.utf8
        precondition(!utf8.contains(0), "OSC strings cannot contain NUL")
        out.append(contentsOf: utf8)
        out.append(0)
        appendPadding(after: utf8.count + 1, to: &out)
    }

    static func appendPadding(after count: Int, to out: inout [UInt8]) {
        let pad = (4 - count % 4) % 4
        for _ in 0..<pad { out.append(0) }
    }

    static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }
}

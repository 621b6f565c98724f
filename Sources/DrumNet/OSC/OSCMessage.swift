/// One OSC 1.0 argument.
///
/// The tags are OSC 1.0's required ones plus the common extensions liblo speaks.
public enum OSCArgument: Equatable, Sendable {
    /// `i`: 32-bit big-endian two's complement integer.
    case int32(Int32)
    /// `h`: 64-bit big-endian two's complement integer.
    case int64(Int64)
    /// `f`: 32-bit big-endian IEEE 754 float.
    case float32(Float)
    /// `d`: 64-bit big-endian IEEE 754 double.
    case float64(Double)
    /// `s` (or `S`, a symbol): a NUL-terminated UTF-8 string padded to 4 bytes.
    case string(String)
    /// `b`: a 32-bit size, then that many bytes padded to 4.
    case blob([UInt8])
    /// `t`: an NTP-format time tag (64 bits).
    case timeTag(UInt64)
    /// `T`: true, no data.
    case `true`
    /// `F`: false, no data.
    case `false`
    /// `N`: nil, no data.
    case `nil`
    /// `I`: impulse (infinitum), no data.
    case impulse

    /// The OSC type tag of this argument.
    public var typeTag: UInt8 {
        switch self {
        case .int32: UInt8(ascii: "i")
        case .int64: UInt8(ascii: "h")
        case .float32: UInt8(ascii: "f")
        case .float64: UInt8(ascii: "d")
        case .string: UInt8(ascii: "s")
        case .blob: UInt8(ascii: "b")
        case .timeTag: UInt8(ascii: "t")
        case .true: UInt8(ascii: "T")
        case .false: UInt8(ascii: "F")
        case .nil: UInt8(ascii: "N")
        case .impulse: UInt8(ascii: "I")
        }
    }
}

/// One OSC 1.0 message: an address pattern and typed arguments.
public struct OSCMessage: Equatable, Sendable {
    /// The address, such as `/drum/hit`; starts with `/`.
    public var address: String
    /// The arguments, in order.
    public var arguments: [OSCArgument]

    /// Creates a message. The address must start with `/` and contain no NUL.
    public init(_ address: String, _ arguments: [OSCArgument] = []) {
        precondition(address.hasPrefix("/") && !address.utf8.contains(0),
                     "an OSC address starts with / and has no NUL")
        self.address = address
        self.arguments = arguments
    }

    /// The type tag string, such as `,sfhi`.
    public var typeTags: String {
        String(decoding: [UInt8(ascii: ",")] + arguments.map(\.typeTag), as: UTF8.self)
    }
}

import CAvahiClient
#if canImport(Glibc)
import Glibc
#endif

/// Errors of the network side: the wire codec, connections and Avahi discovery.
public enum DrumNetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A packet's length prefix is 0.
    case zeroLengthPacket
    /// A packet's length prefix has its top bit set (negative as an int32).
    case negativeLength(Int32)
    /// A packet's length prefix is above the receiver's limit.
    case packetTooLarge(size: Int, limit: Int)
    /// An OSC message's size is not a multiple of 4.
    case misaligned(size: Int)
    /// An OSC message does not start with an address (`/...`).
    case badAddress
    /// An OSC bundle (`#bundle`) arrived; only single messages are part of the protocol.
    case bundleNotSupported
    /// An OSC message has no type tag string (`,...`) after its address.
    case missingTypeTags(address: String)
    /// An OSC message uses a type tag this codec does not know, so its size is unknown.
    case unknownTypeTag(address: String, tag: UInt8)
    /// An OSC message ends inside a field.
    case truncated(field: String)
    /// A string or blob is padded with bytes other than NUL.
    case nonZeroPadding(field: String)
    /// A string is not valid UTF-8.
    case invalidUTF8(field: String)
    /// An OSC message has bytes left after its last argument.
    case trailingBytes(address: String, count: Int)
    /// A drum protocol message has the wrong arguments for its address.
    case badArguments(address: String, expected: String, found: String)
    /// An avahi-client call failed; carries Avahi's error code and its own message.
    case avahi(operation: String, code: Int32)
    /// A pairing key file cannot be used; names the file and the problem, never the key.
    case keyFile(path: String, problem: String)
    /// A socket call of the brain's server failed; carries the C `errno`.
    case socket(operation: String, code: Int32)
    /// The brain's address could not be resolved; carries getaddrinfo's own message.
    case resolve(host: String, message: String)
    /// The brain's server was asked for something after it stopped.
    case serverStopped

    public var description: String {
        switch self {
        case .zeroLengthPacket:
            return "packet length prefix is 0; every packet is a 4-byte length then one OSC message"
        case .negativeLength(let value):
            return "packet length prefix \(value) is negative"
        case .packetTooLarge(let size, let limit):
            return "packet of \(size) bytes is over the limit of \(limit)"
        case .misaligned(let size):
            return "OSC message of \(size) bytes is not a multiple of 4"
        case .badAddress:
            return "OSC message does not start with an address such as /drum/hit"
        case .bundleNotSupported:
            return "OSC bundles are not accepted; send single messages"
        case .missingTypeTags(let address):
            return "\(address): no type tag string (such as ,s) after the address"
        case .unknownTypeTag(let address, let tag):
            return "\(address): unknown OSC type tag '\(Self.printable(tag))'"
        case .truncated(let field):
            return "OSC message ends inside its \(field)"
        case .nonZeroPadding(let field):
            return "OSC \(field) is padded with bytes other than NUL"
        case .invalidUTF8(let field):
            return "OSC \(field) is not valid UTF-8"
        case .trailingBytes(let address, let count):
            return "\(address): \(count) bytes left after the last argument"
        case .badArguments(let address, let expected, let found):
            return "\(address): expected arguments \(expected), found \(found)"
        case .avahi(let operation, let code):
            return "\(operation): \(Self.avahiMessage(code)) (avahi error \(code))"
        case .socket(let operation, let code):
            return "\(operation): \(String(cString: strerror(code))) (errno \(code))"
        case .resolve(let host, let message):
            return "cannot resolve \(host): \(message)"
        case .serverStopped:
            return "the brain's server has stopped"
        case .keyFile(let path, let problem):
            return "key file \(path): \(problem); \(PairingKey.howToMake) (at least "
                + "\(PairingKey.minimumBytes) bytes) and give the same file to the brain and every pad"
        }
    }

    /// Avahi's own text for an error code. The corresponding C function is `avahi_strerror`.
    public static func avahiMessage(_ code: Int32) -> String {
        String(cString: avahi_strerror(code))
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "\\x" + String(byte, radix: 16)
    }
}

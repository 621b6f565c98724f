import CAvahiClient

/// Errors of the network side: the wire codec, connections and Avahi discovery.
public enum DrumNetError: Error, Equatable, Sendable, CustomStringConvertible {
    /// An avahi-client call failed; carries Avahi's error code and its own message.
    case avahi(operation: String, code: Int32)

    public var description: String {
        switch self {
        case .avahi(let operation, let code):
            return "\(operation): \(Self.avahiMessage(code)) (avahi error \(code))"
        }
    }

    /// Avahi's own text for an error code. The corresponding C function is `avahi_strerror`.
    public static func avahiMessage(_ code: Int32) -> String {
        String(cString: avahi_strerror(code))
    }
}

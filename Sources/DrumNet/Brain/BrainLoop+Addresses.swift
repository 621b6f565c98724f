#if canImport(Glibc)
import Glibc
#endif

/// Socket addresses as the brain prints them.
extension BrainLoop {
    /// `127.0.0.1:50123` or `[::1]:50123` for a connected socket's peer.
    static func peerDescription(_ fd: Int32) -> String {
        address(of: fd, peer: true).map(describe) ?? "unknown"
    }

    /// The address of socket `fd` (`getsockname`) or of its peer (`getpeername`), or nil.
    static func address(of fd: Int32, peer: Bool) -> sockaddr_storage? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                peer ? getpeername(fd, $0, &length) : getsockname(fd, $0, &length)
            }
        }
        return result == 0 ? storage : nil
    }

    /// The port of an IPv4 or IPv6 socket address (nil for another family).
    static func port(of storage: sockaddr_storage) -> UInt16? {
        switch Int32(storage.ss_family) {
        case AF_INET: UInt16(bigEndian: withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }.sin_port)
        case AF_INET6: UInt16(bigEndian: withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }.sin6_port)
        default: nil
        }
    }

    /// `ADDRESS:PORT` (IPv4) or `[ADDRESS]:PORT` (IPv6) of a socket address.
    static func describe(_ storage: sockaddr_storage) -> String {
        guard let port = port(of: storage) else { return "unknown" }
        switch Int32(storage.ss_family) {
        case AF_INET:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
            return "\(numeric(AF_INET, &address.sin_addr)):\(port)"
        default:
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
            return "[\(numeric(AF_INET6, &address.sin6_addr))]:\(port)"
        }
    }

    /// The numeric text of an IPv4 or IPv6 address (`inet_ntop`).
    private static func numeric(_ family: Int32, _ address: UnsafeRawPointer) -> String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, address, &text, socklen_t(text.count)) != nil else { return "unknown" }
        return String(nulTerminated: text)
    }
}

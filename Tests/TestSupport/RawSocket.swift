#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// A plain blocking TCP socket for sending raw bytes.
public struct RawSocket: Sendable {
    public let fd: Int32

    /// Connects to 127.0.0.1:`port`, with reads timing out after 10 s; nil if it cannot.
    public init?(port: Int) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if ok != 0 { Glibc.close(fd); return nil }
    }

    /// Writes `bytes` with one write; returns what `write` returned.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Int { bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }

    /// Reads until the peer closes (or 10 s pass, in all: a peer that keeps sending does not
    /// keep it reading); returns the bytes and whether it closed.
    public func readUntilClosed() -> ([UInt8], closed: Bool) {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = MonotonicClock.nowMicros() + 10_000_000
        while MonotonicClock.nowMicros() < deadline {
            let n = read(fd, &buffer, buffer.count)
            if n == 0 { return (all, true) }
            if n < 0 { return (all, false) }
            all += buffer[..<n]
        }
        return (all, false)
    }

    /// One read: what the peer has sent (waiting up to 10 s for it); empty if it closed or
    /// nothing came.
    public func readSome() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        return n > 0 ? Array(buffer[..<n]) : []
    }

    public func close() { _ = Glibc.close(fd) }
}

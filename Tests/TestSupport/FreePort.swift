#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The next port `freePort` tries: below Linux's ephemeral range (32768–60999), so no outgoing
/// connection of a concurrent test can take it between `freePort` and the program's bind, and
/// spread by process id so that test processes running side by side rarely meet.
private let nextPort = Mutex(20_000 + Int(getpid() % 600) * 20)

/// A TCP port nothing listens on now (bindable on every address), for a program a test starts to
/// bind next. Each call returns a different port, outside the ephemeral range: a port the kernel
/// handed out for bind(0) could be given to another test's outgoing connection before the
/// program bound it.
public func freePort() -> Int {
    while true {
        let port = nextPort.withLock { port in
            defer { port = port >= 32_000 ? 20_000 : port + 1 }
            return port
        }
        if canBind(port) { return port }
    }
}

private func canBind(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = INADDR_ANY
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

import CEpoll  // SOCK_NONBLOCK, SOCK_CLOEXEC
#if canImport(Glibc)
import Glibc
#endif

/// The brain's TCP server: accepts pads and OSC clients, turns their packets into hits.
///
/// All connections live on one network thread (`BrainLoop`, an epoll loop), so hits reach
/// `onHit` from a single thread, in arrival order: the audio side can take them through a
/// single-producer queue. `onHit` runs on that thread and must not block.
public final class BrainServer: Sendable {
    /// Where and how the server listens.
    public struct Configuration: Sendable {
        /// Address to bind (`0.0.0.0` for all IPv4 interfaces, `::` for all).
        public var host: String
        /// Port to bind (0 picks a free one).
        public var port: Int
        /// Sent to pads in `/drum/welcome`.
        public var brainName: String
        /// Sent to pads in `/drum/welcome`.
        public var kitName: String
        /// Per-connection limits.
        public var limits: BrainConnection.Limits
        /// Connections beyond this many are told so and closed.
        public var maxConnections: Int
        /// With a key, every connection must answer a challenge before it plays (docs/protocol.md "Pairing").
        public var key: PairingKey?

        /// Creates a configuration.
        public init(host: String = "0.0.0.0", port: Int = BrainServer.defaultPort, brainName: String,
                    kitName: String, limits: BrainConnection.Limits = .init(), maxConnections: Int = 300,
                    key: PairingKey? = nil) {
            self.key = key
            self.host = host
            self.port = port
            self.brainName = brainName
            self.kitName = kitName
            self.limits = limits
            self.maxConnections = maxConnections
        }
    }

    /// The port the brain listens on when none is given.
    public static let defaultPort = 7770

    /// The server's settings.
    public let configuration: Configuration
    /// The port actually bound.
    public let port: Int
    private let loop: BrainLoop

    /// Binds and starts accepting. Throws if the address cannot be resolved or bound.
    ///
    /// `onNotice` gets the operator's notices about refused input (implausible times), escaped
    /// and at most one per 10 s; `onHello` each pad's hello (its name, rate and version; not a
    /// hello that renames the connection), before any of its hits (with a key: once paired);
    /// both run on the network thread too.
    public init(configuration: Configuration, onHit: @escaping @Sendable (ReceivedHit) -> Void,
                onNotice: @escaping @Sendable (String) -> Void = { _ in },
                onHello: @escaping @Sendable (PadHello) -> Void = { _ in }) async throws {
        self.configuration = configuration
        let (fd, port) = try Self.listen(host: configuration.host, port: configuration.port)
        self.port = port
        do {
            loop = try BrainLoop(listenFD: fd, configuration: configuration, onHit: onHit, onNotice: onNotice,
                                 onHello: onHello)
        } catch {
            Glibc.close(fd)
            throw error
        }
        loop.start()
    }

    /// Pads welcomed from now on are told the kit is `name` (a kit reloaded); those already
    /// connected were told the name when they said hello. Any thread; never waits.
    public func setKitName(_ name: String) {
        loop.setKitName(name)
    }

    /// Runs `body` on the network thread, the one `onHit` runs on, and returns its result (for
    /// measurements of that thread). Throws `serverStopped` after `stop()`.
    public func onNetworkThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws -> T {
        try await loop.run(body)
    }

    /// Hands `hits` from a source other than a connection (MIDI in) to `onHit` on the network
    /// thread, in order, as if they had arrived there: the one producer of the audio thread's
    /// queue stays the one. False (and the hits dropped) once the server has stopped.
    ///
    /// Thread safety: any thread; it never waits for the network thread.
    @discardableResult
    public func inject(_ hits: [ReceivedHit]) -> Bool {
        guard !hits.isEmpty else { return true }
        let loop = self.loop
        return loop.submit { for hit in hits { loop.onHit(hit) } }
    }

    /// A snapshot of every open connection's statistics, oldest first. With `latencies` false,
    /// each one's latency window is empty (`PadStatistics.withoutLatencies()`): a poll that does
    /// not need them, such as the terminal's status 4 times a second, then makes the network
    /// thread copy no window on the pads' next hits.
    public func statistics(latencies: Bool = true) async throws -> [PadStatistics] {
        let loop = self.loop
        return try await loop.run { loop.openStatistics(latencies: latencies) }
    }

    /// Statistics of the connections closed so far (the last 1000), oldest first.
    public func closedStatistics() async throws -> [PadStatistics] {
        let loop = self.loop
        return try await loop.run { loop.closedStatistics() }
    }

    /// Stops accepting, closes every connection, stops the network thread, and returns the
    /// statistics of every connection of the run (the last 1000), oldest first.
    @discardableResult
    public func stop() async -> [PadStatistics] {
        let loop = self.loop
        return (try? await loop.run { loop.shutdown() }) ?? []  // already stopped: nothing left
    }

    /// A listening, non-blocking TCP socket bound to `host` (resolved; its first address) and
    /// `port`, and the port it got.
    static func listen(host: String, port: Int) throws(DrumNetError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0, let address = found else {
            throw .resolve(host: host, message: String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(found) }
        let fd = socket(address.pointee.ai_family,
                        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket(operation: "socket", code: errno) }
        func fail(_ operation: String) -> DrumNetError {
            let code = errno
            Glibc.close(fd)
            return .socket(operation: "\(operation) \(host):\(port)", code: code)
        }
        var one: Int32 = 1
        guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw fail("setsockopt SO_REUSEADDR")
        }
        guard bind(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else { throw fail("bind") }
        guard Glibc.listen(fd, 256) == 0 else { throw fail("listen") }
        guard let bound = BrainLoop.address(of: fd, peer: false).flatMap(BrainLoop.port) else {
            throw fail("getsockname")
        }
        return (fd, Int(bound))
    }
}

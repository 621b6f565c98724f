import NIOCore
import NIOPosix

/// A hit as the brain received it.
public struct ReceivedHit: Sendable, Equatable {
    /// The hit.
    public var hit: DrumHit
    /// The connection it came on.
    public var connectionID: Int
    /// The pad's name, if it said hello.
    public var padName: String?
    /// Brain monotonic clock at receipt, µs.
    public var receivedMicros: Int64
    /// Network latency (receipt minus the pad's time corrected by its clock offset), when known.
    public var latencyMicros: Int64?
}

/// The brain's TCP server: accepts pads and OSC clients, turns their packets into hits.
///
/// All connections live on one event-loop thread, so hits reach `onHit` from a single thread, in
/// arrival order: the audio side can take them through a single-producer queue. `onHit` runs on
/// that thread and must not block.
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
        /// With a key, every connection must answer a challenge before it plays (README "Pairing").
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
    let group: MultiThreadedEventLoopGroup
    let table: NIOLoopBoundBox<ConnectionTable>
    let onHit: @Sendable (ReceivedHit) -> Void
    private let channel: Channel
    /// The once-a-second idle check of every connection (one timer for all of them).
    private let idleSweep: RepeatedTask

    /// Binds and starts accepting. Throws if the address cannot be bound.
    public init(configuration: Configuration, onHit: @escaping @Sendable (ReceivedHit) -> Void) async throws {
        self.configuration = configuration
        self.onHit = onHit
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let loop = group.next()
        let table = NIOLoopBoundBox.makeBoxSendingValue(ConnectionTable(), eventLoop: loop)
        self.table = table
        let limits = configuration.limits
        let names = (configuration.brainName, configuration.kitName)
        let maxConnections = configuration.maxConnections
        let key = configuration.key
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
                .childChannelOption(.socketOption(.so_keepalive), value: 1)
                // Reads are usually one 48-byte hit, but a burst of hits or a slow brain thread can
                // leave more waiting: a floor of 1 KiB takes a burst in one read. NIO reuses the
                // buffer when the handler keeps none of it (this one keeps none).
                .childChannelOption(.recvAllocator,
                                    value: AdaptiveRecvByteBufferAllocator(minimum: 1024, initial: 2048,
                                                                           maximum: 65536))
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let handler = BrainConnectionHandler(
                            table: table, limits: limits, brainName: names.0, kitName: names.1,
                            maxConnections: maxConnections, key: key, onHit: onHit)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                }
                .bind(host: configuration.host, port: configuration.port)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        idleSweep = loop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { _ in
            // A handler closed by its check leaves the table meanwhile: walk a copy.
            for handler in Array(table.value.handlers.values) { handler.checkIdle() }
        }
    }

    /// The event loop every connection runs on (for measurements of its thread).
    public var eventLoop: any EventLoop { table.eventLoop }

    /// The port actually bound.
    public var port: Int { channel.localAddress?.port ?? configuration.port }

    /// A snapshot of every open connection's statistics, oldest first.
    public func statistics() async throws -> [PadStatistics] {
        try await table.eventLoop.submit { [table] in
            table.value.handlers.values.map(\.connection.statistics).sorted { $0.connectionID < $1.connectionID }
        }.get()
    }

    /// Statistics of the connections closed so far (the last 1000), oldest first.
    public func closedStatistics() async throws -> [PadStatistics] {
        try await table.eventLoop.submit { [table] in table.value.closed }.get()
    }

    /// Stops accepting, closes every connection, stops the event loop, and returns the
    /// statistics of every connection of the run (the last 1000), oldest first.
    @discardableResult
    public func stop() async -> [PadStatistics] {
        try? await channel.close().get()  // already closed is fine
        idleSweep.cancel()
        let closing = try? await table.eventLoop.flatSubmit { [table] in
            let futures = table.value.handlers.values.map { $0.close() }
            return EventLoopFuture.andAllComplete(futures, on: table.eventLoop)
        }.get()
        _ = closing
        let totals = (try? await closedStatistics()) ?? []
        try? await group.shutdownGracefully()  // nothing left to do if it fails
        return totals
    }
}

/// The open connections, and the last closed ones; touched only on the server's event loop.
final class ConnectionTable {
    var handlers: [Int: BrainConnectionHandler] = [:]
    /// Statistics of closed connections, oldest first, at most `closedLimit`.
    var closed: [PadStatistics] = []
    static let closedLimit = 1000
    var nextID = 1
}

/// Drives one connection's `BrainConnection` from the channel's events.
final class BrainConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let table: NIOLoopBoundBox<ConnectionTable>
    let limits: BrainConnection.Limits
    let brainName: String
    let kitName: String
    let maxConnections: Int
    let key: PairingKey?
    let onHit: @Sendable (ReceivedHit) -> Void
    var connection: BrainConnection
    private var context: ChannelHandlerContext?
    /// Actions of the current read, kept between reads so that its storage is reused.
    private var actions: [BrainConnection.Action] = []

    init(table: NIOLoopBoundBox<ConnectionTable>, limits: BrainConnection.Limits, brainName: String,
         kitName: String, maxConnections: Int, key: PairingKey?,
         onHit: @escaping @Sendable (ReceivedHit) -> Void) {
        self.key = key
        self.table = table
        self.limits = limits
        self.brainName = brainName
        self.kitName = kitName
        self.maxConnections = maxConnections
        self.onHit = onHit
        connection = BrainConnection(connectionID: 0, address: "", brainName: brainName,
                                     kitName: kitName, limits: limits, nowMicros: 0)
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        let id = table.value.nextID
        table.value.nextID += 1
        let address = context.remoteAddress.map(Self.describe) ?? "unknown"
        connection = BrainConnection(connectionID: id, address: address, brainName: brainName,
                                     kitName: kitName, limits: limits, key: key,
                                     nonce: key == nil ? [] : PairingKey.makeNonce(),
                                     nowMicros: MonotonicClock.nowMicros())
        guard table.value.handlers.count < maxConnections else {
            send(.error("the brain has \(maxConnections) connections, its limit; try later"))
            context.close(promise: nil)
            return
        }
        table.value.handlers[id] = self  // from now on the server's idle sweep checks it
        actions.reserveCapacity(8)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if table.value.handlers.removeValue(forKey: connection.statistics.connectionID) != nil {
            table.value.closed.append(connection.statistics)
            if table.value.closed.count > ConnectionTable.closedLimit { table.value.closed.removeFirst() }
        }
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let now = MonotonicClock.nowMicros()
        // Taken out of `self` while in use, so that performing them cannot touch it.
        var actions = self.actions
        self.actions = []
        actions.removeAll(keepingCapacity: true)
        buffer.withUnsafeReadableBytes { connection.receive($0, nowMicros: now, into: &actions) }
        perform(actions, receivedMicros: now)
        self.actions = actions
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)  // a reset or similar: the pad reconnects if it wants to
    }

    func checkIdle() {
        if let action = connection.checkIdle(nowMicros: MonotonicClock.nowMicros()) {
            perform([action], receivedMicros: 0)
        }
    }

    /// Closes the connection (the server is stopping); the future completes when it is closed.
    func close() -> EventLoopFuture<Void> {
        guard let context else { return table.eventLoop.makeSucceededVoidFuture() }
        context.close(promise: nil)
        return context.channel.closeFuture
    }

    private func perform(_ actions: [BrainConnection.Action], receivedMicros: Int64) {
        for action in actions {
            switch action {
            case .deliver(let hit, let latency):
                onHit(ReceivedHit(hit: hit, connectionID: connection.statistics.connectionID,
                                  padName: connection.statistics.padName,
                                  receivedMicros: receivedMicros, latencyMicros: latency))
            case .send(let message):
                send(message)
            case .sendErrorAndClose(let text):
                send(.error(text))
                context?.close(promise: nil)
            }
        }
    }

    /// Writes one message as one packet in one write.
    private func send(_ message: DrumMessage) {
        guard let context else { return }
        let packet = message.packet
        var buffer = context.channel.allocator.buffer(capacity: packet.count)
        buffer.writeBytes(packet)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v4: return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: return "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        default: return "\(address)"
        }
    }
}

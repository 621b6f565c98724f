import NIOCore
import NIOPosix
import Monotonic

/// A brain found on the network.
public struct BrainService: Sendable, Equatable {
    /// The service name (the brain's `--name`).
    public var name: String
    /// Host name or address to connect to.
    public var host: String
    /// TCP port.
    public var port: Int
    /// TXT records, such as `proto=1` and `kit=Default`.
    public var txt: [String: String]

    /// Creates a service description.
    public init(name: String, host: String, port: Int, txt: [String: String] = [:]) {
        self.name = name
        self.host = host
        self.port = port
        self.txt = txt
    }
}

/// Finds brains on the network (Avahi in the product; anything in tests).
public protocol BrainFinder: Sendable {
    /// The brain named `name` (or any brain when nil), or nil when none is found in time.
    func find(name: String?) async -> BrainService?
}

/// A pad's connection to a brain: connects (to an address or a discovered brain), says hello,
/// pings every second to keep the clocks in step, sends each hit as one packet in one write, and
/// reconnects with backoff when the brain goes away. Hits while disconnected are dropped and
/// counted.
///
/// Thread safety: every method may be called from any thread; the link's state lives on its own
/// event-loop thread.
public final class PadLink: Sendable {
    /// Where the brain is.
    public enum Target: Sendable, Equatable {
        /// A known address (`--brain HOST:PORT`).
        case address(host: String, port: Int)
        /// Found through a `BrainFinder`, by name or the first one (`--brain-name`).
        case discover(brainName: String?)
    }

    /// What the link reports as it goes.
    public enum Event: Sendable, Equatable {
        /// Connected and welcomed (brain and kit names once the welcome arrives).
        case connected(address: String)
        /// The brain answered hello.
        case welcomed(brainName: String, kitName: String)
        /// Hits dropped while the link was down, reported when it comes back.
        case droppedWhileDisconnected(count: Int)
        /// The connection closed.
        case lost(reason: String)
        /// A connection attempt failed; the next one follows after the given wait.
        case connectFailed(reason: String, retryInMicros: Int64)
        /// The brain sent `/drum/error`.
        case brainError(String)
        /// Something about pairing the user should know (once per cause).
        case pairing(PadLinkStateMachine.Notice)
    }

    /// The link's settings.
    public struct Configuration: Sendable {
        /// Sent in hello.
        public var padName: String
        /// The drum this pad plays.
        public var drum: String
        /// Where the brain is.
        public var target: Target
        /// Time between pings.
        public var pingIntervalMicros: Int64
        /// The pairing key, for brains that ask for one (docs/protocol.md "Pairing").
        public var key: PairingKey?

        /// Creates settings.
        public init(padName: String, drum: String, target: Target, pingIntervalMicros: Int64 = 1_000_000,
                    key: PairingKey? = nil) {
            self.key = key
            self.padName = padName
            self.drum = drum
            self.target = target
            self.pingIntervalMicros = pingIntervalMicros
        }
    }

    /// Counters for reports.
    public struct Statistics: Sendable, Equatable {
        /// Hits written to a connection.
        public var sentHits = 0
        /// Hits dropped because the link was down.
        public var droppedHits = 0
        /// Times the link came back after being lost.
        public var reconnects = 0
        /// The brain's clock minus the pad's, µs, from ping/pong.
        public var clockOffsetMicros: Int64?
        /// The fastest recent round trip, µs.
        public var roundTripMicros: Int64?

        /// Zero counters.
        public init() {}

        init(sentHits: Int, droppedHits: Int, reconnects: Int, clockOffsetMicros: Int64?,
             roundTripMicros: Int64?) {
            self.sentHits = sentHits
            self.droppedHits = droppedHits
            self.reconnects = reconnects
            self.clockOffsetMicros = clockOffsetMicros
            self.roundTripMicros = roundTripMicros
        }
    }

    let configuration: Configuration
    /// The link's own event-loop thread, unless it was given a group to share.
    let ownGroup: MultiThreadedEventLoopGroup?
    let core: NIOLoopBoundBox<PadLinkCore>

    /// Creates a link; call `start()` to connect. Many links (a benchmark, a test) can share
    /// `eventLoopGroup`; without one the link runs its own thread.
    public init(configuration: Configuration, finder: (any BrainFinder)? = nil,
                eventLoopGroup: (any EventLoopGroup)? = nil,
                onEvent: @escaping @Sendable (Event) -> Void) {
        self.configuration = configuration
        ownGroup = eventLoopGroup == nil ? MultiThreadedEventLoopGroup(numberOfThreads: 1) : nil
        let loop = (eventLoopGroup ?? ownGroup!).next()
        core = NIOLoopBoundBox.makeBoxSendingValue(
            PadLinkCore(configuration: configuration, finder: finder, onEvent: onEvent), eventLoop: loop)
        let box = core
        loop.execute { box.value.box = box }
    }

    /// Starts connecting.
    public func start() {
        let box = core
        core.eventLoop.execute { box.value.perform(box.value.machine.start()) }
    }

    /// Sends a hit now if connected; otherwise drops and counts it. The link numbers it.
    public func send(_ hit: DrumHit) {
        let box = core
        core.eventLoop.execute { box.value.send(hit) }
    }

    /// The link's counters.
    public func statistics() async -> Statistics {
        let box = core
        return (try? await core.eventLoop.submit { box.value.statistics }.get()) ?? Statistics()
    }

    /// The sensor's rate, once measured: told to the brain now if it speaks protocol 2, and to
    /// every brain this link connects to later. Any thread.
    public func setRate(_ hz: Float) {
        guard hz.isFinite && hz > 0 else { return }
        let box = core
        core.eventLoop.execute {
            let changed = box.value.rateHz != hz
            box.value.rateHz = hz
            if changed { box.value.tellRate() }
        }
    }

    /// Sends what is queued, closes the connection, and stops; returns the final counters.
    @discardableResult
    public func stop() async -> Statistics {
        let box = core
        let final = try? await core.eventLoop.flatSubmit { () -> EventLoopFuture<Statistics> in
            let statistics = box.value.statistics
            return box.value.stop().map { statistics }
        }.get()
        try? await ownGroup?.shutdownGracefully()  // nothing to do if it fails
        return final ?? Statistics()
    }
}

/// The link's state, on its event loop.
final class PadLinkCore {
    let configuration: PadLink.Configuration
    let finder: (any BrainFinder)?
    let onEvent: @Sendable (PadLink.Event) -> Void
    var machine: PadLinkStateMachine
    var clock = ClockSync()
    var channel: Channel?
    var pingTask: RepeatedTask?
    var sequence: Int32 = 0
    var sentHits = 0
    /// The sensor's rate once known (`PadLink.setRate`), told to brains of protocol 2.
    var rateHz: Float?
    /// The protocol version the brain of this connection welcomed with (0 until it does):
    /// protocol 2's arguments go only to a brain of 2 or later.
    var brainVersion: Int32 = 0
    /// Set right after creation, on the loop: lets callbacks find their way back here.
    var box: NIOLoopBoundBox<PadLinkCore>?

    init(configuration: PadLink.Configuration, finder: (any BrainFinder)?,
         onEvent: @escaping @Sendable (PadLink.Event) -> Void) {
        self.configuration = configuration
        self.finder = finder
        self.onEvent = onEvent
        machine = PadLinkStateMachine(key: configuration.key, padName: configuration.padName)
    }

    var statistics: PadLink.Statistics {
        PadLink.Statistics(sentHits: sentHits, droppedHits: machine.droppedHits,
                           reconnects: machine.reconnects, clockOffsetMicros: clock.offsetMicros,
                           roundTripMicros: clock.roundTripMicros)
    }

    func perform(_ actions: [PadLinkStateMachine.Action]) {
        guard let box else { return }
        let loop = box.eventLoop
        for action in actions {
            switch action {
            case .connect:
                connect()
            case .sayHelloAndStartPinging:
                write(.hello(version: DrumMessage.protocolVersion, padName: configuration.padName,
                             drum: configuration.drum))
                // A quick burst first, so the brain knows the clock offset before the first
                // hits; then the steady interval.
                ping()
                for burst in 1...3 {
                    loop.scheduleTask(in: .milliseconds(Int64(burst) * 20)) { box.value.ping() }
                }
                let interval = TimeAmount.microseconds(configuration.pingIntervalMicros)
                pingTask = loop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
                    box.value.ping()
                }
                if machine.droppedSinceConnected > 0 {
                    onEvent(.droppedWhileDisconnected(count: machine.droppedSinceConnected))
                    machine.reportedDrops()
                }
            case .stopPinging:
                pingTask?.cancel()
                pingTask = nil
            case .retry(let wait):
                loop.scheduleTask(in: .microseconds(wait)) { box.value.perform(box.value.machine.retryDue()) }
            case .close:
                channel?.close(promise: nil)
                // Still connected (refused): `lost` follows and schedules the retry.
                if machine.state != .connected { channel = nil }
            case .send(let message):
                write(message)
            case .report(let notice):
                onEvent(.pairing(notice))
            }
        }
    }

    func connect() {
        guard let box else { return }
        let loop = box.eventLoop
        switch configuration.target {
        case .address(let host, let port):
            open(host: host, port: port)
        case .discover(let name):
            guard let finder else {
                failed("no discovery available; give the brain's address with --brain HOST:PORT")
                return
            }
            let promise = loop.makePromise(of: BrainService?.self)
            promise.completeWithTask { await finder.find(name: name) }
            promise.futureResult.whenSuccess { service in
                guard let service else {
                    box.value.failed(name.map { "no brain named \"\($0)\" found" } ?? "no brain found")
                    return
                }
                box.value.open(host: service.host, port: service.port)
            }
        }
    }

    func open(host: String, port: Int) {
        guard let box else { return }
        ClientBootstrap(group: box.eventLoop)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(2))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(PadLinkHandler(core: box))
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                let core = box.value
                switch result {
                case .success(let channel):
                    guard case .connecting = core.machine.state else {
                        channel.close(promise: nil)  // stopped meanwhile
                        return
                    }
                    core.channel = channel
                    core.sequence = 0
                    core.brainVersion = 0
                    core.onEvent(.connected(address: "\(host):\(port)"))
                    core.perform(core.machine.connectSucceeded())
                case .failure(let error):
                    core.failed("\(host):\(port): \(error)")
                }
            }
    }

    func failed(_ reason: String) {
        let actions = machine.connectFailed()
        if case .retry(let wait)? = actions.first {
            onEvent(.connectFailed(reason: reason, retryInMicros: wait))
        }
        perform(actions)
    }

    func lost(_ reason: String, channel closed: Channel) {
        // A late close of an older connection must not touch the current one.
        guard let channel, channel === closed else { return }
        self.channel = nil
        guard machine.state == .connected else { return }
        onEvent(.lost(reason: reason))
        perform(machine.connectionLost())
    }

    func send(_ hit: DrumHit) {
        guard machine.hitProduced() else { return }
        var numbered = hit
        numbered.sequence = sequence
        sequence &+= 1
        if numbered.padTimeMicros == nil { numbered.padTimeMicros = MonotonicClock.nowMicros() }
        if brainVersion < 2 { numbered.strength = nil }  // a version 1 brain refuses a fifth argument
        write(.hit(numbered))
        sentHits += 1
    }

    /// Says hello again with the sensor's rate, to a brain of protocol 2 that welcomed this
    /// connection, once the rate is known.
    func tellRate() {
        guard brainVersion >= 2, let rate = rateHz else { return }
        write(.hello(version: DrumMessage.protocolVersion, padName: configuration.padName,
                     drum: configuration.drum, rateHz: rate))
    }

    func ping() {
        write(.ping(timeMicros: MonotonicClock.nowMicros(), offsetMicros: clock.offsetMicros,
                    roundTripMicros: clock.roundTripMicros))
    }

    func received(_ message: DrumMessage) {
        switch message {
        case .pong(let sent, let brain):
            clock.add(sentMicros: sent, peerMicros: brain, receivedMicros: MonotonicClock.nowMicros())
        case .welcome(let version, let brainName, let kitName):
            guard brainVersion == 0 else { return }  // one welcome per connection
            brainVersion = max(1, version)
            let actions = machine.welcomeReceived()
            // The first hello named no rate (a version 1 brain refuses a fourth argument): now
            // that the brain speaks 2, say it again with the rate.
            if version >= 2 { tellRate() }
            onEvent(.welcomed(brainName: brainName, kitName: kitName))
            perform(actions)
        case .error(let text):
            machine.errorReceived()
            onEvent(.brainError(text))
        case .challenge(let nonce):
            perform(machine.challengeReceived(nonce: nonce))
        case .hit, .hello, .ping, .unknown, .auth:
            break  // not for pads
        }
    }

    func stop() -> EventLoopFuture<Void> {
        guard let box else { fatalError("PadLinkCore used before its box was set") }
        let closing = channel?.closeFuture
        perform(machine.stop())
        return closing ?? box.eventLoop.makeSucceededVoidFuture()
    }

    /// One message, one packet, one write.
    func write(_ message: DrumMessage) {
        guard let channel else { return }
        let packet = message.packet
        var buffer = channel.allocator.buffer(capacity: packet.count)
        buffer.writeBytes(packet)
        channel.writeAndFlush(buffer, promise: nil)
    }
}

/// Reads the brain's messages on the pad's connection.
final class PadLinkHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let core: NIOLoopBoundBox<PadLinkCore>
    var framer = PacketFramer()
    var failure: String?

    init(core: NIOLoopBoundBox<PadLinkCore>) {
        self.core = core
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        framer.append(unwrapInboundIn(data).readableBytesView)
        do {
            while let packet = try framer.nextPacket() {
                core.value.received(try DrumMessage(OSCDecoding.message(packet)))
            }
        } catch {
            failure = "brain sent bad data: \(error)"
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.value.lost(failure ?? "the brain closed the connection", channel: context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        failure = "\(error)"
        context.close(promise: nil)
    }
}

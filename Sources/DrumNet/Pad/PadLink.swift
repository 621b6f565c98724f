import CEpoll
import Monotonic
#if canImport(Glibc)
import Glibc
#endif

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
/// Thread safety: every method may be called from any thread; the link's state lives on its
/// loop's thread (`PadLinkLoop`).
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
        /// Pushes felt through the stand sent for the brain to learn from (`/drum/felt`).
        public var sentFelt = 0

        /// Zero counters.
        public init() {}

        init(sentHits: Int, droppedHits: Int, reconnects: Int, clockOffsetMicros: Int64?,
             roundTripMicros: Int64?, sentFelt: Int) {
            self.sentHits = sentHits
            self.sentFelt = sentFelt
            self.droppedHits = droppedHits
            self.reconnects = reconnects
            self.clockOffsetMicros = clockOffsetMicros
            self.roundTripMicros = roundTripMicros
        }
    }

    let configuration: Configuration
    /// The thread the link runs on: its own, unless it was given one to share.
    let loop: PadLinkLoop
    let ownsLoop: Bool
    let core: PadLinkCore

    /// Creates a link; call `start()` to connect. Many links (a benchmark, a test) can share
    /// `loop`; without one the link runs a thread of its own. Throws when that thread cannot be
    /// had (out of descriptors).
    public init(configuration: Configuration, finder: (any BrainFinder)? = nil, loop: PadLinkLoop? = nil,
                onEvent: @escaping @Sendable (Event) -> Void) throws(DrumNetError) {
        self.configuration = configuration
        ownsLoop = loop == nil
        if let loop { self.loop = loop } else { self.loop = try PadLinkLoop() }
        core = PadLinkCore(configuration: configuration, finder: finder, loop: self.loop, onEvent: onEvent)
    }

    /// Starts connecting.
    public func start() {
        let core = core
        loop.execute { core.perform(core.machine.start()) }
    }

    /// Sends a hit now if connected; otherwise drops and counts it. The link numbers it.
    public func send(_ hit: DrumHit) {
        let core = core
        loop.execute { core.send(hit) }
    }

    /// The link's counters.
    public func statistics() async -> Statistics {
        let core = core
        return await loop.run { core.statistics } ?? Statistics()
    }

    /// The sensor's rate, once measured: told to the brain now if it speaks protocol 2, and to
    /// every brain this link connects to later. Any thread.
    public func setRate(_ hz: Float) {
        guard hz.isFinite && hz > 0 else { return }
        let core = core
        loop.execute {
            let changed = core.rateHz != hz
            core.rateHz = hz
            if changed { core.tellRate() }
        }
    }

    /// Sends what is queued, closes the connection, and stops; returns the final counters.
    @discardableResult
    public func stop() async -> Statistics {
        let core = core
        let final = await loop.run { () -> Statistics in
            let statistics = core.statistics
            core.perform(core.machine.stop())
            return statistics
        }
        if ownsLoop { loop.shutdown() }
        return final ?? Statistics()
    }
}

/// The link's state and its connection, on the loop's thread.
final class PadLinkCore: @unchecked Sendable {
    // @unchecked: every property is touched only on the loop's thread (jobs handed to it with
    // `execute`, its timers and its descriptor handlers).

    let configuration: PadLink.Configuration
    let finder: (any BrainFinder)?
    let loop: PadLinkLoop
    let onEvent: @Sendable (PadLink.Event) -> Void
    var machine: PadLinkStateMachine
    var clock = ClockSync()
    /// The connection's socket (connecting or connected), or -1.
    var fd: Int32 = -1
    /// Counts connections: a handler or timer of an older one finds it changed and does nothing.
    var generation = 0
    /// Where the current connection goes, for messages.
    var peer = ""
    /// The addresses still to try for the current connection attempt, after `fd`'s.
    var untried: [Address] = []
    var connectDeadline: PadLinkLoop.Timer?
    var pingTimer: PadLinkLoop.Timer?
    /// Bytes the socket did not take at once, from `outboxStart` on.
    var outbox: [UInt8] = []
    var outboxStart = 0
    var framer = PacketFramer()
    /// Where reads land (the brain sends pongs, a welcome, a challenge: a few bytes a second).
    var buffer = [UInt8](repeating: 0, count: 4096)
    var sequence: Int32 = 0
    var sentHits = 0
    var sentFelt = 0
    /// The sensor's rate once known (`PadLink.setRate`), told to brains of protocol 2.
    var rateHz: Float?
    /// The protocol version the brain of this connection welcomed with (0 until it does):
    /// protocol 2's arguments go only to a brain of 2 or later.
    var brainVersion: Int32 = 0
    /// `/drum/felt`'s own counter: a brain that does not know the message sees no gap in its hits'.
    var feltSequence: Int32 = 0

    /// Bytes the brain may leave unread before the link gives up on the connection.
    static let outboxLimit = 64 * 1024
    /// How long a connection may take to open.
    static let connectTimeoutMicros: Int64 = 2_000_000

    /// One resolved address of the brain.
    struct Address {
        var family: Int32
        var bytes: [UInt8]
    }

    init(configuration: PadLink.Configuration, finder: (any BrainFinder)?, loop: PadLinkLoop,
         onEvent: @escaping @Sendable (PadLink.Event) -> Void) {
        self.configuration = configuration
        self.finder = finder
        self.loop = loop
        self.onEvent = onEvent
        machine = PadLinkStateMachine(key: configuration.key, padName: configuration.padName)
    }

    var statistics: PadLink.Statistics {
        PadLink.Statistics(sentHits: sentHits, droppedHits: machine.droppedHits,
                           reconnects: machine.reconnects, clockOffsetMicros: clock.offsetMicros,
                           roundTripMicros: clock.roundTripMicros, sentFelt: sentFelt)
    }

    func perform(_ actions: [PadLinkStateMachine.Action]) {
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
                let connection = generation
                for burst in 1...3 {
                    loop.schedule(inMicros: Int64(burst) * 20_000) { [self] in
                        if generation == connection { ping() }
                    }
                }
                schedulePing()
                if machine.droppedSinceConnected > 0 {
                    onEvent(.droppedWhileDisconnected(count: machine.droppedSinceConnected))
                    machine.reportedDrops()
                }
            case .stopPinging:
                pingTimer?.cancel()
                pingTimer = nil
            case .retry(let wait):
                loop.schedule(inMicros: wait) { [self] in perform(machine.retryDue()) }
            case .close:
                // Still connected (refused): it is lost as if the brain had closed it, and
                // `lost` schedules the retry.
                closeConnection(lost: "the brain closed the connection")
            case .send(let message):
                write(message)
            case .report(let notice):
                onEvent(.pairing(notice))
            }
        }
    }

    private func schedulePing() {
        pingTimer = loop.schedule(inMicros: configuration.pingIntervalMicros) { [self] in
            ping()
            schedulePing()
        }
    }

    func connect() {
        switch configuration.target {
        case .address(let host, let port):
            open(host: host, port: port)
        case .discover(let name):
            guard let finder else {
                failed("no discovery available; give the brain's address with --brain HOST:PORT")
                return
            }
            let loop = loop
            Task {
                let service = await finder.find(name: name)
                loop.execute { [self] in
                    guard case .connecting = machine.state else { return }  // stopped meanwhile
                    guard let service else {
                        failed(name.map { "no brain named \"\($0)\" found" } ?? "no brain found")
                        return
                    }
                    open(host: service.host, port: service.port)
                }
            }
        }
    }

    /// Resolves `host` and connects to its addresses in turn.
    func open(host: String, port: Int) {
        peer = "\(host):\(port)"
        switch Self.resolve(host: host, port: port) {
        case .failure(let failure):
            failed("\(peer): \(failure.message)")
        case .success(let addresses):
            untried = addresses
            tryNextAddress(lastError: "no address")
        }
    }

    /// Starts a non-blocking connect to the next untried address; fails the attempt when none
    /// is left.
    private func tryNextAddress(lastError: String) {
        guard !untried.isEmpty else {
            failed("\(peer): \(lastError)")
            return
        }
        let address = untried.removeFirst()
        let socketFD = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
                              | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socketFD >= 0 else {
            tryNextAddress(lastError: "socket: \(String(cString: strerror(errno)))")
            return
        }
        var one: Int32 = 1
        // Without it a hit may wait for Nagle's timer; failing only loses that.
        _ = setsockopt(socketFD, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let result = address.bytes.withUnsafeBytes {
            Glibc.connect(socketFD, $0.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
        }
        guard result == 0 || errno == EINPROGRESS else {
            let message = String(cString: strerror(errno))
            Glibc.close(socketFD)
            tryNextAddress(lastError: message)
            return
        }
        generation += 1
        fd = socketFD
        let connection = generation
        connectDeadline = loop.schedule(inMicros: Self.connectTimeoutMicros) { [self] in
            guard generation == connection, fd >= 0 else { return }
            abandonAttempt()
            tryNextAddress(lastError: "connect timed out after \(Self.connectTimeoutMicros / 1_000_000) s")
        }
        loop.watch(socketFD, events: EPOLLOUT.rawValue) { [self] _ in
            guard generation == connection else { return }
            connectFinished()
        }
    }

    /// The socket (connecting or connected) closed and unwatched, its connect deadline cancelled.
    private func abandonAttempt() {
        connectDeadline?.cancel()
        connectDeadline = nil
        loop.unwatch(fd)
        Glibc.close(fd)
        fd = -1
    }

    /// The connect in progress finished, either way.
    private func connectFinished() {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) != 0 { code = errno }
        guard code == 0 else {
            abandonAttempt()
            tryNextAddress(lastError: String(cString: strerror(code)))
            return
        }
        connectDeadline?.cancel()
        connectDeadline = nil
        guard case .connecting = machine.state else {  // stopped meanwhile
            abandonAttempt()
            return
        }
        watchForWrites(false)
        untried = []
        sequence = 0
        feltSequence = 0
        brainVersion = 0
        framer = PacketFramer()
        outbox = []
        outboxStart = 0
        onEvent(.connected(address: peer))
        perform(machine.connectSucceeded())
    }

    func failed(_ reason: String) {
        let actions = machine.connectFailed()
        if case .retry(let wait)? = actions.first {
            onEvent(.connectFailed(reason: reason, retryInMicros: wait))
        }
        perform(actions)
    }

    /// Reads what the brain sent; its close or a failure loses the connection.
    private func readable() {
        while fd >= 0 {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                framer.append(buffer[..<count])
                do {
                    while let packet = try framer.nextPacket() {
                        received(try DrumMessage(OSCDecoding.message(packet)))
                        guard fd >= 0 else { return }  // the message closed it
                    }
                } catch {
                    closeConnection(lost: "brain sent bad data: \(error)")
                    return
                }
                if count < buffer.count { return }
            } else if count == 0 {
                closeConnection(lost: "the brain closed the connection")
                return
            } else {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return
                default:
                    closeConnection(lost: String(cString: strerror(errno)))
                    return
                }
            }
        }
    }

    /// Closes the connection, if any; when the link was connected, it is lost with `reason` (and
    /// retries).
    func closeConnection(lost reason: String) {
        guard fd >= 0 else { return }
        flush()  // a last try: what the socket takes still reaches the brain after the close
        abandonAttempt()
        generation += 1
        outbox = []
        outboxStart = 0
        guard machine.state == .connected else { return }
        onEvent(.lost(reason: reason))
        perform(machine.connectionLost())
    }

    func send(_ hit: DrumHit) {
        if hit.felt {
            // Only a brain of protocol 2 knows the message; a push missed costs nothing played.
            guard machine.state == .connected, brainVersion >= 2, hit.padTimeMicros != nil, hit.strength != nil else { return }
            var numbered = hit
            numbered.sequence = feltSequence
            feltSequence &+= 1
            write(.hit(numbered))
            sentFelt += 1
            return
        }
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

    /// One message, one packet, one write; what the socket does not take waits for it to drain.
    func write(_ message: DrumMessage) {
        guard fd >= 0, machine.state == .connected else { return }
        let packet = message.packet
        guard outboxStart == outbox.count else {
            guard outbox.count - outboxStart + packet.count <= Self.outboxLimit else {
                closeConnection(lost: "the brain stopped reading (\(Self.outboxLimit / 1024) KiB unsent)")
                return
            }
            outbox.append(contentsOf: packet)
            return
        }
        var sent = packet.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent == packet.count { return }
        if sent < 0 {
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                closeConnection(lost: String(cString: strerror(errno)))
                return
            }
            sent = 0
        }
        outbox = Array(packet[sent...])
        outboxStart = 0
        watchForWrites(true)
    }

    /// Sends what waits in the outbox, as far as the socket takes it.
    private func flush() {
        guard outboxStart < outbox.count else { return }
        while outboxStart < outbox.count {
            let sent = outbox.withUnsafeBytes { bytes in
                Glibc.send(fd, bytes.baseAddress! + outboxStart, bytes.count - outboxStart, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                outboxStart += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return  // full (EPOLLOUT comes) or failed (the read side sees it)
            }
        }
        outbox = []
        outboxStart = 0
        watchForWrites(false)
    }

    private func watchForWrites(_ on: Bool) {
        guard fd >= 0 else { return }
        let connection = generation
        loop.watch(fd, events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | (on ? EPOLLOUT.rawValue : 0)) { [self] events in
            guard generation == connection else { return }
            if events & EPOLLOUT.rawValue != 0 { flush() }
            if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                readable()
            }
        }
    }

    /// `host`'s addresses for TCP to `port`, or why there are none.
    static func resolve(host: String, port: Int) -> Result<[Address], ResolveFailure> {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &found)
        guard resolved == 0 else { return .failure(ResolveFailure(message: String(cString: gai_strerror(resolved)))) }
        defer { freeaddrinfo(found) }
        var addresses: [Address] = []
        var next = found
        while let entry = next {
            if let raw = entry.pointee.ai_addr {
                let bytes = [UInt8](UnsafeRawBufferPointer(start: raw, count: Int(entry.pointee.ai_addrlen)))
                addresses.append(Address(family: entry.pointee.ai_family, bytes: bytes))
            }
            next = entry.pointee.ai_next
        }
        return addresses.isEmpty ? .failure(ResolveFailure(message: "no address")) : .success(addresses)
    }

    /// Why a host has no address (getaddrinfo's words).
    struct ResolveFailure: Error {
        var message: String
    }
}

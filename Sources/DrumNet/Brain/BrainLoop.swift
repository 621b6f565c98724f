import CEpoll
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// The brain's network thread: one epoll loop that accepts connections, feeds each one's reads
/// to its `BrainConnection`, performs the actions it returns, and closes idle connections once a
/// second.
///
/// Connections are edge-triggered: a read shorter than the buffer has drained the socket, and the
/// next bytes to arrive raise a new event, so one read per arrival suffices (level-triggered epoll
/// would poll every socket it reported once more on the next wait).
///
/// Why a plain loop and not SwiftNIO, which the brain used before: a pad sends each hit as it
/// fires, so nearly every read is one 48-byte hit, and per read NIO's channel, pipeline and
/// buffer machinery cost more than the brain's own decoding (perf: about 36 % of the thread's
/// samples against 16 %). In the same runs at 256 pads, the brain's thread used 7.5–9.1 % of a
/// core on NIO and 4.4–5.7 % here, against 3.5–5.6 % for a bare C loop doing only the kernel's part
/// (docs/performance.md). A pad's link runs on a loop like this one (`PadLinkLoop`).
///
/// Thread safety: `submit` from any thread; everything else runs on the loop's own thread.
final class BrainLoop: @unchecked Sendable {
    // @unchecked: the mutable state below (pads, closed, nextID, actions, the read buffer,
    // stopping, listening, kitName) is touched only on the loop's thread, which `start` creates; the
    // inbox is the only state shared with other threads, and its mutex guards it.

    /// One open connection.
    final class Pad {
        let fd: Int32
        var connection: BrainConnection
        /// Bytes of packets the socket did not take at once, from `outboxStart` on.
        var outbox: [UInt8] = []
        var outboxStart = 0
        var isOpen = true

        init(fd: Int32, connection: BrainConnection) {
            self.fd = fd
            self.connection = connection
        }
    }

    /// Bytes a connection may leave unsent before it is closed: a peer that stops reading its
    /// pongs must not grow the brain's memory.
    static let outboxLimit = 256 * 1024
    /// Bytes taken per read: many packets, when a burst has piled up.
    static let readBufferBytes = 64 * 1024
    /// Full reads of one connection before the others get their turn.
    static let readsPerTurn = 4
    /// Connections accepted before the others get their turn: a storm of connects must not hold
    /// up the hits of pads already playing. The listening socket is level-triggered, so the rest
    /// are accepted on the next turns.
    static let acceptsPerTurn = 16
    /// What a connection is watched for: bytes, and the peer's close, edge-triggered.
    static let padEvents = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue

    /// The server's settings, fixed at start.
    let configuration: BrainServer.Configuration
    /// Where each hit goes, on the loop's thread.
    let onHit: @Sendable (ReceivedHit) -> Void
    /// Where the operator's notices go (already escaped and rate-limited), on the loop's thread.
    let onNotice: @Sendable (String) -> Void
    /// Where each pad's hello goes (each time it says one), on the loop's thread.
    let onHello: @Sendable (PadHello) -> Void
    /// Notices are said at most once per this long, brain-wide; the rest are counted into the next.
    static let noticeIntervalMicros: Int64 = 10_000_000
    /// When the last notice was said (0: never), and how many were held back since.
    private var lastNoticeMicros: Int64 = 0
    private var heldNotices = 0
    let listenFD: Int32
    private let epollFD: Int32
    /// The jobs submitted from other threads (its mutex guards them).
    private let inbox: LoopInbox

    /// Open connections by descriptor.
    private var pads: [Pad?] = []
    private var padCount = 0
    /// Connections whose reads were cut short to let the others go first, read again next turn.
    private var backlog: [Pad] = []
    private var closed: [PadStatistics] = []
    private var nextID = 1
    /// The kit's name each new connection welcomes its pad with (`configuration.kitName` until a
    /// reload says another).
    private var kitName: String
    private var stopping = false
    private var listening = true
    private var actions: [BrainConnection.Action] = []
    private let readBuffer: UnsafeMutableRawBufferPointer
    /// The `/drum/error` packet a connection over the limit gets, made once.
    private let refusal: [UInt8]

    /// Statistics of closed connections kept, the most recent.
    static let closedLimit = 1000

    /// Takes a bound, listening, non-blocking socket. Throws if epoll or eventfd cannot be had.
    init(listenFD: Int32, configuration: BrainServer.Configuration,
         onHit: @escaping @Sendable (ReceivedHit) -> Void,
         onNotice: @escaping @Sendable (String) -> Void = { _ in },
         onHello: @escaping @Sendable (PadHello) -> Void = { _ in }) throws(DrumNetError) {
        self.listenFD = listenFD
        self.configuration = configuration
        kitName = configuration.kitName
        self.onHit = onHit
        self.onNotice = onNotice
        self.onHello = onHello
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .socket(operation: "epoll_create1", code: errno) }
        do {
            inbox = try LoopInbox()
        } catch {
            Glibc.close(epollFD)
            throw error
        }
        readBuffer = .allocate(byteCount: Self.readBufferBytes, alignment: 16)
        refusal = DrumMessage.error("the brain has \(configuration.maxConnections) connections, its limit; try later").packet
        actions.reserveCapacity(16)
        watch(inbox.wakeFD, EPOLLIN.rawValue, EPOLL_CTL_ADD)
        watch(listenFD, EPOLLIN.rawValue, EPOLL_CTL_ADD)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Starts the loop's thread.
    func start() {
        let created = startLoopThread(name: "drumbrain-net") { self.run() }
        precondition(created == 0, "cannot start the brain's network thread: \(String(cString: strerror(created)))")
    }

    /// Runs `job` on the loop's thread; false (and `job` dropped) once the loop has stopped.
    ///
    /// Thread safety: any thread.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        inbox.submit(job)
    }

    /// Welcomes the pads of connections accepted from now on with `name` (a kit reloaded).
    /// Any thread; never waits.
    func setKitName(_ name: String) {
        _ = submit { [self] in kitName = name }
    }

    /// Runs `body` on the loop's thread and returns its result. Throws `serverStopped` once the
    /// loop has stopped.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async throws(DrumNetError) -> T {
        let result: Result<T, DrumNetError> = await withCheckedContinuation { continuation in
            let accepted = submit { continuation.resume(returning: .success(body())) }
            if !accepted { continuation.resume(returning: .failure(.serverStopped)) }
        }
        return try result.get()
    }

    // MARK: On the loop's thread

    /// Open connections' statistics, oldest first; with `latencies` false, without their latency
    /// windows.
    func openStatistics(latencies: Bool = true) -> [PadStatistics] {
        openPadsOldestFirst().map { latencies ? $0.connection.statistics : $0.connection.statistics.withoutLatencies() }
    }

    private func openPadsOldestFirst() -> [Pad] {
        pads.compactMap { $0 }.sorted { $0.connection.statistics.connectionID < $1.connection.statistics.connectionID }
    }

    /// Statistics of the connections closed so far (the last 1000), oldest first.
    func closedStatistics() -> [PadStatistics] { closed }

    /// Stops accepting, closes every connection, and ends the loop after this turn; returns the
    /// statistics of every connection of the run (the last 1000), oldest first.
    func shutdown() -> [PadStatistics] {
        setListening(false)
        for pad in openPadsOldestFirst() { close(pad) }
        stopping = true
        return closed
    }

    private func run() {
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        var nextSweepMicros = MonotonicClock.nowMicros() + 1_000_000
        while !stopping {
            let now = MonotonicClock.nowMicros()
            if now >= nextSweepMicros {
                sweep(nowMicros: now)
                nextSweepMicros = now + 1_000_000
            }
            let timeoutMillis = backlog.isEmpty ? Int32(clamping: (nextSweepMicros - now + 999) / 1000) : 0
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32($0.count), timeoutMillis)
            }
            guard count >= 0 else {
                precondition(errno == EINTR, "epoll_wait failed: \(String(cString: strerror(errno)))")
                continue
            }
            for i in 0..<Int(count) {
                var event = events[i]
                let fd = CEpoll_eventFD(&event)
                if fd == inbox.wakeFD {
                    runJobs()
                } else if fd == listenFD {
                    if listening { acceptWaiting() }
                } else if Int(fd) < pads.count, let pad = pads[Int(fd)] {
                    // Errors and hang-ups show up as a failed or empty read.
                    if event.events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
                        readable(pad, peerClosed: event.events & (EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0)
                    }
                    if pad.isOpen && event.events & EPOLLOUT.rawValue != 0 { writable(pad) }
                }
            }
            if !backlog.isEmpty {
                let waiting = backlog
                backlog.removeAll(keepingCapacity: true)
                for pad in waiting where pad.isOpen { readable(pad, peerClosed: false) }
            }
        }
        finish()
    }

    /// Closes the loop's own descriptors; jobs that were still waiting run first.
    private func finish() {
        for job in inbox.takeAll(closing: true) { job() }
        Glibc.close(listenFD)
        inbox.close()
        Glibc.close(epollFD)
    }

    private func runJobs() {
        for job in inbox.takeAll() { job() }
    }

    /// Accepts waiting connections, at most `acceptsPerTurn`; one over the limit is told so and closed.
    private func acceptWaiting() {
        for _ in 0..<Self.acceptsPerTurn {
            let fd = CEpoll_accept(listenFD)
            guard fd >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EAGAIN, EWOULDBLOCK: return
                default:
                    // Out of descriptors (EMFILE, ENFILE) or memory: the listening socket would stay
                    // readable and spin the loop, so stop accepting until the next idle sweep.
                    setListening(false)
                    return
                }
            }
            guard padCount < configuration.maxConnections else {
                _ = refusal.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                Glibc.close(fd)
                continue
            }
            var one: Int32 = 1
            // Failures only lose the option on a socket that works without it.
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, socklen_t(MemoryLayout<Int32>.size))
            let id = nextID
            nextID += 1
            let connection = BrainConnection(
                connectionID: id, address: Self.peerDescription(fd), brainName: configuration.brainName,
                kitName: kitName, limits: configuration.limits, key: configuration.key,
                nonce: configuration.key == nil ? [] : PairingKey.makeNonce(), nowMicros: MonotonicClock.nowMicros())
            let pad = Pad(fd: fd, connection: connection)
            if Int(fd) >= pads.count { pads.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - pads.count)) }
            pads[Int(fd)] = pad
            padCount += 1
            watch(fd, Self.padEvents, EPOLL_CTL_ADD)
        }
    }

    /// Reads what `pad` sent. With `peerClosed` (the peer shut down or failed), reads on to the
    /// end, which closes the connection: that edge comes once.
    private func readable(_ pad: Pad, peerClosed: Bool) {
        var fullReads = 0
        while true {
            let count = Glibc.read(pad.fd, readBuffer.baseAddress, readBuffer.count)
            if count > 0 {
                let now = MonotonicClock.nowMicros()
                actions.removeAll(keepingCapacity: true)
                pad.connection.receive(UnsafeRawBufferPointer(rebasing: readBuffer[..<count]), nowMicros: now,
                                       into: &actions)
                perform(actions, on: pad, receivedMicros: now)
                // Shorter than the buffer: the socket is drained, and new bytes raise a new edge.
                guard pad.isOpen else { return }
                if count < readBuffer.count && !peerClosed { return }
                fullReads += 1
                if fullReads == Self.readsPerTurn && !peerClosed {
                    backlog.append(pad)  // a flood: the other connections first, then more of it
                    return
                }
            } else if count == 0 {
                close(pad)  // the peer closed
                return
            } else {
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return
                default: close(pad); return  // a reset or similar: the pad reconnects if it wants to
                }
            }
        }
    }

    private func perform(_ actions: [BrainConnection.Action], on pad: Pad, receivedMicros: Int64) {
        for action in actions {
            switch action {
            case .deliver(let hit, let latency):
                onHit(ReceivedHit(hit: hit, connectionID: pad.connection.statistics.connectionID,
                                           padName: pad.connection.statistics.padName,
                                           receivedMicros: receivedMicros, latencyMicros: latency,
                                           rateHz: pad.connection.statistics.rateHz))
            case .send(let message):
                write(message.packet, to: pad)
            case .sendErrorAndClose(let text):
                write(DrumMessage.error(text).packet, to: pad)
                close(pad)
            case .notice(let text):
                notice(text, from: pad, nowMicros: receivedMicros)
            case .greeted:
                guard let name = pad.connection.statistics.padName else { break }
                onHello(PadHello(connectionID: pad.connection.statistics.connectionID, padName: name,
                                 rateHz: pad.connection.statistics.rateHz, version: pad.connection.statistics.version ?? 1,
                                 receivedMicros: receivedMicros))
            }
        }
    }

    /// Says `text` about `pad`, unless a notice was said less than `noticeIntervalMicros` ago:
    /// then it is counted, and the next one said says how many were held back. A client sending
    /// nonsense on every packet costs the operator one line per interval.
    private func notice(_ text: String, from pad: Pad, nowMicros: Int64) {
        guard lastNoticeMicros == 0 || nowMicros.saturatingSubtract(lastNoticeMicros) >= Self.noticeIntervalMicros else {
            heldNotices += 1
            return
        }
        lastNoticeMicros = nowMicros
        let name = pad.connection.statistics.padName.map { "\"\(WireText.printable($0, prose: true))\" " } ?? ""
        var line = "pad \(name)(\(pad.connection.statistics.address)): \(text)"
        if heldNotices > 0 { line += " (\(heldNotices) more such notices in the last \(Self.noticeIntervalMicros / 1_000_000) s, not shown)" }
        heldNotices = 0
        onNotice(line)
    }

    /// Writes one packet with one write; what the socket does not take waits for it to drain.
    private func write(_ packet: [UInt8], to pad: Pad) {
        guard pad.isOpen else { return }
        guard pad.outbox.isEmpty else {
            guard pad.outbox.count - pad.outboxStart + packet.count <= Self.outboxLimit else {
                close(pad)
                return
            }
            pad.outbox.append(contentsOf: packet)
            return
        }
        var sent = packet.withUnsafeBytes { send(pad.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if sent == packet.count { return }
        if sent < 0 {
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                close(pad)
                return
            }
            sent = 0
        }
        pad.outbox.append(contentsOf: packet[sent...])
        watch(pad.fd, Self.padEvents | EPOLLOUT.rawValue, EPOLL_CTL_MOD)
    }

    private func writable(_ pad: Pad) {
        while pad.outboxStart < pad.outbox.count {
            let sent = pad.outbox.withUnsafeBytes { bytes in
                send(pad.fd, bytes.baseAddress! + pad.outboxStart, bytes.count - pad.outboxStart, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                pad.outboxStart += sent
            } else if sent < 0 && errno == EINTR {
                continue
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                // Drop what went out once it is most of the outbox: a peer that reads slowly but
                // never lets it drain would otherwise keep every byte ever sent to it.
                if pad.outboxStart >= pad.outbox.count / 2 {
                    pad.outbox.removeFirst(pad.outboxStart)
                    pad.outboxStart = 0
                }
                return
            } else {
                close(pad)
                return
            }
        }
        pad.outbox.removeAll(keepingCapacity: false)
        pad.outboxStart = 0
        watch(pad.fd, Self.padEvents, EPOLL_CTL_MOD)
    }

    private func close(_ pad: Pad) {
        guard pad.isOpen else { return }
        pad.isOpen = false
        watch(pad.fd, 0, EPOLL_CTL_DEL)
        Glibc.close(pad.fd)
        pads[Int(pad.fd)] = nil
        padCount -= 1
        closed.append(pad.connection.statistics)
        if closed.count > Self.closedLimit { closed.removeFirst() }
    }

    /// Once a second: closes connections silent for longer than the idle limit, and listens
    /// again if running out of descriptors stopped it.
    private func sweep(nowMicros: Int64) {
        for case let pad? in pads {
            if let action = pad.connection.checkIdle(nowMicros: nowMicros) {
                perform([action], on: pad, receivedMicros: 0)
            }
        }
        if !stopping { setListening(true) }
    }

    /// Starts or stops watching the listening socket for new connections.
    private func setListening(_ on: Bool) {
        guard on != listening else { return }
        listening = on
        watch(listenFD, on ? EPOLLIN.rawValue : 0, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL)
    }

    /// epoll_ctl for `fd`. The corresponding C function is `epoll_ctl`.
    private func watch(_ fd: Int32, _ events: UInt32, _ operation: Int32) {
        var event = CEpoll_event(fd, events)
        // Fails only for a descriptor that is not open or not (or already) watched: a bug here.
        let result = epoll_ctl(epollFD, operation, fd, &event)
        precondition(result == 0 || operation == EPOLL_CTL_DEL,
                     "epoll_ctl(\(operation), \(fd)) failed: \(String(cString: strerror(errno)))")
    }
}

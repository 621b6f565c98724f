/// One pad's connection as the brain sees it: bytes in, actions out (docs/architecture.md, Wire protocol).
///
/// Pure code, tested without sockets; the server performs the actions it returns.
///
///     ┌──────┐ bytes: hits, hello, ping, unknown ┌──────┐
///     │ open ├──────────────────────────────────►│ open │
///     └──┬───┘                                   └──────┘
///        │ malformed packet, bad length, idle too long
///        ▼
///     ┌────────┐  (every later call returns no actions)
///     │ closed │
///     └────────┘
///
/// With a pairing key, a connection starts unpaired (docs/protocol.md "Pairing"):
///
///     ┌──────────────┐ hello ┌────────────┐ auth, right ┌────────┐
///     │ awaiting     ├──────►│ challenged ├────────────►│ paired │ (as open above)
///     │ hello        │ chal- └─────┬──────┘   welcome   └────────┘
///     └──────┬───────┘ lenge       │ auth, wrong: error "wrong key"
///            │ anything but hello, auth, ping: error "this brain needs a key…"
///            ▼                     ▼
///          closed               closed
///
/// Thread safety: a value type, used on the brain's network thread only.
public struct BrainConnection: Sendable {
    /// What the server does for the connection.
    public enum Action: Equatable, Sendable {
        /// Hand the hit to the audio side (with its latency, when the pad's clock is known).
        case deliver(DrumHit, latencyMicros: Int64?)
        /// Write this message to the pad.
        case send(DrumMessage)
        /// Write `/drum/error` with this text, then close the connection.
        case sendErrorAndClose(String)
        /// Tell the brain's operator about implausible input that was refused but did not close
        /// the connection (a hit time, a clock offset); the server rate-limits these.
        case notice(String)
        /// The pad said hello: its name and rate (if it sent one) are now known. The brain makes
        /// the pad known before its first hit (the latency, the stands).
        case greeted
    }

    /// Limits that keep one pad from hurting the others.
    public struct Limits: Sendable {
        /// The largest packet accepted, in bytes after the length prefix.
        public var maxPacketBytes: Int
        /// Close a connection that sends nothing for this long (pads ping every second).
        public var idleTimeoutMicros: Int64

        /// Hits per second a connection may sustain; hits beyond it are dropped and counted
        /// (a token bucket, so one flooding client cannot crowd out the other pads).
        public var maxHitsPerSecond: Double
        /// Hits a connection may send at once above the sustained rate (the bucket's size).
        public var hitBurst: Double
        /// The largest network latency, either way, that a hit's pad time and the pad's clock
        /// offset may imply; beyond it they are refused (the hit plays untimed) and counted.
        /// Also the longest round trip a pad may report.
        public var maxLatencyMicros: Int64

        /// Creates limits; the defaults allow a few KiB per packet, 10 s of silence, and 200 hits
        /// per second in bursts of 50 (a drummer's fastest roll on one pad is about 30 per second).
        public init(maxPacketBytes: Int = 4096, idleTimeoutMicros: Int64 = 10_000_000,
                    maxHitsPerSecond: Double = 200, hitBurst: Double = 50, maxLatencyMicros: Int64 = 10_000_000) {
            precondition(maxHitsPerSecond > 0 && hitBurst >= 1, "the hit limit must admit hits")
            precondition(maxLatencyMicros > 0 && maxLatencyMicros <= 1 << 40, "the latency bound must be positive and sane")
            self.maxLatencyMicros = maxLatencyMicros
            self.maxPacketBytes = maxPacketBytes
            self.idleTimeoutMicros = idleTimeoutMicros
            self.maxHitsPerSecond = maxHitsPerSecond
            self.hitBurst = hitBurst
        }
    }

    /// The brain's name and kit, sent in `/drum/welcome`.
    public let brainName: String
    /// The kit's name, sent in `/drum/welcome`.
    public let kitName: String
    /// The limits in force.
    public let limits: Limits
    /// What is known about the pad so far.
    public private(set) var statistics: PadStatistics
    /// Whether the connection has been closed by an action.
    public private(set) var isClosed = false
    /// Whether hits are accepted yet: at once without a key, after a right answer with one.
    public var isPaired: Bool { pairing == .paired }

    /// Refusal sent to a client that plays a keyed brain without answering its challenge.
    public static let needsKeyMessage = "this brain needs a key: give drumpad --key-file"
    /// Refusal sent to a pad whose answer does not match the brain's key.
    public static let wrongKeyMessage = "wrong key: give drumpad the brain's --key-file"

    /// Where pairing stands (see the diagram above).
    private enum Pairing: Equatable {
        case awaitingHello
        case challenged(padName: String)
        case paired
    }

    private let key: PairingKey?
    private let nonce: [UInt8]
    private var pairing: Pairing

    private var framer: PacketFramer
    /// The drum name of the last hit, reused while the pad keeps sending it.
    private var lastDrum = ""
    private var lastSequence: Int32?
    private var lastActivityMicros: Int64
    /// Hits the connection may still send now (the token bucket), and when it was last filled.
    private var hitTokens: Double
    private var hitTokensMicros: Int64

    /// Starts a connection accepted at `nowMicros` from `address`. With `key`, the pad must answer
    /// a challenge with `nonce` (fresh and random per connection) before anything but a ping.
    public init(connectionID: Int, address: String, brainName: String, kitName: String,
                limits: Limits = Limits(), key: PairingKey? = nil, nonce: [UInt8] = [], nowMicros: Int64) {
        precondition(key == nil || !nonce.isEmpty, "a keyed connection needs a nonce")
        self.key = key
        self.nonce = nonce
        self.pairing = key == nil ? .paired : .awaitingHello
        self.brainName = brainName
        self.kitName = kitName
        self.limits = limits
        self.statistics = PadStatistics(connectionID: connectionID, address: address)
        self.framer = PacketFramer(maxPacketBytes: limits.maxPacketBytes)
        self.lastActivityMicros = nowMicros
        self.hitTokens = limits.hitBurst
        self.hitTokensMicros = nowMicros
    }

    /// Takes bytes received at `nowMicros` (brain clock) and returns what to do, in order.
    public mutating func receive(_ bytes: some Sequence<UInt8>, nowMicros: Int64) -> [Action] {
        var actions: [Action] = []
        Array(bytes).withUnsafeBytes { receive($0, nowMicros: nowMicros, into: &actions) }
        return actions
    }

    /// Takes one read's bytes, received at `nowMicros` (brain clock), and appends what to do, in
    /// order, to `actions`: the server's path, which neither copies whole packets nor allocates
    /// for the usual hits (the caller reuses `actions`).
    public mutating func receive(_ bytes: UnsafeRawBufferPointer, nowMicros: Int64, into actions: inout [Action]) {
        guard !isClosed else { return }
        // The framer is moved out while its packets are handled, so that handling them can
        // change the rest of `self`; an empty framer holds nothing to copy.
        var framer = PacketFramer(maxPacketBytes: limits.maxPacketBytes)
        swap(&framer, &self.framer)
        defer { swap(&framer, &self.framer) }
        do throws(DrumNetError) {
            try framer.forEachPacket(in: bytes) { (packet) throws(DrumNetError) -> Bool in
                let message: DrumMessage
                if let hit = DrumHit.fastDecode(packet, drum: &lastDrum) {
                    message = .hit(hit)
                } else {
                    message = try DrumMessage(OSCDecoding.message(packet))
                }
                // Only whole messages count as activity: a client trickling a packet's bytes
                // (slow loris) is closed by the idle limit like a silent one.
                lastActivityMicros = nowMicros
                handle(message, nowMicros: nowMicros, into: &actions)
                return !isClosed
            }
        } catch {
            statistics.errors += 1
            isClosed = true
            actions.append(.sendErrorAndClose(error.description))
        }
    }

    /// Closes the connection if it has sent no whole message for longer than the idle limit.
    public mutating func checkIdle(nowMicros: Int64) -> Action? {
        guard !isClosed, nowMicros - lastActivityMicros > limits.idleTimeoutMicros else { return nil }
        isClosed = true
        let seconds = Double(limits.idleTimeoutMicros) / 1e6
        return .sendErrorAndClose("no message for \(seconds) s; pads ping every second")
    }

    private mutating func handle(_ message: DrumMessage, nowMicros: Int64, into actions: inout [Action]) {
        if pairing != .paired {
            switch (message, pairing) {
            case (.hello(let version, let padName, let drum, let rate), .awaitingHello):
                statistics.version = version
                statistics.rateHz = rate
                statistics.padName = padName
                statistics.drum = drum
                pairing = .challenged(padName: padName)
                actions.append(.send(.challenge(nonce: nonce)))
                return
            case (.auth(let answer), .challenged(let padName)):
                guard let key, key.accepts(answer, nonce: nonce, padName: padName) else {
                    refuse(Self.wrongKeyMessage, into: &actions)
                    return
                }
                pairing = .paired
                actions.append(.greeted)
                actions.append(.send(.welcome(version: DrumMessage.protocolVersion,
                                              brainName: brainName, kitName: kitName)))
                return
            case (.ping, _):
                break  // keeps the connection alive while pairing
            default:
                refuse(Self.needsKeyMessage, into: &actions)
                return
            }
        }
        switch message {
        case .hit(let hit):
            if hit.felt { statistics.felt += 1 } else { statistics.hits += 1 }
            // Felt pushes share the hits' budget: a flood of them is refused like one of hits.
            guard takeHitToken(nowMicros: nowMicros) else {
                if hit.felt { statistics.droppedFelt += 1 } else { statistics.droppedHits += 1 }
                return
            }
            if !hit.felt, let sequence = hit.sequence {  // a felt push has its own numbers
                if let last = lastSequence, sequence > last &+ 1 {
                    statistics.sequenceGaps += Int(sequence) - Int(last) - 1
                }
                lastSequence = sequence
            }
            var latency: Int64?
            if let padTime = hit.padTimeMicros, let offset = statistics.clockOffsetMicros {
                latency = plausibleLatency(nowMicros: nowMicros, padMicros: padTime, offsetMicros: offset)
                if let latency {
                    if !hit.felt { statistics.latencyMicros.add(latency) }
                } else {
                    statistics.refusedTimes += 1
                    // A felt push is only for learning the stands, which an implausible time cannot serve.
                    guard !hit.felt else { return }
                    actions.append(.notice("hit time refused: pad time \(padTime) µs with clock offset \(offset) µs "
                                           + "is not within \(limits.maxLatencyMicros / 1_000_000) s of the brain's "
                                           + "clock; the hit plays untimed"))
                }
            }
            actions.append(.deliver(hit, latencyMicros: latency))
        case .hello(let version, let padName, let drum, let rate):
            // A protocol 2 pad says hello again with its rate once welcomed: that one updates
            // what the brain knows and is not welcomed again. A hello under another name renames
            // the connection, but does not make a second pad known: its hits will.
            let again = statistics.padName != nil
            let renamed = again && statistics.padName != padName
            statistics.version = version
            statistics.rateHz = rate ?? statistics.rateHz
            statistics.padName = padName
            statistics.drum = drum
            if !renamed { actions.append(.greeted) }
            if !again {
                actions.append(.send(.welcome(version: DrumMessage.protocolVersion,
                                              brainName: brainName, kitName: kitName)))
            }
        case .ping(let time, let offset, let roundTrip):
            if let offset, let roundTrip {
                // The pad's estimate is checked for sense against the ping itself: its time
                // moved to the brain's clock by that offset must land near now, and the round
                // trip must be one a network takes. Otherwise the last sensible one stays.
                if (0...limits.maxLatencyMicros).contains(roundTrip),
                   plausibleLatency(nowMicros: nowMicros, padMicros: time, offsetMicros: offset) != nil {
                    statistics.clockOffsetMicros = offset
                    statistics.roundTripMicros = roundTrip
                } else {
                    statistics.refusedTimes += 1
                    actions.append(.notice("clock offset refused: ping time \(time) µs, offset \(offset) µs, round trip "
                                           + "\(roundTrip) µs do not fit the brain's clock within "
                                           + "\(limits.maxLatencyMicros / 1_000_000) s"))
                }
            }
            actions.append(.send(.pong(timeMicros: time, brainTimeMicros: nowMicros)))
        case .pong, .welcome, .error, .challenge, .auth:
            break  // not expected from a pad (or once paired); harmless
        case .unknown:
            statistics.unknownMessages += 1
        }
    }

    /// The latency `nowMicros − (padMicros + offsetMicros)` when it is within the limit either
    /// way, else nil. Both times come from the wire: the arithmetic reports overflow instead of
    /// trapping, and a result out of range is refused, so what it returns is safe to subtract
    /// from any brain time.
    func plausibleLatency(nowMicros: Int64, padMicros: Int64, offsetMicros: Int64) -> Int64? {
        let (onBrainClock, overflow) = padMicros.addingReportingOverflow(offsetMicros)
        guard !overflow else { return nil }
        let (latency, under) = nowMicros.subtractingReportingOverflow(onBrainClock)
        guard !under, latency.magnitude <= UInt64(limits.maxLatencyMicros) else { return nil }
        return latency
    }

    /// Counts the refusal as an error, says why, and closes; nothing after it is read.
    private mutating func refuse(_ text: String, into actions: inout [Action]) {
        statistics.errors += 1
        isClosed = true
        actions.append(.sendErrorAndClose(text))
    }

    /// Refills the hit bucket for the time since it was last filled and takes one hit from it;
    /// false when it is empty (the hit is over the limit).
    private mutating func takeHitToken(nowMicros: Int64) -> Bool {
        let elapsed = Double(max(0, nowMicros &- hitTokensMicros))
        hitTokensMicros = nowMicros
        hitTokens = min(limits.hitBurst, hitTokens + elapsed * limits.maxHitsPerSecond / 1e6)
        guard hitTokens >= 1 else { return false }
        hitTokens -= 1
        return true
    }
}

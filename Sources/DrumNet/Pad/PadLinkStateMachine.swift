/// The pad's side of its link to a brain: when to connect, retry, say hello, ping, and whether a
/// hit can be sent. Pure code; `PadLink` performs the actions.
///
///     ┌──────┐ start ┌────────────┐ connected ┌───────────┐
///     │ idle ├──────►│ connecting ├──────────►│ connected │
///     └──────┘       └──┬─────────┘           └────┬──────┘
///                failed │    ▲ retry due           │ lost
///                       ▼    │                     ▼
///                     ┌──────┴──┐◄─────────────────┘
///                     │ waiting │  (backoff doubles per failure, capped)
///                     └─────────┘
///     stop() from any state → stopped (final)
///
/// Pairing (docs/protocol.md "Pairing"), within `connected`: a brain with a key answers hello with a
/// challenge; with a key the pad answers it (`/drum/auth`), without one it reports that the brain
/// needs a key and closes. A pad with a key sends hits only once welcomed (a hit before the
/// answer would be refused). Refusals in a row (a challenge without a key, an error before the
/// welcome) back off like failed connections.
///
/// Hits produced while not connected are dropped and counted: a late drum hit is worse than none.
public struct PadLinkStateMachine: Sendable {
    /// Where the link is.
    public enum State: Equatable, Sendable {
        case idle
        case connecting(attempt: Int)
        case connected
        case waiting(attempt: Int)
        case stopped
    }

    /// What `PadLink` does.
    public enum Action: Equatable, Sendable {
        /// Find the brain (rediscovering it when it was discovered) and open a connection.
        case connect
        /// Send `/drum/hello` and start pinging every second.
        case sayHelloAndStartPinging
        /// Stop pinging (the connection is gone).
        case stopPinging
        /// Try again after this many µs.
        case retry(afterMicros: Int64)
        /// Close the connection, if any.
        case close
        /// Write this message to the brain.
        case send(DrumMessage)
        /// Tell the user (once per cause; the link does not repeat it).
        case report(Notice)
    }

    /// What the pad tells its user about pairing.
    public enum Notice: Equatable, Sendable {
        /// The brain challenged, and this pad has no key.
        case brainNeedsKey
        /// This pad has a key, and the brain welcomed it without asking for it.
        case brainAsksNoKey
    }

    /// The backoff: the first retry waits `initialBackoffMicros`, each failure doubles it, up to
    /// `maxBackoffMicros`.
    public let initialBackoffMicros: Int64
    /// The longest wait between attempts.
    public let maxBackoffMicros: Int64
    /// Where the link is now.
    public private(set) var state: State = .idle
    /// Hits dropped because the link was down, since the start.
    public private(set) var droppedHits = 0
    /// Hits dropped since the link last came up (reported when it does).
    public private(set) var droppedSinceConnected = 0
    /// Times the link came up after having been up before.
    public private(set) var reconnects = 0
    private var everConnected = false
    /// The pairing key, and the name its answers are computed for.
    private let key: PairingKey?
    private let padName: String
    /// On the current connection: challenged, welcomed.
    private var challenged = false
    private var welcomed = false
    private var toldNoKey = false
    /// Connections the brain refused in a row (reset by a welcome).
    public private(set) var refusalsInARow = 0
    private var refusedThisConnection = false

    /// Creates a link that retries after 50 ms, 100 ms, ... up to 1 s, so a brain that comes
    /// back is found again within about a second. With `key`, it answers challenges for `padName`.
    public init(initialBackoffMicros: Int64 = 50_000, maxBackoffMicros: Int64 = 1_000_000,
                key: PairingKey? = nil, padName: String = "") {
        self.key = key
        self.padName = padName
        precondition(initialBackoffMicros > 0 && maxBackoffMicros >= initialBackoffMicros,
                     "backoff must be positive and its cap at least the first wait")
        self.initialBackoffMicros = initialBackoffMicros
        self.maxBackoffMicros = maxBackoffMicros
    }

    /// Starts the link.
    public mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        state = .connecting(attempt: 0)
        return [.connect]
    }

    /// The connection opened.
    public mutating func connectSucceeded() -> [Action] {
        guard case .connecting = state else { return [] }
        state = .connected
        challenged = false
        welcomed = false
        refusedThisConnection = false
        if everConnected { reconnects += 1 }
        everConnected = true
        return [.sayHelloAndStartPinging]
    }

    /// The connection could not be opened (or no brain was found).
    public mutating func connectFailed() -> [Action] {
        guard case .connecting(let attempt) = state else { return [] }
        state = .waiting(attempt: attempt + 1)
        return [.retry(afterMicros: backoff(attempt: attempt))]
    }

    /// An open connection closed or failed.
    public mutating func connectionLost() -> [Action] {
        guard state == .connected else { return [] }
        droppedSinceConnected = 0
        if refusedThisConnection {
            // Refused: the brain is there but will not take this pad; back off as for failures.
            state = .waiting(attempt: refusalsInARow)
            return [.stopPinging, .retry(afterMicros: backoff(attempt: refusalsInARow - 1))]
        }
        state = .waiting(attempt: 1)  // the first wait is spent; a failure then waits twice as long
        return [.stopPinging, .retry(afterMicros: initialBackoffMicros)]
    }

    /// The brain sent `/drum/challenge`: answer it with the key, or report and close without one.
    public mutating func challengeReceived(nonce: [UInt8]) -> [Action] {
        guard state == .connected, !challenged, !welcomed else { return [] }
        challenged = true
        guard let key else {
            refused()
            return [.report(.brainNeedsKey), .close]
        }
        return [.send(.auth(hmac: key.answer(nonce: nonce, padName: padName)))]
    }

    /// The brain sent `/drum/welcome`: hits may flow; a keyed pad not challenged says so once.
    public mutating func welcomeReceived() -> [Action] {
        guard state == .connected else { return [] }
        welcomed = true
        refusalsInARow = 0
        guard key != nil, !challenged, !toldNoKey else { return [] }
        toldNoKey = true
        return [.report(.brainAsksNoKey)]
    }

    /// The brain sent `/drum/error`; before a welcome that is a refusal (such as a wrong key).
    public mutating func errorReceived() {
        guard state == .connected, !welcomed else { return }
        refused()
    }

    private mutating func refused() {
        guard !refusedThisConnection else { return }
        refusedThisConnection = true
        refusalsInARow += 1
    }

    /// A retry's wait is over.
    public mutating func retryDue() -> [Action] {
        guard case .waiting(let attempt) = state else { return [] }
        state = .connecting(attempt: attempt)
        return [.connect]
    }

    /// Stops for good.
    public mutating func stop() -> [Action] {
        guard state != .stopped else { return [] }
        let wasConnected = state == .connected
        state = .stopped
        return wasConnected ? [.stopPinging, .close] : [.close]
    }

    /// A hit was detected: true when it can be sent now, false when it is dropped (and counted).
    public mutating func hitProduced() -> Bool {
        if state == .connected && (key == nil || welcomed) { return true }
        droppedHits += 1
        droppedSinceConnected += 1
        return false
    }

    /// Resets the count reported when the link comes back.
    public mutating func reportedDrops() {
        droppedSinceConnected = 0
    }

    /// The wait after `attempt` consecutive failures.
    public func backoff(attempt: Int) -> Int64 {
        var wait = initialBackoffMicros
        for _ in 0..<min(attempt, 40) where wait < maxBackoffMicros { wait *= 2 }
        return min(wait, maxBackoffMicros)
    }
}

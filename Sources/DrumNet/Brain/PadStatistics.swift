/// What the brain knows about one connected pad, for the terminal and for measurements.
public struct PadStatistics: Sendable, Equatable {
    /// The connection's number, unique while the brain runs.
    public var connectionID: Int
    /// The peer's address, such as `127.0.0.1:50123`.
    public var address: String
    /// The name the pad gave in `/drum/hello`, if it said hello.
    public var padName: String?
    /// The drum the pad said it plays, if it said hello.
    public var drum: String?
    /// The pad's sensor rate in Hz, if its hello said (protocol 2).
    public var rateHz: Float?
    /// The protocol version its hello said.
    public var version: Int32?
    /// Hits received.
    public var hits = 0
    /// Pushes the pad felt through its stand and sent to learn from (`/drum/felt`; never played).
    public var felt = 0
    /// Hits dropped because the connection sent more than its limit per second (and not played).
    public var droppedHits = 0
    /// Felt pushes dropped the same way (hits and felt pushes share the limit).
    public var droppedFelt = 0
    /// Hits missing according to the sequence numbers (a jump from 4 to 7 counts 2).
    public var sequenceGaps = 0
    /// Messages with addresses the brain does not know (ignored).
    public var unknownMessages = 0
    /// Malformed input (the connection is closed after one).
    public var errors = 0
    /// Hit times and clock offsets refused as implausible (beyond the latency limit either way);
    /// the hits still played, untimed.
    public var refusedTimes = 0
    /// The round trip the pad last reported, in µs.
    public var roundTripMicros: Int64?
    /// The brain's clock minus the pad's, as the pad last reported it, in µs.
    public var clockOffsetMicros: Int64?
    /// Recent hit latencies (receive time minus the pad's time corrected by the offset), µs.
    public var latencyMicros = LatencyWindow()

    /// Creates statistics for a new connection.
    public init(connectionID: Int, address: String) {
        self.connectionID = connectionID
        self.address = address
    }

    /// These statistics with an empty latency window. A copy that keeps the window shares its
    /// storage with the live one, so while it lives, the network thread's next hit on that pad
    /// copies the whole window (8 KiB, an allocation) before adding to it; a copy without it
    /// shares nothing that a hit writes.
    public func withoutLatencies() -> PadStatistics {
        var copy = self
        copy.latencyMicros = LatencyWindow()
        return copy
    }
}

/// The most recent latencies (up to `capacity`), with percentiles over them.
public struct LatencyWindow: Sendable, Equatable {
    /// How many recent values are kept.
    public static let capacity = 1024
    private var values: [Int64] = []
    private var next = 0
    /// Values ever added.
    public private(set) var count = 0

    /// Creates an empty window.
    public init() {}

    /// Adds one latency.
    public mutating func add(_ micros: Int64) {
        // Room for the whole window at once, so the brain's hot path never grows the array.
        if values.isEmpty { values.reserveCapacity(Self.capacity) }
        if values.count < Self.capacity {
            values.append(micros)
        } else {
            values[next] = micros
        }
        next = (next + 1) % Self.capacity
        count += 1
    }

    /// The `p` quantile (0...1) of the recent values, by the nearest-rank method.
    public func percentile(_ p: Double) -> Int64? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count - 1, max(0, rank - 1))]
    }
}

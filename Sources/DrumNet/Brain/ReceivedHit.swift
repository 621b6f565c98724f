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
    /// The brain's connections set it only within `BrainConnection.Limits.maxLatencyMicros`.
    public var latencyMicros: Int64?

    /// The pad's sensor rate in Hz, if its hello said (protocol 2).
    public var rateHz: Float?

    /// Creates a received hit.
    public init(hit: DrumHit, connectionID: Int, padName: String?, receivedMicros: Int64, latencyMicros: Int64?,
                rateHz: Float? = nil) {
        self.rateHz = rateHz
        self.hit = hit
        self.connectionID = connectionID
        self.padName = padName
        self.receivedMicros = receivedMicros
        self.latencyMicros = latencyMicros
    }

    /// When the hit was struck, on the brain's clock (receipt minus latency), when the latency is
    /// known; nil too if a latency from elsewhere would take it past the clock's range.
    public var strikeMicros: Int64? {
        guard let latencyMicros else { return nil }
        let (strike, overflow) = receivedMicros.subtractingReportingOverflow(latencyMicros)
        return overflow ? nil : strike
    }
}

/// A pad's hello as the brain received it: the pad is known from here on, before its first hit.
public struct PadHello: Sendable, Equatable {
    /// The connection it came on.
    public var connectionID: Int
    /// The pad's name.
    public var padName: String
    /// The pad's sensor rate in Hz, if its hello said (protocol 2).
    public var rateHz: Float?
    /// The protocol version its hello said: from 2 on, its hits carry their strength.
    public var version: Int32
    /// Brain monotonic clock at receipt, µs.
    public var receivedMicros: Int64

    /// Creates a received hello.
    public init(connectionID: Int, padName: String, rateHz: Float?, version: Int32, receivedMicros: Int64) {
        self.connectionID = connectionID
        self.padName = padName
        self.rateHz = rateHz
        self.version = version
        self.receivedMicros = receivedMicros
    }
}

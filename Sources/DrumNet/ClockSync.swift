/// NTP-style estimate of another clock's offset from ping/pong round trips.
///
/// A ping leaves at local time t1; the peer stamps its own clock t2 into the pong; the pong
/// arrives at local time t4. Assuming the two legs take equally long, the peer's clock reads
/// `t2 − (t1 + t4) / 2` ahead of ours. Of the last `window` round trips the one with the
/// shortest round trip is used: queueing only ever adds delay, so the fastest is the most honest.
///
/// Thread safety: a value type.
public struct ClockSync: Sendable {
    struct Sample: Sendable {
        var offsetMicros: Int64
        var roundTripMicros: Int64
    }

    private var samples: [Sample] = []
    private var next = 0
    /// How many recent round trips are kept.
    public let window: Int

    /// Creates an estimator over the last `window` round trips.
    public init(window: Int = 8) {
        precondition(window > 0, "the window must hold at least one round trip")
        self.window = window
    }

    /// Adds a round trip: sent at local `sentMicros`, peer clock `peerMicros`, received at local
    /// `receivedMicros`. A round trip that ends before it began is ignored.
    public mutating func add(sentMicros: Int64, peerMicros: Int64, receivedMicros: Int64) {
        let roundTrip = receivedMicros - sentMicros
        guard roundTrip >= 0 else { return }
        let sample = Sample(offsetMicros: peerMicros - (sentMicros + receivedMicros) / 2,
                            roundTripMicros: roundTrip)
        if samples.count < window {
            samples.append(sample)
        } else {
            samples[next] = sample
        }
        next = (next + 1) % window
    }

    /// The peer's clock minus ours, in µs, from the fastest recent round trip.
    public var offsetMicros: Int64? { best?.offsetMicros }

    /// The fastest recent round trip, in µs.
    public var roundTripMicros: Int64? { best?.roundTripMicros }

    private var best: Sample? { samples.min { $0.roundTripMicros < $1.roundTripMicros } }
}

/// Measures a sensor's sample rate from the times of its first samples: the median interval of
/// the first `intervals` (robust to a burst or a dropped sample), once, then stays quiet.
///
/// Thread safety: a value type. Real-time safety: fixed storage after `init`.
public struct SampleRateMeter: Sendable {
    /// Intervals measured before the rate is given.
    public let intervals: Int
    private var last: Double?
    private var seen: [Double] = []
    private var done = false

    /// A meter that gives the rate after `intervals` intervals between samples.
    public init(intervals: Int = 64) {
        precondition(intervals > 0, "a rate needs at least one interval")
        self.intervals = intervals
        seen.reserveCapacity(intervals)
    }

    /// Takes a sample at `time` seconds; returns the rate in Hz once, when enough intervals are
    /// in (nil before and after, and for samples whose times do not move).
    public mutating func add(time: Double) -> Double? {
        guard !done else { return nil }
        defer { last = time }
        guard let last, time > last, (time - last).isFinite else { return nil }
        seen.append(time - last)
        guard seen.count >= intervals else { return nil }
        done = true
        seen.sort()
        let median = seen[seen.count / 2]
        // Sensors that deliver in bursts give intervals near 0 inside a burst: a median under a
        // tenth of the mean is a burst's, and the mean is then the rate.
        let mean = seen.reduce(0, +) / Double(seen.count)
        let interval = median < mean / 10 ? mean : median
        return interval > 0 ? 1 / interval : nil
    }
}

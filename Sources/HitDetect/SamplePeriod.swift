/// A sensor's sample period, as the adaptive detector steps by it: learned from the samples'
/// times, and each interval between two samples read as a whole number of periods.
///
/// A sensor samples on its own clock, at one rate. The times a pad is given for its samples may
/// jitter around that clock (a phone streaming over a network, stamped as the packets arrive;
/// samples stamped at each interrupt), and a sample lost leaves an interval of two periods or
/// more. The detector's filters, its rate rules (which rules judge at 100 Hz and which at
/// 1.6 kHz) and its onset's place in its sample period all take an interval; taken as each pair
/// of timestamps' difference they followed the jitter: 250 Hz stands whose times jittered by
/// 0.6 ms (sd, 0.15 of a period) missed 22 strokes where they missed 1, and their velocity
/// ranks fell from 0.93 to 0.86 (docs/crosstalk.md, "Timestamps that jitter").
///
/// How:
/// - **Seeded** by the median of the first `seedIntervals` intervals (robust to a lost sample or
///   a jittered time among them); until then each interval is taken as it is, as before.
/// - **Each interval** is read as n periods and given to the detector as n × the period: one
///   period under `lostFrom` (1.75) periods, two from there to 2.75, and so on. The jitter is
///   gone, and a lost sample still counts as the time it took. (Rounded at 1.5, a late time
///   followed by an early one, up to 1.9 periods apart where the jitter reaches 0.45 of one, was
///   counted as two; the period came out short, and more intervals rounded up: 9 % short at
///   a jitter of sd 0.2 period.)
/// - **The period** is the time since an anchor sample over the periods counted since it: the
///   mean interval over the last 256–512 periods (a new anchor is set every 256, and the older
///   one dropped at 512), which no single late time moves, which follows a sensor's clock that
///   runs off its nominal rate, and which on a sensor that does not jitter is its interval (to
///   within rounding). A time gone back starts the anchor again there; a mean under half the
///   period or over twice it seeds the period again (the sensor's rate changed).
/// - **Seeded again** after `reseedRun` intervals in a row counted as two periods or more (not
///   samples lost: a run of losses is one long interval, but a sensor slowed to about half its
///   rate or less), or of under half a period (sped up to more than twice), or when the mean
///   leaves half to twice the period (a speed-up whose jittered intervals seldom run under half
///   a period eight times in a row).
/// - A time repeated, or gone back, is read as one period and not counted. A sensor whose host
///   stamps each batch of samples with one time is not handled: only the intervals between
///   batches are counted, so the period learned is the batch's (four samples a time: a 100 Hz
///   sensor filtered as a 25 Hz one), and its hits are dated by those times
///   (docs/crosstalk-notebook-2.md, "Timestamps that jitter").
/// - An interval from 1.75 periods counts as two, so at this jitter about a fifth of lost
///   samples, their interval shortened by the times around them, count as one period.
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct SamplePeriod: Sendable {
    /// Intervals whose median seeds the period.
    static let seedIntervals = 7
    /// Periods counted since the anchor before its mean is the period.
    static let leastSpan = 16
    /// Periods after which a new anchor is set; the older is dropped at twice as many.
    static let anchorSpan = 256
    /// Intervals in a row counted as two periods or more, or under half a period, that seed the
    /// period again.
    static let reseedRun = 8
    /// Intervals from this many periods count as two (a sample lost), and so on up.
    static let lostFrom = 1.75

    /// The period, s; 0 until seeded.
    private(set) var period = 0.0
    private var seeds = SIMD8<Double>(repeating: 0)
    private var seedCount = 0
    private var longRun = 0
    private var shortRun = 0
    private var lastStamp = 0.0
    /// The anchor the period is measured from, and the one that will replace it (its time, and
    /// the periods counted since; a count below 0: not set).
    private var anchor = (time: 0.0, periods: 0)
    private var nextAnchor = (time: 0.0, periods: -1)

    /// Starts again at a sample given `stamp` (the first, or the first after a gap); the
    /// period learned is kept.
    mutating func start(at stamp: Double) {
        lastStamp = stamp
        longRun = 0
        shortRun = 0
        if period > 0 { restartAnchor(at: stamp) }
    }

    /// One period: the learned one, or `dt` (the step just taken) until it is learned.
    func oneInterval(_ dt: Double) -> Double { period > 0 ? period : dt }

    /// The interval to step by, s, for the next sample, given `stamp`.
    mutating func advance(to stamp: Double) -> Double {
        let interval = stamp - lastStamp
        lastStamp = stamp
        guard period > 0 else {
            if interval > 0, interval.isFinite {
                seeds[seedCount] = interval
                seedCount += 1
                if seedCount == Self.seedIntervals { seeded(median(), at: stamp) }
            }
            return max(interval, 1e-6)
        }
        guard interval > 0, interval.isFinite else {
            // A time gone back (or repeated): a period on; the anchor starts again here, so that
            // no later time is measured from a time it may fall next to.
            if interval < 0 { restartAnchor(at: stamp) }
            return period
        }
        // A lost sample only from 1.75 periods: a late time followed by an early one spans up
        // to 1.9 periods where the jitter reaches 0.45 of one, and counted as two it would
        // shorten the period, and more intervals would round up.
        let periods = max(1, (interval / period + (2 - Self.lostFrom)).rounded(.down))
        let step = periods * period
        longRun = periods >= 2 ? longRun + 1 : 0
        shortRun = interval < 0.5 * period ? shortRun + 1 : 0
        if longRun >= Self.reseedRun || shortRun >= Self.reseedRun {
            // The sensor slowed down or sped up: learn its period again, from this interval on.
            return reseed(interval)
        }
        // At most 10^9 periods counted at once (a week of samples at 1.6 kHz).
        let counted = periods < 1e9 ? Int(periods) : 1_000_000_000
        anchor.periods += counted
        if nextAnchor.periods >= 0 { nextAnchor.periods += counted }
        if anchor.periods >= Self.leastSpan {
            let mean = (stamp - anchor.time) / Double(anchor.periods)
            // Out of half to twice the period: the rate changed (times gone back start the
            // anchor again above).
            guard mean >= 0.5 * period, mean <= 2 * period else { return reseed(interval) }
            period = mean
        }
        if anchor.periods >= Self.anchorSpan, nextAnchor.periods < 0 { nextAnchor = (stamp, 0) }
        if anchor.periods >= 2 * Self.anchorSpan { anchor = nextAnchor; nextAnchor = (0, -1) }
        return step
    }

    private mutating func reseed(_ interval: Double) -> Double {
        period = 0
        seeds[0] = interval
        seedCount = 1
        return interval
    }

    private mutating func restartAnchor(at stamp: Double) {
        anchor = (stamp, 0)
        nextAnchor = (0, -1)
    }

    private mutating func seeded(_ median: Double, at stamp: Double) {
        period = median
        seedCount = 0
        longRun = 0
        shortRun = 0
        restartAnchor(at: stamp)
    }

    /// The median of the seeds (an odd count): the one with as many under it as over it.
    private func median() -> Double {
        let count = Self.seedIntervals
        for i in 0..<count {
            var below = 0
            var equal = 0
            for j in 0..<count {
                if seeds[j] < seeds[i] { below += 1 } else if seeds[j] == seeds[i] { equal += 1 }
            }
            if below <= count / 2, below + equal > count / 2 { return seeds[i] }
        }
        return seeds[0]
    }
}

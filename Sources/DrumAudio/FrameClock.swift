import Monotonic

/// The audio clock: which output frame a monotonic time maps to, for a device that paces the
/// render loop (a blocking ALSA write) or for the clock-paced outputs.
///
/// Each period, the render loop reports when it began and how many frames it had rendered;
/// `now − rendered / rate` is then an estimate of the moment frame 0 was rendered (the origin).
/// A late wake-up only ever adds to it, so the least of the last `window` estimates is the
/// truest (the lower envelope). That envelope still wanders by a millisecond or two over
/// seconds: a sound server hands out room in its own blocks, whose phase against the periods
/// drifts (ALSA's pulse plugin on a null sink: 2.3 ms peak to peak over 16 s measured). So the
/// origin in use is slewed towards the envelope, as NTP slews a clock: at most `slewPPM` of
/// the elapsed time per period, enough to follow a sound card's crystal (±100 ppm is typical)
/// while the wander averages out. A jump of the envelope earlier by more than `stepMicros` is
/// taken at once, and the envelope then followed directly for a window's worth of periods, as
/// after `reset()` (an underrun). A jump later (the device stood still without an underrun, as
/// a stalled sound server does) shows in the envelope only once the earlier periods have left
/// the window, and is taken only if it lasts another window: 128 periods, 2.7 s at 1024 frames.
/// Through ALSA's pulse plugin the envelope also rises by 5-8 ms for a second or two while the
/// sound goes on unmoved (the server fell behind and caught up), and eight periods in a row
/// more than 4 ms late happen every few seconds; taking either as a move put hits 5-13 ms early
/// (measured).
///
/// **The device's rate.** A device's frames do not run at exactly `rate` per second of the
/// monotonic clock: a sound card's crystal is off by up to ±100 ppm, and PulseAudio's null sink
/// fed through ALSA's pulse plugin in 128-frame periods took 625-657 ppm more frames a second
/// (measured with `DRUMBRAIN_CLOCK_TRACE` and `tools/bench/jitter`). The origin then drifts by
/// that much, more than the slew can follow: hits placed by it drifted 370 ppm against their
/// strikes and stepped by 4 ms every 10-15 s. So the clock also fits a line through the
/// envelope's block minima (one per `window` periods, the last `blocks` of them, refitted
/// without those more than `outlierMicros` above the line: a sound server that fell behind),
/// and the origin in use moves along the line's slope each period and slews only the
/// remaining difference, towards the line rather than the envelope: a phase averaged over
/// the blocks, so the wander does not reach the hits. A step or `reset()` starts the fit anew.
///
/// Real-time safety: `update` neither allocates nor locks; the window and the blocks are
/// allocated once, and the fit runs once per block over at most `blocks` points.
public final class FrameClock {
    /// Periods in the envelope's window.
    public let window: Int
    /// The most the origin in use moves per period while slewing, µs.
    public let slewMicrosPerPeriod: Int64
    /// A difference between envelope and origin beyond this is stepped, not slewed, µs.
    public let stepMicros: Int64
    private let rate: Int64
    private let estimates: UnsafeMutablePointer<Int64>
    private var count = 0
    /// Periods left in which the envelope is followed directly (after a step).
    private var direct = 0
    /// Periods in a row the envelope has been more than a step later than the origin.
    private var later = 0
    /// The origin in use, µs (meaningful once `update` has run).
    public private(set) var originMicros: Int64 = 0
    /// Block minima kept for the fit.
    public let blocks: Int
    /// Block minima this far above the first fit are left out of the second, µs.
    public let outlierMicros: Double = 1_000
    /// Block minima needed before the line is used.
    static let fitAfter = 8
    /// The steepest line taken, in µs per µs (2,000 ppm): anything steeper is not a clock.
    static let steepest = 0.002
    private let blockTimes: UnsafeMutablePointer<Double>
    private let blockMinima: UnsafeMutablePointer<Double>
    private var blockCount = 0
    private var blockLeast = Int64.max
    private var blockLeastAt: Int64 = 0
    private var inBlock = 0
    /// The fitted line: origin = lineAt + lineSlope × (t − lineFrom), when fitted.
    private var lineFitted = false
    private var lineFrom = 0.0, lineAt = 0.0
    /// The origin's drift against the monotonic clock, µs per µs (the device's rate error,
    /// negated); 0 until fitted.
    public private(set) var slope = 0.0
    private var lastMicros: Int64 = 0
    /// Where the origin in use is, finer than a µs (it moves by the slope each period).
    private var originExact = 0.0

    /// A clock for `rate` frames a second in periods of `periodFrames`.
    public init(rate: Int, periodFrames: Int, window: Int = 64, slewPPM: Int64 = 200, stepMicros: Int64 = 4_000,
                blocks: Int = 128) {
        precondition(rate > 0 && periodFrames > 0 && window > 0 && blocks >= Self.fitAfter)
        self.rate = Int64(rate)
        self.window = window
        self.blocks = blocks
        blockTimes = .allocate(capacity: blocks)
        blockTimes.initialize(repeating: 0, count: blocks)
        blockMinima = .allocate(capacity: blocks)
        blockMinima.initialize(repeating: 0, count: blocks)
        self.stepMicros = stepMicros
        let periodMicros = Int64(periodFrames) * 1_000_000 / Int64(rate)
        slewMicrosPerPeriod = max(1, periodMicros * slewPPM / 1_000_000)
        estimates = .allocate(capacity: window)
        estimates.initialize(repeating: 0, count: window)
    }

    deinit {
        estimates.deallocate()
        blockTimes.deallocate()
        blockMinima.deallocate()
    }

    /// Takes a period that began at `nowMicros` with `renderedFrames` already rendered, and
    /// returns the origin to use: the monotonic µs at which frame 0 was (notionally) rendered.
    @discardableResult
    public func update(nowMicros: Int64, renderedFrames: Int64) -> Int64 {
        let estimate = nowMicros - renderedFrames * 1_000_000 / rate
        estimates[count % window] = estimate
        count += 1
        if count == 1 { forgetLine() }
        addToBlock(estimate, at: nowMicros)
        let elapsed = count > 1 && lastMicros > 0 ? Double(nowMicros - lastMicros) : 0
        lastMicros = nowMicros
        var envelope = Int64.max
        for i in 0..<min(count, window) where estimates[i] < envelope { envelope = estimates[i] }
        let difference = envelope - originMicros
        later = difference > stepMicros ? later + 1 : 0
        // Earlier by more than a step: take it. Later: only once it has lasted another window,
        // for a sound server that fell behind for a while and caught up again moved the
        // envelope and not the sound (measured through the pulse plugin: 5-8 ms for 1-2 s).
        let step = difference < -stepMicros || later > window
        if count <= window || direct > 0 || step {
            if count > window && step {
                direct = window
                forgetLine()
            }
            direct = max(0, direct - 1)
            originExact = Double(envelope)
        } else {
            // Along the line's slope, then the rest slewed: towards the line once fitted (its
            // phase averaged over the blocks), else towards the envelope.
            originExact += slope * elapsed
            let target = lineFitted ? lineAt + slope * (Double(nowMicros) - lineFrom) : Double(envelope)
            let slew = Double(slewMicrosPerPeriod)
            originExact += max(-slew, min(slew, target - originExact))
        }
        originMicros = Int64(originExact.rounded())
        return originMicros
    }

    /// Adds an estimate to the current block; at a block's end, keeps its least and refits.
    private func addToBlock(_ estimate: Int64, at micros: Int64) {
        if estimate < blockLeast {
            blockLeast = estimate
            blockLeastAt = micros
        }
        inBlock += 1
        guard inBlock >= window else { return }
        let slot = blockCount % blocks
        blockTimes[slot] = Double(blockLeastAt)
        blockMinima[slot] = Double(blockLeast)
        blockCount += 1
        inBlock = 0
        blockLeast = .max
        fit()
    }

    /// Least squares through the kept block minima, then again without those far above it.
    private func fit() {
        let n = min(blockCount, blocks)
        guard n >= Self.fitAfter else { return }
        let oldest = (blockCount - n) % blocks
        let from = blockTimes[oldest], level = blockMinima[oldest]
        guard var line = Self.leastSquares(times: blockTimes, values: blockMinima, count: n, from: from, level: level,
                                           below: nil)
        else { return }
        line = Self.leastSquares(times: blockTimes, values: blockMinima, count: n, from: from, level: level,
                                 below: (line, outlierMicros)) ?? line
        lineFrom = from
        lineAt = level + line.at
        slope = max(-Self.steepest, min(Self.steepest, line.slope))
        lineFitted = true
    }

    /// The line `level + at + slope × (t − from)` through the first `count` points, leaving out
    /// those more than `below.1` above the line `below.0` (also relative to `level`); nil with
    /// fewer than two points or no spread. Times and values are taken relative to `from` and
    /// `level`, so that the sums stay far from a Double's precision.
    private static func leastSquares(times: UnsafeMutablePointer<Double>, values: UnsafeMutablePointer<Double>,
                                     count: Int, from: Double, level: Double,
                                     below: ((at: Double, slope: Double), Double)?) -> (at: Double, slope: Double)? {
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for i in 0..<count {
            let x = times[i] - from, y = values[i] - level
            if let (line, margin) = below, y > line.at + line.slope * x + margin { continue }
            n += 1
            sx += x
            sy += y
            sxx += x * x
            sxy += x * y
        }
        let spread = n * sxx - sx * sx
        guard n >= 2, spread > 0 else { return nil }
        let slope = (n * sxy - sx * sy) / spread
        return ((sy - slope * sx) / n, slope)
    }

    /// Starts the fit anew (the device's position against the frames moved).
    private func forgetLine() {
        blockCount = 0
        inBlock = 0
        blockLeast = .max
        lineFitted = false
        slope = 0
    }

    /// Forgets the past: after an underrun the device's position against the frames moved, and
    /// the envelope is followed directly until the window is full again.
    public func reset() { count = 0 }

    /// The output frame rendered at monotonic time `micros`, by the origin in use.
    public func frame(atMicros micros: Int64) -> Int64 {
        Self.frame(atMicros: micros, originMicros: originMicros, rate: rate)
    }

    /// The output frame rendered at monotonic time `micros` for a clock whose origin is
    /// `originMicros`, at `rate` frames a second (for readers on other threads, which hold the
    /// origin in an atomic). Total: a time from outside that is out of any sane range gives a
    /// frame held at the ends of `Int64`, never a trap.
    @inline(__always)
    public static func frame(atMicros micros: Int64, originMicros: Int64, rate: Int64) -> Int64 {
        micros.saturatingSubtract(originMicros).saturatingMultiply(rate) / 1_000_000
    }
}

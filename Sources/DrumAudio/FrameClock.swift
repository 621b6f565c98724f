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
/// Real-time safety: `update` neither allocates nor locks; the window is allocated once.
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

    /// A clock for `rate` frames a second in periods of `periodFrames`.
    public init(rate: Int, periodFrames: Int, window: Int = 64, slewPPM: Int64 = 200, stepMicros: Int64 = 4_000) {
        precondition(rate > 0 && periodFrames > 0 && window > 0)
        self.rate = Int64(rate)
        self.window = window
        self.stepMicros = stepMicros
        let periodMicros = Int64(periodFrames) * 1_000_000 / Int64(rate)
        slewMicrosPerPeriod = max(1, periodMicros * slewPPM / 1_000_000)
        estimates = .allocate(capacity: window)
        estimates.initialize(repeating: 0, count: window)
    }

    deinit { estimates.deallocate() }

    /// Takes a period that began at `nowMicros` with `renderedFrames` already rendered, and
    /// returns the origin to use: the monotonic µs at which frame 0 was (notionally) rendered.
    @discardableResult
    public func update(nowMicros: Int64, renderedFrames: Int64) -> Int64 {
        estimates[count % window] = nowMicros - renderedFrames * 1_000_000 / rate
        count += 1
        var envelope = Int64.max
        for i in 0..<min(count, window) where estimates[i] < envelope { envelope = estimates[i] }
        let difference = envelope - originMicros
        later = difference > stepMicros ? later + 1 : 0
        // Earlier by more than a step: take it. Later: only once it has lasted another window,
        // for a sound server that fell behind for a while and caught up again moved the
        // envelope and not the sound (measured through the pulse plugin: 5-8 ms for 1-2 s).
        let step = difference < -stepMicros || later > window
        if count <= window || direct > 0 || step {
            if count > window && step { direct = window }
            direct = max(0, direct - 1)
            originMicros = envelope
        } else {
            originMicros += max(-slewMicrosPerPeriod, min(slewMicrosPerPeriod, difference))
        }
        return originMicros
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

#if canImport(Glibc)
import Glibc
#endif

/// A detector that needs no tuning across sensors of different rate, range and noise, after the
/// way trigger modules (Edrumulus, microDRUM) find drum strikes:
///
/// - **High-pass:** z minus a one-pole low-pass of itself (time constant `highPassMs`, 4 ms), so
///   gravity, tilt and handling (pushes of 60 ms and more) drop out; `a = |h|` is the size of the
///   shock.
/// - **Noise floor:** a slow running mean of `a` while idle; a strike starts when `a` passes
///   `noiseFactor` × that floor (and at least `minimumG`).
/// - **Scan:** from the onset for `scanMs`, and for at least `minimumScanSamples` sample
///   periods, the peak of `a` is collected, so velocity follows the true peak, not the first
///   sample over the threshold. Behind a sensor's own low-pass the shock's peak lands up to two
///   samples after its onset, so at 250 Hz the scan is 8 ms and at 1.6 kHz 4 ms.
///   (`minimumScanSamples` 0: at rates where a sample period is longer than the scan, the hit
///   is reported on the sample that crossed.)
/// - **Mask:** for `maskMs` after the start nothing can fire, so the ringing of the board after
///   a strike never fires again, at 100 Hz or at 1.6 kHz alike (time, not samples).
/// - **Re-arm:** after the mask a new strike must also pass `rearmFraction` × the last peak,
///   decaying with time constant `rearmDecayMs`: the tail of a loud strike cannot fire, but a
///   roll's next stroke can. The last peak is held through the mask: a sample of the ringing
///   higher than the decayed peak becomes the new reference, so a pad whose mount rings longer
///   than the mask (or a slow sensor that saw only the shock's flank) does not fire again.
///
/// The hit carries the index and time of the sample that crossed (the onset) and is returned on
/// the sample that ends the scan; `strength` is the peak |h| in g.
///
/// State diagram:
/// ```
///  priming ──first sample──▶ idle ──a over thresholds──▶ scanning ──scan over──▶ masked
///                              ▲                                                    │
///                              └───────────────────mask over────────────────────────┘
///  any state ──markGap──▶ priming
/// ```
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
public struct AdaptiveDetector: HitDetector, Sendable {
    /// The detector's settings; the defaults are meant to fit every common sensor.
    public struct Configuration: Equatable, Sendable {
        public var highPassMs = 4.0
        public var noiseFactor = 4.0
        public var minimumG = 0.14
        public var noiseFloorSeconds = 1.0
        public var scanMs = 4.0
        public var minimumScanSamples = 2
        public var maskMs = 45.0
        public var rearmFraction = 1.0
        public var rearmDecayMs = 35.0
        public var velocity = VelocityCurve(floor: 0.1, fullScale: 3.0)

        /// The defaults, with `velocity`.
        public init(velocity: VelocityCurve = VelocityCurve(floor: 0.1, fullScale: 3.0)) {
            self.velocity = velocity
        }
    }

    private enum State: Sendable {
        case priming
        case idle
        case scanning(index: Int, time: Double, peak: Double, threshold: Double, until: Double)
        case masked(until: Double)
    }

    public let configuration: Configuration
    public private(set) var sampleCount = 0
    private var state = State.priming
    private var highPass: HighPass
    private var noiseFloor = 0.0
    private var previousTime = 0.0
    private var lastPeak = 0.0
    private var lastPeakTime = -Double.infinity
    // The last few samples' |h| and times, newest first, to find where a strike began.
    private var recentA: (Double, Double, Double) = (0, 0, 0)
    private var recentTime: (Double, Double, Double) = (0, 0, 0)
    private var recentCount = 0

    /// A detector with `configuration`.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        highPass = HighPass(timeConstantMs: configuration.highPassMs)
    }

    public mutating func markGap() {
        state = .priming
        recentCount = 0
    }

    /// The noise floor now, in g of |h| (for calibration and tests).
    public var currentNoiseFloor: Double { noiseFloor }

    public mutating func process(z: Double, time: Double) -> Hit? {
        let index = sampleCount
        sampleCount += 1
        if case .priming = state {
            highPass.prime(z)
            previousTime = time
            state = .idle
            return nil
        }
        let c = configuration
        let dt = max(time - previousTime, 1e-6)
        previousTime = time
        let a = abs(highPass.filter(z, dt: dt))
        let threshold = max(c.minimumG, c.noiseFactor * noiseFloor)
        defer {
            recentA = (a, recentA.0, recentA.1)
            recentTime = (time, recentTime.0, recentTime.1)
            recentCount = min(recentCount + 1, 3)
        }
        switch state {
        case .priming:
            return nil
        case .masked(let until):
            // Hold the peak: ringing above the decayed last peak becomes the reference.
            if a > rearmLevel(at: time) {
                lastPeak = a
                lastPeakTime = time
            }
            guard time >= until else { return nil }
            state = .idle
            return idle(a: a, threshold: threshold, index: index, time: time, dt: dt)
        case .idle:
            return idle(a: a, threshold: threshold, index: index, time: time, dt: dt)
        case .scanning(let start, let startTime, let peak, let startThreshold, let until):
            let highest = max(peak, a)
            guard time >= until else {
                state = .scanning(index: start, time: startTime, peak: highest, threshold: startThreshold, until: until)
                return nil
            }
            return fire(index: start, time: startTime, peak: highest, threshold: startThreshold, now: time)
        }
    }

    private mutating func idle(a: Double, threshold: Double, index: Int, time: Double, dt: Double) -> Hit? {
        let c = configuration
        guard a > threshold && a > rearmLevel(at: time) * c.rearmFraction else {
            // Only quiet samples teach the floor, so strikes do not raise it.
            noiseFloor += (1 - exp(-dt / c.noiseFloorSeconds)) * (a - noiseFloor)
            return nil
        }
        // The strike began where |h| first rose clearly over the noise, up to 3 samples (and
        // 12 ms) before the one that crossed: a soft strike seen through the sensor's low-pass
        // crosses late.
        var onsetIndex = index, onsetTime = time, peak = a
        let rising = max(3 * noiseFloor, threshold * 0.3)
        for back in 0..<recentCount {
            let (earlierA, earlierTime) = back == 0 ? (recentA.0, recentTime.0)
                : back == 1 ? (recentA.1, recentTime.1) : (recentA.2, recentTime.2)
            guard earlierA > rising, time - earlierTime <= 0.012, earlierTime > lastPeakTime else { break }
            onsetIndex = index - back - 1
            onsetTime = earlierTime
            peak = max(peak, earlierA)
        }
        let until: Double
        if c.minimumScanSamples > 0 {
            // From the onset: scanMs, and at least minimumScanSamples periods (a hair under, so
            // jittered timestamps do not add a sample).
            until = onsetTime + max(c.scanMs / 1000, Double(c.minimumScanSamples) * dt * 0.999)
        } else if c.scanMs / 1000 < dt * 1.5 {
            // A scan shorter than the sample period would only delay the hit by a sample.
            until = time
        } else {
            until = time + c.scanMs / 1000
        }
        guard time < until else {
            return fire(index: onsetIndex, time: onsetTime, peak: peak, threshold: threshold, now: time)
        }
        state = .scanning(index: onsetIndex, time: onsetTime, peak: peak, threshold: threshold, until: until)
        return nil
    }

    /// The last peak, decayed to `time`.
    private func rearmLevel(at time: Double) -> Double {
        lastPeak * exp(-(time - lastPeakTime) * 1000 / configuration.rearmDecayMs)
    }

    private mutating func fire(index: Int, time: Double, peak: Double, threshold: Double, now: Double) -> Hit {
        let c = configuration
        lastPeak = peak
        lastPeakTime = now
        state = .masked(until: time + c.maskMs / 1000)
        return Hit(index: index, time: time, strength: peak,
                   velocity: c.velocity.velocity(amplitude: peak, thresholdAmplitude: threshold))
    }
}

/// z minus a one-pole low-pass of itself: what is left of a signal once gravity, tilt and slow
/// handling are taken out. The adaptive detector's first stage, shared with calibration so both
/// measure in the same units. Time-aware: `dt` may vary from sample to sample.
///
/// Thread safety: a value type. Real-time safety: arithmetic only.
public struct HighPass: Sendable {
    /// The low-pass' time constant in ms.
    public let timeConstantMs: Double
    private var lowPass = 0.0

    /// A filter with the low-pass time constant `timeConstantMs`.
    public init(timeConstantMs: Double) {
        self.timeConstantMs = timeConstantMs
    }

    /// Starts from `z` (after a gap, or at the first sample): nothing has changed yet.
    public mutating func prime(_ z: Double) {
        lowPass = z
    }

    /// The high-passed value of `z`, taken `dt` seconds after the previous sample.
    public mutating func filter(_ z: Double, dt: Double) -> Double {
        let h = z - lowPass
        lowPass += (1 - exp(-dt * 1000 / timeConstantMs)) * h
        return h
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A detector that needs no tuning across sensors of different rate, range and noise, as trigger
/// modules (Edrumulus, microDRUM) find drum strikes.
///
/// Why each test exists and what it measured: docs/detection.md, "The detectors", and its notebooks.
///
/// - **High-pass:** z minus a one-pole low-pass of itself (`highPassMs`, 4 ms), so gravity, tilt
///   and handling (pushes of 60 ms and more) drop out; |h| is the shock's size, start and decay.
/// - **Trigger:** `a = |h'|`, h high-passed once more the same way (`ShockFilter`): differenced
///   twice, walking's and handling's bounces of 100 ms shrink far more than a strike's shock of a
///   few ms, so ghost notes fire and a carried pad does not.
/// - **Noise floor:** a slow running mean of `a` (over `noiseFloorSeconds`, 1 s, or the time seen),
///   learned while idle and `quietMs` (100 ms) past the last peak, so a roll's ringing does not
///   raise it; a strike starts when `a` passes `noiseFactor` (4) × it and `minimumG` (0.11 g).
/// - **Scan:** from the onset for `scanMs` (4 ms), at least `minimumScanSamples` (2) periods and as
///   many past the sample that crossed (behind a sensor's low-pass a shock peaks up to two samples
///   late), it takes |h|'s peak (the re-arm's reference) and the hit's `strength`: z's furthest
///   swing from its level before the onset, in g, which sets velocity (at 100–250 Hz |h|'s peak
///   says more about where the samples fell). The hit carries the onset, found in |h| (a strike
///   leaves the level before |h'| rises), and is returned on the scan's last sample
///   (`minimumScanSamples` 0: on the sample that crossed, where a period outlasts the scan).
/// - **Mask:** for `maskMs` (45 ms; time, not samples) from where |h| rose without a break (at
///   170–500 Hz, in what a learned ringing leaves of |h|), even when the hit is dated earlier,
///   nothing fires: a board's ringing after a strike never fires again.
/// - **Rescan (`rescan`):** a step from one sample to the next steeper than any before (by three
///   noise floors), larger than the swing so far (under 500 Hz, `slowRescanFactor` (3) times it,
///   past a stroke's own swing back) and over a sample after the onset restarts the scan from the
///   sample before it, once, and dates the hit there: a scan begun on crosstalk may meet the pad's
///   own stroke 2–4 ms later. Where the ringing test judges (`ringingRescan`), so does the first
///   sample the ringing leaves `ringingShare` unexplained after samples it explained; the first
///   found wins. Under 500 Hz the ring hold judges against the level before that sample; strength
///   and sub-sample offset still count from the first onset (from the step, fresh phone stands lost
///   5 strokes more, idle phones played 14 hits more).
/// - **Break-through:** within the mask, a sample whose |h| passes `breakFactor` (4) × the last
///   hit's held peak (and the thresholds) starts a strike: ringing never rises above the strike
///   that rang it, but a flam's grace note on a neighbour fires the pad 15–40 ms before its own
///   strike. At 500 Hz and faster `fastBreakFactor` (2), the peak sampled closely; under 500 Hz
///   within the mask of a felt push, `feltBreakFactor` (2.5).
/// - **Bump test (500 Hz and faster):** a candidate under `pushMaximumG` (1.2 g) whose steepest
///   sample-to-sample step, less three noise floors (without them 2–6 idle bumps still fired), is
///   under `sharpness` (0.5) × its strength rose over many samples: a cymbal's 4–10 ms push, not a
///   stick's 1–3.5 ms shock. It does not fire and masks nothing; the re-arm holds its tail off.
///   From 1.2 g anything is a strike: a stick's 3 ms contact behind an 800 Hz low-pass rises as
///   smoothly (the independent 1.6 kHz stands' worst pads went 0.42–0.81 → 0.97–1.00 with that
///   ceiling, for an idle ride's hits 1 → 11). From `bumpSteepFromG` (1.08 g) only a much slower
///   rise is a push, a step under `bumpSteepShare` (0.25) of the strength: a ghost note read just
///   under 1.2 g steps a third to a half of it, a stand's bump (about 1 g at most) less.
/// - **Rebound test (under 500 Hz):** behind a 200–250 Hz sensor's low-pass a stick's shock shows
///   mostly as the mount's swing back, a push through the stand nearly whole. A candidate whose
///   swing from z's slow level (the four samples before it and its scan) went against `strikeSign`
///   by under `pushMaximumG` and its way by less than `rebound` (0.6) of that (under about 170 Hz,
///   whose low-pass blurs the swing back, `slowRebound`, 0.42) is a push: no hit, masked as one,
///   its re-arm decaying over `feltRearmDecayMs` (100 ms), handed on by `takeFelt` (`/drum/felt`);
///   every candidate is judged (`reboundFromRestOnly` off). Until a hit of `pushMaximumG` shows
///   which way strikes swing, one that swung one way only, either way (the other under
///   `oneWayShare`, 0.15), and rose over many samples as the bump test asks is one too; and
///   one under `untilLoudReboundMaximumG` (0.3 g) that swung the strike's way under
///   `reboundUntilLoud` (1.0; under about 170 Hz `slowReboundUntilLoud`, 0.65) of its swing the
///   other way, and from about 170 Hz one up to `untilLoudStrongerMaximumG` (0.5 g) under
///   `reboundUntilLoudStronger` (0.8) of it (`reboundPush`).
/// - **Lean test (under 500 Hz, given x and y):** a stick drives the pad the same way each time, a
///   stand its own way. Hits of 1.5 g and more teach that way (`StrikeWay`, at every rate) and
///   their stray; once eight have, a candidate under `pushMaximumG` off it by over `leanShare`
///   (0.15) of its part along it, or three strays, plus the noise, is felt (not where strikes stray
///   widely, or only z is given).
/// - **Felt ceiling (until the pad is shown played):** bumps that pass the tests above read no
///   stronger than those felt. After `FeltCeiling.feltNeeded` (1) push, a candidate under
///   `pushMaximumG` and no stronger than `FeltCeiling.firstMargin` (1) × it, from the second push
///   `feltMargin` (1.5) × the strongest, is felt too (from the first push: a bumped pad alone's
///   hits 284 → 250 over 120 stands, no stroke more or fewer on 290 played ones; the ceiling cost
///   three strikes of about 39,000 at 100–250 Hz, and found two). A hit of 1.2 g, or twice the strongest push, shows the pad played (one before the
///   first push is weighed once four are felt); under 500 Hz a proof by twice is withdrawn once a
///   later push would hold it (`feltProofWithdrawn`). Only pushes other tests turn away raise it
///   (at 500 Hz and faster the bump test's too; what it holds there masks nothing). It costs a
///   pad's first ghost notes, as weak as its pushes.
/// - **Re-arm:** after the mask a new strike's |h| must also pass `rearmFraction` (1) × the last
///   peak, decaying over `rearmDecayMs` (40 ms) and held through the mask (ringing above it becomes
///   the reference): a loud strike's tail cannot fire, a roll's next stroke can.
/// - **Slow echo (under about 170 Hz):** a candidate that would fire, with its onset in the mask of
///   the pad's last hit from rest and under `slowEchoShare` (0.7) of it, is that hit's ringing: no
///   hit, and mask and slow ring hold start again from it. At 100 Hz the mask can end four samples
///   after the crossing, where a hard-ringing mount still passes the re-arm.
/// - **Ring rise (500 Hz and faster):** after a hit the pad fired, |h| of `ringRiseG` (0.8 g) or
///   more and `ringRiseFactor` (2) × the largest |h| of the 15–20 ms ending four samples before
///   passes the re-arm: a ghost note a 16th after an accent rises over its ringing (a 30 ms re-arm
///   decay found more, 34 → 7, but refired on a mount decaying as fast).
/// - **Ringing at slow rates:** under about 170 Hz a candidate whose every sample from onset to
///   scan's end carries on the one before as the mount's ringing does, sign flipped
///   (|h[n] + 0.7 h[n−1]| under `ringingShare` (0.3) × its peak), is that ringing and does not fire
///   (phone logs' false hits 57 → 28 in grooves, 31 → 23 in rolls, none lost). Each pad learns its
///   own mount (`MountRinging`, `learnsRinging`: h[n] ≈ a1 h[n−1] + a2 h[n−2] over the quiet
///   15–80 ms after hits from rest, in windows its own fit explains, `selfFitShare`; judging once
///   three taught it), and two modes at once (`TwoModeRinging`, `learnsTwoModes`: from four
///   samples; the better counts). From about 170 to 500 Hz only these learned models judge.
/// - **Ring hold:** a candidate whose peak |h| is under `ringHold` (1.5) × the largest |h| before
///   its onset, decaying over `ringHoldMs` (30 ms), carries on a ringing already there (a
///   neighbour's strike rang the stand) and does not fire; at 500 Hz and faster too, after the bump
///   test (`fastRingHold`; a rescan judged from its first onset). Under about 170 Hz it holds what
///   the ringing test leaves unexplained, over `slowRingHoldMs` (60 ms), only `slowMaskHoldShare`
///   (0.3) of it within a fired hit's mask, a level per model (`RingHoldLevel`): a stand's sway. It
///   lets by a soft note in a loud fired hit's ringing: `ringHoldOwnG` (0.4 g) or more, at most
///   1 / `ringHoldOwnFactor` (3) of the re-arm's held peak, over ringing within the re-arm level,
///   and where the ringing test judges with `ringHoldOwnShock` (0.4) of its peak its own; at
///   500 Hz and faster only a steep one (`fastOwnRingingNeedsShock`: the bump test's measure at
///   any strength, since a long-ringing mount's swing outlasts the re-arm). From
///   about 170 to 500 Hz, once the pad has learned its ringing, it lets by a candidate of
///   `ringHoldOwnG` or more whose shock that ringing leaves unexplained at `ringHoldShockFactor`
///   (3) times what it left before the onset since the pad's last fired hit: a ghost note in its
///   own stroke's ringing.
///
/// State diagram:
/// ```
///  priming ──first sample──▶ idle ──a over thresholds──▶ scanning ──scan over, fires──▶ masked
///                             ▲ ▲                            │                             │
///                             │ └──scan over, the ringing────┘                             │
///                             └──────────────────────────mask over─────────────────────────┘
///  any state ──markGap──▶ priming
/// ```
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
public struct AdaptiveDetector: HitDetector, Sendable {
    // Its settings: AdaptiveDetector+Configuration.swift; its fixed numbers:
    // AdaptiveDetector+Constants.swift; its parts: ShockFilter, FeltCeiling,
    // MountRinging (with TwoModeRinging), RingHoldLevel, RingRiseWindow, Swing and Lean, each in
    // its own file.

    private enum State: Sendable {
        case priming
        case idle
        case scanning(index: Int, time: Double, peak: Double, threshold: Double, until: Double, base: Double, swing: Swing, around: Swing, maskFrom: Double,
                      unexplained: Double, step: Double, first: Double, lean: Lean, jumpAt: Double, jumpIndex: Int)
        case masked(until: Double)
    }

    public let configuration: Configuration
    public private(set) var sampleCount = 0
    private var state = State.priming
    private var shock: ShockFilter
    private var noiseFloor = 0.0
    private var noiseFloorLearned = 0.0  // seconds of quiet samples the floor has seen, up to noiseFloorSeconds
    private var period = SamplePeriod()
    private var lastPeak = 0.0
    private var lastPeakTime = -Double.infinity
    // The last few samples' |h| (not the trigger's |h'|) and times, newest first, to find where a
    // strike began.
    private var recentH: (Double, Double, Double) = (0, 0, 0)
    private var recentTime: (Double, Double, Double) = (0, 0, 0)
    // The time on the sensor's clock (the sum of the periods stepped since the first sample),
    // now and at the last four samples (the fourth the one primed on, where fewer have come
    // since): what the samples' own times say, less their jitter.
    private var sensorClock = 0.0
    private var sensorClocks: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var recentCount = 0
    // The last four samples' z, newest first: the level a strike is measured from.
    private var recentZ: (Double, Double, Double, Double) = (0, 0, 0, 0)
    // The last few samples' |h| that the ringing does not explain (|h + ringingCarry × h of the
    // sample before|, or what the learned `ringing` leaves), newest first.
    private var recentUnexplained: (Double, Double, Double) = (0, 0, 0)
    // z's slow level (time constant `levelSeconds`): where gravity reads, for `strikeSign`.
    private var level = 0.0
    // The loud hits' votes on the way a strike swings: `strikeSign`.
    private var strikeVotes = StrikeVotes()
    // Whether the pad has struck a hit of `pushMaximumG` or more (the rebound test's `oneWayShare`).
    private var struckLoud = false
    // The last push the rebound, lean or felt-ceiling test turned away, until `takeFelt`.
    private var felt: Hit?
    // Whether the last peak was a felt push's: the stand rings on for longer (`feltRearmDecayMs`).
    private var lastWasFelt = false
    // Whether the last peak was a hit the pad fired (not a push felt or turned away): the ring rise.
    private var lastWasFired = false
    // The last hit fired from rest, under about 170 Hz: its strength and when its mask ends (the
    // slow echo test, `Configuration.slowEchoShare`); nil after any other hit.
    private var lastFromRest: (strength: Double, maskEnd: Double)?
    // The ring rise's window (blocks of `ringRiseBlockMs`).
    private var riseWindow = RingRiseWindow()
    // x's and y's slow levels, as z's (`level`); nan until a sample gives them.
    private var crossLevel = (x: Double.nan, y: Double.nan)
    // The way this pad's own loud hits move it across all three axes (the lean test).
    private var strikeWay = StrikeWay()
    // The felt ceiling: until the pad is shown played, the pushes it has felt.
    private var ceiling = FeltCeiling()
    // The pad's own mount ringing, and h of the samples two, three and four before this one
    // (the ringing test).
    private var ringing = MountRinging()
    private var earlierH: (Double, Double, Double) = (0, 0, 0)
    // What the pad's one-mode ringing alone leaves unexplained of the last three samples' |h|,
    // newest first (`recentUnexplained` is what its ringing as best learned leaves), and the
    // largest of it over the candidate being scanned: the ring hold weighs both.
    private var recentOneModeUnexplained: (Double, Double, Double) = (0, 0, 0)
    private var scanOneModeUnexplained = 0.0
    // The ring hold's level: the largest |h| so far, decaying over `ringHoldMs` (under about
    // 170 Hz, what the ringing test leaves unexplained, over `slowRingHoldMs`); under about
    // 170 Hz also what the one-mode ringing alone leaves, held the same way. A fired hit's reset
    // leaves what they were before each sample: the onset never walks back past that hit's peak.
    private var ringLevel = RingHoldLevel()
    private var oneModeRingLevel = RingHoldLevel()
    // From about 170 to 500 Hz: what the ringing test leaves unexplained, held as `ringLevel`
    // and started again from each hit the pad fires (`ringHoldShockFactor`).
    private var unexplainedRingLevel = RingHoldLevel()
    // The ring hold's levels before the onset of the candidate being scanned (what `fire` weighs
    // it against).
    private var scanRing = 0.0
    private var scanOneModeRing = 0.0
    private var scanUnexplainedRing = 0.0

    /// A detector with `configuration`.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        shock = ShockFilter(timeConstantMs: configuration.highPassMs)
    }

    public mutating func markGap() {
        state = .priming
        recentCount = 0
        forgetTheLastHit()
    }

    /// After a gap, or where times went back: the times may start again from anywhere (a sensor
    /// unplugged and back has a new clock). A last peak dated later than the next samples would
    /// hold the re-arm level up for as long (exp of a negative age), and nothing would fire; the
    /// ring hold, which decays by the time between samples, would likewise outlast the ringing it
    /// held; and the quiet after the last hit no longer follows it.
    private mutating func forgetTheLastHit() {
        lastPeakTime = -.infinity
        lastPeak = 0
        lastWasFired = false
        lastFromRest = nil
        riseWindow.clear()
        ringLevel.clear()
        oneModeRingLevel.clear()
        unexplainedRingLevel.clear()
        ringing.abandon()
    }

    /// The noise floor now, in g of |h| (for calibration and tests).
    public var currentNoiseFloor: Double { noiseFloor }

    /// What this pad has learned of its mount's ringing (for tests).
    var mountRinging: MountRinging { ringing }

    public mutating func takeFelt() -> Hit? {
        defer { felt = nil }
        return felt
    }

    /// The way z swings as a stick's strike is seen at slow rates, +1 or −1 (the rebound test in
    /// the type's notes): what this pad's own loud hits showed, by a majority of the last ones;
    /// until they show it, the side gravity reads on z (a pad face up reads +1 g), or +1 where
    /// the sensor removed gravity (`StrikeVotes`). At the sample period learned so far, as the
    /// rebound test judges at each candidate's own sample step.
    public var strikeSign: Double {
        strikeVotes.sign(level: level, slow: period.period <= 0 || Self.isSlowRate(dt: period.period))
    }

    public mutating func process(z: Double, time: Double) -> Hit? {
        process(x: .nan, y: .nan, z: z, time: time)
    }

    /// As `process(z:time:)`, with the other two axes (the lean test in the type's notes; nan
    /// where a sensor gives only z).
    public mutating func process(x: Double, y: Double, z: Double, time: Double) -> Hit? {
        felt = nil
        let index = sampleCount
        sampleCount += 1
        if time < lastPeakTime { forgetTheLastHit() }  // times went back without a gap: as after one
        if case .priming = state {
            if sampleCount == 1 { level = z }
            if !crossLevel.x.isFinite || !crossLevel.y.isFinite { crossLevel = (x, y) }
            shock.prime(z)
            earlierH = (0, 0, 0)
            recentZ = (z, z, z, z)
            sensorClocks.0 = sensorClock
            period.start(at: time)
            state = .idle
            return nil
        }
        let c = configuration
        let dt = period.advance(to: time)
        sensorClock += dt
        let levelStep = min(dt / Self.levelSeconds, 1)
        level += levelStep * (z - level)
        crossLevel.x += levelStep * (x - crossLevel.x)
        crossLevel.y += levelStep * (y - crossLevel.y)
        if !crossLevel.x.isFinite || !crossLevel.y.isFinite { crossLevel = (x, y) }
        let lean = Lean(x: x - crossLevel.x, y: y - crossLevel.y, z: z - level)
        let previousH = shock.h  // the sample before's, signed
        let (departure, a) = shock.filter(z, dt: dt)
        let (twoBefore, threeBefore, fourBefore) = earlierH
        earlierH = (previousH, twoBefore, threeBefore)
        let modelJudges = ringingModelJudges(dt: dt)
        if modelJudges { ringing.observe(shock.h, previousH, twoBefore, threeBefore, fourBefore, time: time) }
        // What the ringing test leaves unexplained of |h|: by the pad's ringing as best learned
        // (one mode, or two at once), and by its one mode alone (the ring hold weighs both).
        let oneModeUnexplained = modelJudges ? ringing.unexplainedByOneMode(shock.h, previousH, twoBefore)
                                             : abs(shock.h + Self.ringingCarry * previousH)
        // (From about 170 to 500 Hz, where the fixed carry alone never judges, it still counts
        // beside a learned two-mode model until the one mode has learned: without it the
        // independent held-out Joy-Con stands' hits no strike explains went 190 -> 234.)
        let unexplained = modelJudges && c.learnsTwoModes
            ? ringing.unexplained(shock.h, previousH, twoBefore, threeBefore, fourBefore) : oneModeUnexplained
        let threshold = max(c.minimumG, c.noiseFactor * noiseFloor)
        defer {
            if ringHoldJudges(dt: dt) {
                // Under about 170 Hz it holds what the ringing test leaves unexplained (and what
                // the one-mode ringing alone leaves), and within the mask of a hit the pad fired
                // (from which it starts again) only a share of it (`slowRingHoldMs`,
                // `slowMaskHoldShare`).
                let slow = Self.isSlowRate(dt: dt)
                var share = 1.0
                if slow, lastWasFired, case .masked = state { share = c.slowMaskHoldShare }
                let decay = exp(-dt * 1000 / (slow ? c.slowRingHoldMs : c.ringHoldMs))
                ringLevel.hold(slow ? share * unexplained : departure, decay: decay)
                oneModeRingLevel.hold(slow ? share * oneModeUnexplained : departure, decay: decay)
                // Held on every step, so its levels before each sample stay in step with the
                // other two where a sample is dropped at 200-250 Hz (a slow step holds nothing).
                unexplainedRingLevel.hold(slow ? 0 : unexplained, decay: decay)
            }
            // The ring rise's window, kept at every rate (a sensor near 500 Hz has periods on
            // both sides of `fastRatePeriod`).
            riseWindow.add(time: time, threeBack: recentCount >= 3 ? recentH.2 : nil, blockSeconds: Self.ringRiseBlockMs / 1000)
            recentUnexplained = (unexplained, recentUnexplained.0, recentUnexplained.1)
            recentOneModeUnexplained = (oneModeUnexplained, recentOneModeUnexplained.0, recentOneModeUnexplained.1)
            recentH = (departure, recentH.0, recentH.1)
            recentTime = (time, recentTime.0, recentTime.1)
            sensorClocks = (sensorClock, sensorClocks.0, sensorClocks.1, sensorClocks.2)
            recentZ = (z, recentZ.0, recentZ.1, recentZ.2)
            recentCount = min(recentCount + 1, 3)
        }
        switch state {
        case .priming:
            return nil
        case .masked(let until):
            // A new strike far stronger than the last hit breaks through the mask: the ringing
            // never exceeds the strike that rang it.
            let breakFactor = dt <= Self.fastRatePeriod ? c.fastBreakFactor
                : c.breakFactor > 0 && lastWasFelt && c.feltBreakFactor > 0 ? c.feltBreakFactor : c.breakFactor
            if breakFactor > 0, a > threshold, departure > breakFactor * lastPeak {
                state = .idle
                return idle(a: a, departure: departure, unexplained: unexplained, oneModeUnexplained: oneModeUnexplained, z: z, lean: lean, threshold: threshold, index: index, time: time, dt: dt)
            }
            // Hold the peak: ringing above the decayed last peak becomes the reference.
            if departure > rearmLevel(at: time) {
                lastPeak = departure
                lastPeakTime = time
            }
            guard time >= until else { return nil }
            state = .idle
            return idle(a: a, departure: departure, unexplained: unexplained, oneModeUnexplained: oneModeUnexplained, z: z, lean: lean, threshold: threshold, index: index, time: time, dt: dt)
        case .idle:
            return idle(a: a, departure: departure, unexplained: unexplained, oneModeUnexplained: oneModeUnexplained, z: z, lean: lean, threshold: threshold, index: index, time: time, dt: dt)
        case .scanning(let start, let startTime, let peak, let startThreshold, let until, let base, let swing, let around, let maskFrom,
                       let unexplainedSoFar, let stepSoFar, let first, let leanSoFar, let jumpedAt, let jumpedIndex):
            let farthest = leanSoFar.including(lean)
            let highest = max(peak, departure)
            let widest = swing.including(z - base)
            let aroundWidest = around.including(z - level)
            let unexplainedPeak = max(unexplainedSoFar, unexplained)
            scanOneModeUnexplained = max(scanOneModeUnexplained, oneModeUnexplained)
            let stepNow = abs(z - recentZ.0)
            let steepest = max(stepSoFar, stepNow)
            // The first step steeper than all before it and larger than the whole swing so far
            // (under 500 Hz, `slowRescanFactor` times it), more than a sample after the onset: the
            // sample before it is where the stroke began (`jumpAt`: nan before any, infinity once
            // rescanned).
            let slowScan = dt > Self.fastRatePeriod
            let jumpFactor = slowScan ? c.slowRescanFactor : 1
            let jumps = c.rescan && jumpFactor > 0 && jumpedAt.isNaN && time - startTime > 1.5 * dt
                && stepNow - 3 * noiseFloor > stepSoFar && stepNow > jumpFactor * swing.deviation
            // Where the ringing test judges: the first sample the pad's ringing leaves
            // unexplained (`ringingRescan`), after a start it explained, is where the stroke began.
            let ringingJumps = c.rescan && c.ringingRescan && !jumps && jumpedAt.isNaN && time > startTime && unexplainedSoFar.isFinite
                && unexplainedSoFar < Self.ringingShare * peak && unexplained >= Self.ringingShare * max(peak, departure)
            let jumpAt = jumps ? recentTime.0 : ringingJumps ? time : jumpedAt
            let jumpIndex = jumps ? index - 1 : ringingJumps ? index : jumpedIndex
            // Under 500 Hz the ring hold judges the rescanned hit against its level before the
            // new onset (the sample before the step, or the sample the ringing left unexplained),
            // which the swing just scanned may have raised (once a jump is found, the first
            // candidate never fires).
            if slowScan, jumps || ringingJumps {
                scanRing = ringLevel.before(index - jumpIndex)
                scanOneModeRing = oneModeRingLevel.before(index - jumpIndex)
                scanUnexplainedRing = unexplainedRingLevel.before(index - jumpIndex)
            }
            guard time >= until else {
                state = .scanning(index: start, time: startTime, peak: highest, threshold: startThreshold, until: until,
                                  base: base, swing: widest, around: aroundWidest, maskFrom: maskFrom, unexplained: unexplainedPeak, step: steepest,
                                  first: first, lean: farthest, jumpAt: jumpAt, jumpIndex: jumpIndex)
                return nil
            }
            // The rescan: a stroke arriving behind a neighbour's crosstalk, scanned again from
            // where it began, dated and measured there (its hit comes up to `scanMs` later).
            if jumpAt.isFinite {
                state = .scanning(index: jumpIndex, time: jumpAt, peak: highest, threshold: startThreshold,
                                  until: max(jumpAt + c.scanMs / 1000, time + dt * 0.999), base: base, swing: widest,
                                  around: aroundWidest, maskFrom: jumpAt, unexplained: unexplainedPeak, step: steepest,
                                  first: first, lean: farthest, jumpAt: .infinity, jumpIndex: jumpIndex)
                return nil
            }
            return fire(index: start, time: startTime, peak: highest, swing: widest, around: aroundWidest, threshold: startThreshold, now: time,
                        dt: dt, maskFrom: maskFrom, unexplained: unexplainedPeak, step: steepest, first: first, lean: farthest)
        }
    }

    private mutating func idle(a: Double, departure: Double, unexplained: Double, oneModeUnexplained: Double, z: Double, lean: Lean, threshold: Double, index: Int,
                               time: Double, dt: Double) -> Hit? {
        let c = configuration
        guard a > threshold && (departure > rearmLevel(at: time) * c.rearmFraction || risesOverRinging(departure, dt: dt)) else {
            // Only quiet samples teach the floor, so strikes and their ringing do not raise it.
            if time - lastPeakTime > c.quietMs / 1000 {
                // Until it has seen noiseFloorSeconds of quiet, the floor averages over the time
                // it has, not towards its start at 0: otherwise a noisy sensor's first second
                // would fire.
                noiseFloorLearned = min(noiseFloorLearned + dt, c.noiseFloorSeconds)
                noiseFloor += (1 - exp(-dt / noiseFloorLearned)) * (a - noiseFloor)
            }
            return nil
        }
        let (earlier, onsetTime, maskFrom) = onset(time: time, dt: dt, rising: max(3 * noiseFloor, threshold * 0.3))
        var peak = departure
        for back in 0..<earlier { peak = max(peak, recentSample(back).h) }
        // At 500 Hz and faster the ringing test is off, and from about 170 Hz until the pad has
        // learned its mount's ringing: a strike always counts as unexplained.
        var unexplainedPeak = Self.isSlowRate(dt: dt) || learnedRingingJudges(dt: dt) ? unexplained : .infinity
        for back in 0..<earlier { unexplainedPeak = max(unexplainedPeak, Self.newestFirst(recentUnexplained, back)) }
        scanOneModeUnexplained = unexplainedPeak.isFinite ? oneModeUnexplained : .infinity
        for back in 0..<earlier { scanOneModeUnexplained = max(scanOneModeUnexplained, Self.newestFirst(recentOneModeUnexplained, back)) }
        let onsetIndex = index - earlier
        // The level before the strike (the sample before its onset), and how far z went from it
        // from the onset on: the strike's strength.
        let base = recentLevel(earlier)
        var swing = Swing().including(z - base)
        for back in 0..<earlier { swing = swing.including(recentLevel(back) - base) }
        // How far z went each way from its slow level, over the four samples before this one too:
        // a push that began before the onset is seen whole.
        var around = Swing().including(z - level)
        for back in 0...3 { around = around.including(recentLevel(back) - level) }
        // The steepest step from one sample to the next since the onset.
        var step = abs(z - recentLevel(0))
        for back in 0..<earlier { step = max(step, abs(recentLevel(back) - recentLevel(back + 1))) }
        // How far the onset's own sample had gone from the level: where in its period it began.
        let first = earlier == 0 ? abs(z - base) : abs(recentLevel(earlier - 1) - base)
        let until: Double
        if c.minimumScanSamples > 0 {
            // From the onset: scanMs, and at least minimumScanSamples periods (a hair under, so
            // jittered timestamps do not add a sample); and as many periods past the sample that
            // crossed, which is later than the onset when the strike crossed on its rise.
            let periods = Double(c.minimumScanSamples) * dt * 0.999
            until = max(onsetTime + max(c.scanMs / 1000, periods), time + periods)
        } else if c.scanMs / 1000 < dt * 1.5 {
            // A scan shorter than the sample period would only delay the hit by a sample.
            until = time
        } else {
            until = time + c.scanMs / 1000
        }
        scanRing = ringLevel.before(earlier)
        scanOneModeRing = oneModeRingLevel.before(earlier)
        scanUnexplainedRing = unexplainedRingLevel.before(earlier)
        guard time < until else {
            return fire(index: onsetIndex, time: onsetTime, peak: peak, swing: swing, around: around, threshold: threshold, now: time,
                        dt: dt, maskFrom: maskFrom, unexplained: unexplainedPeak, step: step, first: first, lean: lean)
        }
        state = .scanning(index: onsetIndex, time: onsetTime, peak: peak, threshold: threshold, until: until,
                          base: base, swing: swing, around: around, maskFrom: maskFrom, unexplained: unexplainedPeak, step: step,
                          first: first, lean: lean, jumpAt: .nan, jumpIndex: onsetIndex)
        return nil
    }

    /// Where the strike that crossed on the sample at `time` began: how many samples before that
    /// one (0 when it began there), and when; and when its mask starts. A soft strike seen
    /// through the sensor's low-pass crosses late, so its start is found among the samples
    /// before, but never at or before the last hit's peak (why, and what each rule measured:
    /// docs/detection.md, "Onset" and "Onset at slow rates"):
    /// - **The chain:** back, within `chainSeconds` (12 ms: 3 samples at 250 Hz, 2 at 200 Hz), as
    ///   long as each sample's |h| stayed over `rising`; the mask starts there. From about 170 to
    ///   500 Hz, once the pad has learned its mount's ringing (`MountRinging`, one mode or two),
    ///   what that ringing leaves of each sample's h must stay over `rising`, so a stroke in the
    ///   last one's ringing is not dated back into it.
    /// - **Where 12 ms holds fewer than two samples** (under ~170 Hz), the onset is the earlier of
    ///   the last two samples that had left the level of the sample before them (|h|, or z's
    ///   distance from that level, over `slowRateDeparture` (0.7) × `rising`), even if the other
    ///   had not: at 100 Hz the sample after a strike's first clear one can fall on a
    ///   zero-crossing of the mount's ringing. The mask still starts where the chain did (started
    ///   from the onset it cost the rolls: seed 19, 0.969 → 0.953).
    /// - **Three samples back, from rest** (under ~170 Hz): where each of the three samples
    ///   before the one that crossed had left z at the rest sample before them all by that much,
    ///   the rest sample lay at z's slow level, the four came one period apart, and the pad had
    ///   had no peak (no hit, felt push or held ringing of its own) for
    ///   `lateCrossingQuietSeconds` (100 ms) before the first of them, the onset is that first
    ///   one. A neighbour's crosstalk that stayed under the trigger is no peak: a stroke that
    ///   follows it within 30 ms may be dated from it.
    ///
    /// On the corpus's 100 Hz phone logs (tuning seeds 1–5 and 14–17) the slow-rate rules took the
    /// mean F1 from 0.958 to 0.973 (grooves), 0.952 to 0.973 (rolls), 0.940 to 0.958 (sparse) and
    /// 0.954 to 0.957 (crosstalk); the other profiles' hits did not change.
    private func onset(time: Double, dt: Double, rising: Double) -> (earlier: Int, time: Double, maskFrom: Double) {
        let chainSeconds = Self.chainSeconds, slowRateDeparture = 0.7
        var earlier = 0, onsetTime = time
        // From about 170 to 500 Hz, once the pad has learned its mount's ringing, the chain
        // walks back only over samples that ringing does not explain.
        let ringingExplains = !Self.isSlowRate(dt: dt) && learnedRingingJudges(dt: dt)
        while earlier < recentCount {
            let (h, sampleTime) = recentSample(earlier)
            let departed = ringingExplains ? min(h, Self.newestFirst(recentUnexplained, earlier)) : h
            guard departed > rising, time - sampleTime <= chainSeconds, sampleTime > lastPeakTime else { break }
            onsetTime = sampleTime
            earlier += 1
        }
        let chainTime = onsetTime
        if Self.isSlowRate(dt: dt), recentCount == 3 {
            let departed = slowRateDeparture * rising
            // The three samples before came one period apart on the sensor's clock (none lost).
            if sensorClock - sensorClocks.2 <= 3.05 * period.oneInterval(dt) {
                let before = recentLevel(2)  // z of the sample before the two (`level` is z's slow level)
                for back in 0..<2 {
                    let (h, sampleTime) = recentSample(back)
                    if back + 1 > earlier, sampleTime > lastPeakTime, h > departed || abs(recentLevel(back) - before) > departed {
                        earlier = back + 1
                        onsetTime = sampleTime
                    }
                }
            }
            // A strike from rest that crossed three samples after its first clear one: each of
            // the three departed from the rest sample before them all, which sat at z's slow
            // level, the four came one period apart, and the pad had been quiet for
            // `lateCrossingQuietSeconds` (so no ringing of its own is taken for the onset).
            let rest = recentLevel(3), firstTime = recentSample(2).time
            if earlier < 3, sensorClock - sensorClocks.3 <= 4.05 * period.oneInterval(dt),
               firstTime > lastPeakTime + Self.lateCrossingQuietSeconds, abs(rest - level) <= departed,
               (0...2).allSatisfy({ abs(recentLevel($0) - rest) > departed }) {
                earlier = 3
                onsetTime = firstTime
            }
        }
        return (earlier, onsetTime, chainTime)
    }

    /// |h| and time of the sample `back` + 1 before this one (`back` 0...2).
    private func recentSample(_ back: Int) -> (h: Double, time: Double) {
        switch back {
        case 0: (recentH.0, recentTime.0)
        case 1: (recentH.1, recentTime.1)
        default: (recentH.2, recentTime.2)
        }
    }

    /// The element `back` (0...2) of a newest-first triple of the last samples' values.
    private static func newestFirst(_ values: (Double, Double, Double), _ back: Int) -> Double {
        switch back {
        case 0: values.0
        case 1: values.1
        default: values.2
        }
    }

    /// Whether a candidate of peak |h| `peak`, whose peak of what the pad's learned ringing
    /// leaves unexplained is `unexplained`, is a shock of its own over that ringing, which the
    /// ring hold lets by (`ringHoldShockFactor`): from about 170 to 500 Hz, once the pad has
    /// learned its mount's ringing, at least `ringHoldOwnG` and that many times what the
    /// ringing left unexplained before the onset. Not a candidate the ringing did not judge
    /// (`unexplained` infinite: it began before the pad had learned).
    private func risesOverOwnRinging(peak: Double, unexplained: Double, dt: Double) -> Bool {
        let c = configuration
        return c.ringHoldShockFactor > 0 && c.ringHoldOwnG > 0 && !Self.isSlowRate(dt: dt)
            && learnedRingingJudges(dt: dt) && peak >= c.ringHoldOwnG && unexplained.isFinite
            && unexplained >= c.ringHoldShockFactor * scanUnexplainedRing
    }

    /// Whether the ring hold judges at a sample period of `dt`: on, under 500 Hz or with
    /// `fastRingHold` (under about 170 Hz only with `slowRingHoldMs`). Slow or not goes by this sample's step, as the
    /// other rate rules do, so at 200-250 Hz the step over a dropped sample is judged as a slow
    /// rate's: judged by the sensor's period instead, the independent Joy-Con and DualSense
    /// stands (seeds 1-6) missed 13 strokes more, with 5 hits more no strike explains and 10
    /// more on idle pads.
    private func ringHoldJudges(dt: Double) -> Bool {
        configuration.ringHold > 0 && (dt > Self.fastRatePeriod || configuration.fastRingHold)
            && (!Self.isSlowRate(dt: dt) || configuration.slowRingHoldMs > 0)
    }

    /// Whether the ringing test's learned model (`MountRinging`) learns and judges at a sample
    /// period of `dt`: on, and under 500 Hz (from about 170 Hz it judges only once learned).
    private func ringingModelJudges(dt: Double) -> Bool {
        configuration.learnsRinging && dt > Self.fastRatePeriod
    }

    /// Whether the learned model, not the fixed carry, judges at a sample period of `dt`: it
    /// judges there, and the pad has learned its mount's ringing, in one mode or (with
    /// `learnsTwoModes`) in two (a mount ringing in two modes is one the one-mode model refuses
    /// to learn from).
    private func learnedRingingJudges(dt: Double) -> Bool {
        ringingModelJudges(dt: dt) && (ringing.hasLearned || configuration.learnsTwoModes && ringing.twoModes.hasLearned)
    }

    /// Whether a candidate whose steepest step from one sample to the next was `step` rose over
    /// many samples for its `strength`, as a push does, not a stick's shock: that step, less
    /// three noise floors (noise adds steps to a weak push), under `sharpness` of the strength
    /// (the bump test, and the rebound test's `oneWayShare`).
    private func risesSlowly(step: Double, strength: Double) -> Bool {
        step - 3 * noiseFloor < configuration.sharpness * strength
    }

    /// z of the sample `back` + 1 before this one (`back` 0...3).
    private func recentLevel(_ back: Int) -> Double {
        switch back {
        case 0: recentZ.0
        case 1: recentZ.1
        case 2: recentZ.2
        default: recentZ.3
        }
    }

    /// Under about 170 Hz: the onset's chain holds fewer than two sample periods.
    private static func isSlowRate(dt: Double) -> Bool { 2 * dt > chainSeconds }

    /// The ring rise (500 Hz and faster): after a hit the pad fired, `departure` is at least
    /// `ringRiseG` and `ringRiseFactor` times the largest |h| of the window (15-20 ms, ending
    /// four samples before this one).
    private func risesOverRinging(_ departure: Double, dt: Double) -> Bool {
        let c = configuration
        guard c.ringRiseFactor > 0, dt <= Self.fastRatePeriod, lastWasFired, departure >= c.ringRiseG else { return false }
        return departure > c.ringRiseFactor * riseWindow.largest
    }

    /// The slow ring hold starts again (from a hit, or a swing taken for one: the slow echo test).
    private mutating func restartSlowRingHold() {
        ringLevel.restart()
        oneModeRingLevel.restart()
    }

    /// The last peak, decayed to `time`.
    private func rearmLevel(at time: Double) -> Double {
        lastPeak * exp(-(time - lastPeakTime) * 1000 / (lastWasFelt ? Self.feltRearmDecayMs : configuration.rearmDecayMs))
    }

    private mutating func fire(index: Int, time: Double, peak: Double, swing: Swing, around: Swing, threshold: Double,
                               now: Double, dt: Double, maskFrom: Double, unexplained: Double, step: Double,
                               first: Double, lean: Lean) -> Hit? {
        let c = configuration
        // The ring hold: the candidate rose no higher than the ringing already
        // there before its onset, so it carries that ringing on (under about 170 Hz, in what the
        // ringing test leaves unexplained: a stand's sway; there a candidate must rise over
        // both what the pad's ringing as best learned leaves and what its one mode alone
        // leaves, each against its own level). Back to idle, as above. Not a soft note in the
        // ringing of a loud hit the pad fired (no more than that hit's re-arm level at the
        // onset): a ghost note a 16th after an accent rises over it; at fast rates only a steep
        // one (`fastOwnRingingNeedsShock`: a long-ringing mount's swing outlasts the re-arm, and
        // rises smoothly). At fast rates it judges after the bump test, which a push must still
        // meet (it teaches the felt ceiling).
        let slow = Self.isSlowRate(dt: dt)
        let fast = dt <= Self.fastRatePeriod
        let carriesRinging = slow ? unexplained < c.ringHold * scanRing || scanOneModeUnexplained < c.ringHold * scanOneModeRing
                                  : peak < c.ringHold * scanRing
        let overOwnRinging = risesOverOwnRinging(peak: peak, unexplained: unexplained, dt: dt)
        let inRinging = ringHoldJudges(dt: dt) && carriesRinging  // what the hold would weigh
        let heldByRinging = inRinging
            && !(c.ringHoldOwnG > 0 && peak >= c.ringHoldOwnG && (fast ? lastWasFired : !lastWasFelt)
                 && lastPeak >= c.ringHoldOwnFactor * peak && scanRing <= rearmLevel(at: time)
                 && !(unexplained < c.ringHoldOwnShock * peak)
                 && !(fast && c.fastOwnRingingNeedsShock && c.sharpness > 0 && risesSlowly(step: step, strength: swing.deviation)))
            && !overOwnRinging
        if heldByRinging && !fast {
            state = .idle
            return nil
        }
        // Finer than a sample (slower than 500 Hz, from rest): a strike whose first sample had
        // already gone most of the way began early in the period before it; one whose first
        // sample had barely left the level began late in its own (`subSampleOffset`). Within a
        // roll the level is the last stroke's ringing, and the onset stays at the sample.
        let fromRest = time - lastPeakTime > 0.070
        // Under 500 Hz the rebound test lets some bumps through, and one may pass for proof of
        // play; at 1.6 kHz the bump test judges the shock's shape, and a hit that passes it is one.
        let withdrawnAt = c.feltProofWithdrawn && dt > Self.fastRatePeriod ? c.feltMargin : nil
        // The bump test (fast rates only): a push under `pushMaximumG` that rose over many
        // samples, not a shock (from `bumpSteepFromG`, much more slowly: a ghost note read just
        // under 1.2 g steps a third of it or more). Its tail is held off by the re-arm, but nothing is masked: a
        // strike may follow at once. It teaches the felt ceiling (below) as the slow rates' pushes do.
        if c.sharpness > 0, dt <= Self.fastRatePeriod, swing.deviation < Self.pushMaximumG, risesSlowly(step: step, strength: swing.deviation),
           !(c.bumpSteepFromG > 0 && swing.deviation >= c.bumpSteepFromG
             && step - 3 * noiseFloor >= c.bumpSteepShare * swing.deviation) {
            ceiling.felt(swing.deviation, raises: true, withdrawnAt: withdrawnAt)
            lastPeak = max(peak, rearmLevel(at: now))
            lastPeakTime = now
            lastWasFired = false
            state = .idle
            return nil
        }
        if heldByRinging {
            state = .idle
            return nil
        }
        // The ringing test (under 500 Hz; `unexplained` is infinite where it does not judge): the candidate's
        // samples carried on the ringing before them, so it is the mount still ringing, not a
        // strike. Back to idle: the next sample may start a strike.
        if unexplained < Self.ringingShare * peak {
            state = .idle
            return nil
        }
        let deviation = swing.deviation
        var curve = c.velocity
        if let fullScale = c.fastRateFullScale, dt <= Self.fastRatePeriod { curve.fullScale = fullScale }
        var struck = time
        if c.subSample, fromRest, dt > Self.fastRatePeriod, deviation > 0 {
            struck += dt * max(-0.5, min(0.5, Self.subSampleOffset.at + Self.subSampleOffset.slope * first / deviation))
        }
        // A shock let by in the pad's own ringing (by either exception above) that the ringing
        // leaves unexplained well over its level (`ringHoldShockFactor`) is measured from a
        // sample on that ringing's swing, which its strength would carry on: what the ringing
        // leaves unexplained is nearer the stroke (the independent Joy-Con snares' ghost notes
        // of 1.3-1.8 g read 2.0-3.1 g from the swing, and the seed 13 snares' velocities ranked
        // 0.76 and 0.82 at 200 and 250 Hz; so, 0.80 and 0.86). The tests below, which tell a
        // push, still weigh the swing: their thresholds were set on it.
        let swingCarried = inRinging && overOwnRinging
        let strength = swingCarried ? min(deviation, unexplained) : deviation
        let hit = Hit(index: index, time: struck, strength: strength,
                      velocity: curve.velocity(amplitude: strength, thresholdAmplitude: threshold), sampleTime: time)
        // The rebound test (under 500 Hz; `reboundPush`): a push through the stand. Not a hit,
        // but kept for `takeFelt`; masked, for the stand's ringing after it (a strike breaks
        // through at `feltBreakFactor` × its peak).
        let pushed = Self.reboundPush(c, around: around, deviation: deviation, sign: strikeVotes.sign(level: level, slow: slow),
                                      slow: slow, fromRest: fromRest, struckLoud: struckLoud,
                                      risesSlowly: risesSlowly(step: step, strength: deviation))
        // The lean test (slow rates): a weak candidate that moved the pad another way than its
        // own loud strikes do came through the stand.
        let leaning = c.leanShare > 0 && deviation < Self.pushMaximumG && strikeWay.leansAway(lean, share: c.leanShare, noiseFloor: noiseFloor)
        // The felt ceiling: a pad not yet shown played that has felt pushes takes a candidate no
        // stronger than they were for another. At fast rates it is handed on as felt (the bump
        // test's pushes are not) and, like them, masks nothing.
        let underFelt = ceiling.holds(deviation, margin: c.feltMargin)
        if dt <= Self.fastRatePeriod, underFelt {
            felt = hit
            ceiling.felt(deviation, raises: false, withdrawnAt: withdrawnAt)
            lastPeak = max(peak, rearmLevel(at: now))
            lastPeakTime = now
            lastWasFired = false
            state = .idle
            return nil
        }
        if dt > Self.fastRatePeriod, pushed || leaning || underFelt {
            felt = hit
            ceiling.felt(deviation, raises: pushed || leaning, withdrawnAt: withdrawnAt)
            lastPeak = max(peak, rearmLevel(at: now))
            lastPeakTime = now
            lastWasFired = false
            lastWasFelt = true
            state = .masked(until: maskFrom + c.maskMs / 1000)
            return nil
        }
        // The slow echo test (under about 170 Hz): a swing of the mount's ringing after a hit
        // fired from rest, its onset walked back into that hit's mask, and weaker than
        // `slowEchoShare` of it, is that hit's ringing, not a stroke. After the tests that tell a
        // push (which is still felt), so only what would fire is judged. Masked again from it,
        // and the slow ring hold starts again there, as after a hit: a ghost note after it is
        // judged as it would have been had this fired.
        if slow, c.slowEchoShare > 0, lastWasFired, let last = lastFromRest, time < last.maskEnd,
           deviation < c.slowEchoShare * last.strength {
            if ringHoldJudges(dt: dt) { restartSlowRingHold() }
            lastPeak = max(peak, rearmLevel(at: now))
            lastPeakTime = now
            state = .masked(until: maskFrom + c.maskMs / 1000)
            return nil
        }
        if deviation >= Self.pushMaximumG {
            struckLoud = true
            strikeVotes.vote(rise: swing.rise, fall: swing.fall, slow: slow)
        }
        if deviation >= Self.leanTeachingG { strikeWay.learn(lean) }
        // The ringing test's model learns from the quiet after a hit from rest.
        ringing.heardStroke()
        if fromRest, ringingModelJudges(dt: dt) { ringing.listen(after: deviation, at: now) }
        ceiling.struck(deviation, withdrawnAt: withdrawnAt)
        lastPeak = peak
        lastPeakTime = now
        lastWasFelt = false
        lastWasFired = true
        lastFromRest = slow && fromRest ? (deviation, maskFrom + c.maskMs / 1000) : nil
        if ringHoldJudges(dt: dt) {
            // The slow ring hold starts again from the hit, and so does the level of what the
            // ringing leaves unexplained (`ringHoldShockFactor`).
            if slow { restartSlowRingHold() }
            unexplainedRingLevel.restart()
        }
        state = .masked(until: maskFrom + c.maskMs / 1000)
        return hit
    }
}

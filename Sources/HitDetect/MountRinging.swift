/// The adaptive detector's model of its pad's own mount ringing under 500 Hz (the ringing test
/// in `AdaptiveDetector`'s notes): each sample's h predicted from the two before it (and, by
/// `TwoModeRinging` within it, from the four before it),
/// h[n] ≈ a1 h[n−1] + a2 h[n−2], which is how a decaying sinusoid looks sampled at any rate
/// (a1 = 2 r cos ω, a2 = −r², with ω the ringing's phase step per sample and r its decay per
/// sample). Until it has learned, a1 = −`AdaptiveDetector.ringingCarry` and a2 = 0: a ringing
/// near half the sample rate, flipping its sign every sample.
///
/// It learns by least squares over the quiet after this pad's own hits: from `windowStart` to
/// `windowEnd` after the scan that found a hit from rest of at least `teachingG` ended (at
/// 100 Hz the scan ends 20–30 ms after the strike, so some 35–110 ms after it). A window teaches
/// only if its own best fit leaves at most `selfFitShare` of its Σ h² unexplained: a decaying
/// ringing is one, and a double stroke or a roll's next stroke within it is not (it would teach
/// the model a shock). A candidate in the window no longer breaks it off: where a mount rings
/// long and strong, its ringing crosses past the mask after every hit, so no window ever taught
/// and the ringing kept firing. Each sample is weighed by 1 / the hit's strength², so loud hits do not outvote the
/// rest, and the windows before fade by `keep` at each new one: a pad re-mounted is learned
/// again, the old mount weighing half after 14 new windows and a tenth after 45 (a gap in the
/// samples keeps what was learned: the mount is the same).
///
/// The fit leans a little towards the fixed carry (a ridge of `ridge` × the sums' scale): near
/// half the sample rate h[n−1] and h[n−2] say the same thing, and the plain fit could wander
/// along the line of equally good answers. It keeps a2 within −0.95…0 and a1 within ±0.98 ×
/// (1 − a2), a ringing that decays, refitting a1 when a2 is held at a bound.
///
/// Why: a 100 Hz pad's mount rings at 30–60 Hz, seen through the sensor's ~45 Hz low-pass. Near
/// 50 Hz it flips sign every sample, as the fixed carry assumes; at 30–40 Hz it turns by about a
/// third of a cycle per sample, and a sample that carries the ringing on looks unexplained to
/// the fixed carry, so the ringing fired once the mask was over. From about 170 to 500 Hz it
/// judges too, once learned (`hasLearned`, or the two-mode model's, beside which the fixed carry
/// counts there too; alone it never judges there): there a mount ringing at 18–40 Hz over 100 ms
/// and more decays more slowly than the ring hold and fired past the mask. Where it cannot help: a
/// ringing of two modes at once, which no window's fit of one explains (a second model learns
/// it from the same windows: `TwoModeRinging`), and a hit too weak for its ringing to stand
/// over the noise.
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct MountRinging: Sendable {
    /// The window that teaches, s after the end of the scan that found the hit.
    static let windowStart = 0.015
    static let windowEnd = 0.080
    /// Samples past `windowEnd` before the window counts (kept from when a candidate's onset
    /// dated back into the window broke it off; it only delays the fit by two samples).
    static let samplesPastEnd = 2
    /// The least strength of a hit whose ringing teaches, g (weaker ones ring under the noise).
    static let teachingG = 0.2
    /// Windows learned from before the model replaces the fixed carry (and the two-mode model
    /// judges).
    ///
    /// Why one: a window teaches only where its own fit leaves a tenth of it or less, so the
    /// first that does is a ringing already; with three, a stand's first seconds carried three
    /// to five times the false hits of later ones (each pad's own ringing 45-200 ms after its
    /// strokes). With one (and the two-mode fit ridged towards the fixed carry: `TwoModeRinging`), the
    /// independent stands' strokes missed · hits no strike explains over seeds 1-18 went
    /// 196 · 192 → 184 · 157 (Joy-Con), 146 · 187 → 134 · 157 (DualSense) and 279 · 962 →
    /// 272 · 864 (phones; their idle pads 40 → 47) (independent-stands-notebook-3.md, "A
    /// mount's ringing learned from its first window").
    static let windowsNeeded = 1
    /// The share of the earlier windows' sums kept at each new window.
    static let keep = 0.95
    /// The ridge towards the fixed carry, as a share of the sums' mean Σ h².
    static let ridge = 0.001
    /// The most of a window's Σ h² (weighed) that its own best fit may leave unexplained for it
    /// to teach: a decaying ringing over the noise leaves a few per cent, a stroke within the
    /// window (a double stroke, a roll's next) much of it. At 0.2 the single-pad corpus's phone
    /// rolls of seeds 2 and 22 each lost a stroke; at 0.1 nothing there moved.
    static let selfFitShare = 0.1
    /// The fewest samples a window needs to teach.
    static let samplesNeeded = 4

    /// The least-squares sums: Σ h1², Σ h1 h2, Σ h2², Σ h0 h1, Σ h0 h2, Σ h0², and how many samples.
    private struct Sums: Sendable {
        var s11 = 0.0, s12 = 0.0, s22 = 0.0, t1 = 0.0, t2 = 0.0, s00 = 0.0, count = 0

        /// The sample h0, with the two before it, weighed by `weight`.
        mutating func add(_ h0: Double, _ h1: Double, _ h2: Double, weight: Double) {
            s11 += weight * h1 * h1
            s12 += weight * h1 * h2
            s22 += weight * h2 * h2
            t1 += weight * h0 * h1
            t2 += weight * h0 * h2
            s00 += weight * h0 * h0
            count += 1
        }

        /// These sums faded by `share`, and `other` added.
        func faded(by share: Double, adding other: Sums) -> Sums {
            Sums(s11: s11 * share + other.s11, s12: s12 * share + other.s12, s22: s22 * share + other.s22,
                 t1: t1 * share + other.t1, t2: t2 * share + other.t2, s00: s00 * share + other.s00, count: count + other.count)
        }

        var isFinite: Bool { s11.isFinite && s12.isFinite && s22.isFinite && t1.isFinite && t2.isFinite }

        /// Whether these sums' own best fit leaves at most `selfFitShare` of their Σ h0²
        /// unexplained (over `samplesNeeded` samples or more): a ringing, not a stroke.
        var explainsItself: Bool {
            let det = s11 * s22 - s12 * s12
            guard count >= MountRinging.samplesNeeded, det > 0, det.isFinite, s00 > 0, s00.isFinite else { return false }
            let b1 = (t1 * s22 - t2 * s12) / det, b2 = (t2 * s11 - t1 * s12) / det
            let residual = s00 - b1 * t1 - b2 * t2
            return residual.isFinite && residual <= MountRinging.selfFitShare * s00
        }
    }

    private var learned = Sums()
    private var window = Sums()
    /// When the scan that found the open window's hit ended (nan: no window open), the weight of
    /// each of its samples, and how many samples have come past its end.
    private var listeningFrom = Double.nan
    private var weight = 0.0
    private var pastEnd = 0
    private var windowsLearned = 0
    /// The same windows' model of two modes at once.
    private(set) var twoModes = TwoModeRinging()
    /// Whether a1 and a2 are learned (not the fixed carry).
    private(set) var hasLearned = false
    private(set) var a1 = -AdaptiveDetector.ringingCarry
    private(set) var a2 = 0.0

    /// |h0 − the one-mode ringing's prediction from h1 and h2| (the samples one and two before h0).
    func unexplainedByOneMode(_ h0: Double, _ h1: Double, _ h2: Double) -> Double {
        abs(h0 - a1 * h1 - a2 * h2)
    }

    /// What the ringing, as best learned, leaves of h0 (h1…h4: the four samples before it): the
    /// lesser of what the one-mode model (until learned, the fixed carry) and the two-mode model
    /// (once learned) leave.
    func unexplained(_ h0: Double, _ h1: Double, _ h2: Double, _ h3: Double, _ h4: Double) -> Double {
        min(unexplainedByOneMode(h0, h1, h2), twoModes.unexplained(h0, h1, h2, h3, h4))
    }

    /// A hit of `strength` g from rest, whose scan ended at `time`: the quiet after it teaches.
    mutating func listen(after strength: Double, at time: Double) {
        let w = 1 / (strength * strength)
        guard strength >= Self.teachingG, time.isFinite, w.isFinite, w > 0 else { return }
        window = Sums()
        twoModes.open()
        listeningFrom = time
        weight = w
        pastEnd = 0
    }

    /// The pad fired a hit: if a window is open, it holds that stroke, and teaches the two-mode
    /// model nothing (the one-mode model's own fit already refuses such a window).
    mutating func heardStroke() {
        if listeningFrom.isFinite { twoModes.breakWindow() }
    }

    /// The samples broke off (a gap, or times going back): the open window teaches nothing.
    mutating func abandon() {
        listeningFrom = .nan
    }

    /// The sample at `time`, h0, with the four before it.
    mutating func observe(_ h0: Double, _ h1: Double, _ h2: Double, _ h3: Double, _ h4: Double, time: Double) {
        guard listeningFrom.isFinite else { return }
        let age = time - listeningFrom
        if age > Self.windowEnd {
            pastEnd += 1
            if pastEnd > Self.samplesPastEnd { learn() }
            return
        }
        guard age > Self.windowStart else { return }
        guard h0.isFinite, h1.isFinite, h2.isFinite else {
            abandon()
            return
        }
        window.add(h0, h1, h2, weight: weight)
        twoModes.add(h0, h1, h2, h3, h4, weight: weight)
    }

    /// The window is over: fold it in and fit a1 and a2 again.
    private mutating func learn() {
        listeningFrom = .nan
        twoModes.close(keep: Self.keep)
        guard window.explainsItself else { return }
        let sums = learned.faded(by: Self.keep, adding: window)
        guard sums.isFinite else { return }
        learned = sums
        windowsLearned += 1
        guard windowsLearned >= Self.windowsNeeded else { return }
        // (S + λI) a = t + λ a₀, with a₀ the fixed carry.
        let lambda = Self.ridge * (sums.s11 + sums.s22) / 2
        let m11 = sums.s11 + lambda, m22 = sums.s22 + lambda, m12 = sums.s12
        let r1 = sums.t1 - lambda * AdaptiveDetector.ringingCarry, r2 = sums.t2
        let det = m11 * m22 - m12 * m12
        guard det > 0, det.isFinite else { return }
        var b2 = (r2 * m11 - r1 * m12) / det
        var b1 = (r1 * m22 - r2 * m12) / det
        guard b1.isFinite, b2.isFinite else { return }
        if b2 < -0.95 || b2 > 0 {
            b2 = max(-0.95, min(0, b2))
            b1 = (r1 - m12 * b2) / m11
        }
        let bound = 0.98 * (1 - b2)
        a1 = max(-bound, min(bound, b1))
        a2 = b2
        hasLearned = true
    }
}

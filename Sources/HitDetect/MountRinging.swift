/// The adaptive detector's model of its pad's own mount ringing at slow rates (the ringing test
/// in `AdaptiveDetector`'s notes): each sample's h predicted from the two before it,
/// h[n] ≈ a1 h[n−1] + a2 h[n−2], which is how a decaying sinusoid looks sampled at any rate
/// (a1 = 2 r cos ω, a2 = −r², with ω the ringing's phase step per sample and r its decay per
/// sample). Until it has learned, a1 = −`AdaptiveDetector.ringingCarry` and a2 = 0: a ringing
/// near half the sample rate, flipping its sign every sample.
///
/// It learns by least squares over the quiet after this pad's own hits: from 15 to 80 ms after a
/// hit from rest of at least `teachingG`, so long as no candidate begins in that time (a roll's
/// next stroke would teach the model a shock). Each such window counts once it is over, each
/// sample weighed by 1 / the hit's strength² so that loud hits do not outvote the rest, and the
/// earlier windows fade by `keep` at each new one (a pad re-mounted is learned again).
///
/// Why: a 100 Hz pad's mount rings at 30–60 Hz, seen through the sensor's ~45 Hz low-pass. Near
/// 50 Hz it flips sign every sample, as the fixed carry assumes; at 30–40 Hz it turns by about a
/// third of a cycle per sample, and a sample that carries the ringing on looks unexplained to
/// the fixed carry, so the ringing fired once the mask was over.
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct MountRinging: Sendable {
    /// The window after a hit that teaches, s after the hit (the end of its scan).
    static let windowStart = 0.015
    static let windowEnd = 0.080
    /// The least strength of a hit whose ringing teaches, g (weaker ones ring under the noise).
    static let teachingG = 0.2
    /// Windows learned from before the model replaces the fixed carry.
    static let windowsNeeded = 3
    /// How much of the windows before each new one keeps.
    static let keep = 0.95

    /// The least-squares sums: Σ h1², Σ h1 h2, Σ h2², Σ h0 h1, Σ h0 h2.
    private struct Sums: Sendable {
        var s11 = 0.0, s12 = 0.0, s22 = 0.0, t1 = 0.0, t2 = 0.0
    }

    private var learned = Sums()
    private var window = Sums()
    /// When the open window's hit was (nan: no window open), and its strength.
    private var hitTime = Double.nan
    private var hitStrength = 0.0
    private var windows = 0
    private(set) var a1 = -AdaptiveDetector.ringingCarry
    private(set) var a2 = 0.0

    /// |h0 − the ringing's prediction from h1 and h2| (the samples one and two before h0).
    func unexplained(_ h0: Double, _ h1: Double, _ h2: Double) -> Double {
        abs(h0 - a1 * h1 - a2 * h2)
    }

    /// A hit of `strength` g from rest, whose scan ended at `time`: the quiet after it teaches.
    mutating func listen(after strength: Double, at time: Double) {
        guard strength >= Self.teachingG, strength.isFinite, time.isFinite else { return }
        window = Sums()
        hitTime = time
        hitStrength = strength
    }

    /// A candidate began (or the samples broke off): the open window teaches nothing.
    mutating func abandon() {
        hitTime = .nan
    }

    /// The sample at `time`, h0, with the two before it.
    mutating func observe(_ h0: Double, _ h1: Double, _ h2: Double, time: Double) {
        guard hitTime.isFinite else { return }
        let age = time - hitTime
        if age > Self.windowEnd {
            learn()
            return
        }
        guard age > Self.windowStart else { return }
        guard h0.isFinite, h1.isFinite, h2.isFinite, age.isFinite else {
            abandon()
            return
        }
        let w = 1 / (hitStrength * hitStrength)
        window.s11 += w * h1 * h1
        window.s12 += w * h1 * h2
        window.s22 += w * h2 * h2
        window.t1 += w * h0 * h1
        window.t2 += w * h0 * h2
    }

    /// The window is over: fold it in and fit a1 and a2 again (a2 within −0.95…0, a1 within
    /// ±1.9: a ringing that decays, at any frequency).
    private mutating func learn() {
        hitTime = .nan
        let k = Self.keep
        let sums = Sums(s11: learned.s11 * k + window.s11, s12: learned.s12 * k + window.s12,
                        s22: learned.s22 * k + window.s22, t1: learned.t1 * k + window.t1,
                        t2: learned.t2 * k + window.t2)
        guard sums.s11.isFinite, sums.s12.isFinite, sums.s22.isFinite, sums.t1.isFinite, sums.t2.isFinite else { return }
        learned = sums
        windows += 1
        let det = sums.s11 * sums.s22 - sums.s12 * sums.s12
        guard windows >= Self.windowsNeeded, det > 1e-12 else { return }
        let b1 = (sums.t1 * sums.s22 - sums.t2 * sums.s12) / det
        let b2 = (sums.t2 * sums.s11 - sums.t1 * sums.s12) / det
        guard b1.isFinite, b2.isFinite else { return }
        a1 = max(-1.9, min(1.9, b1))
        a2 = max(-0.95, min(0, b2))
    }
}

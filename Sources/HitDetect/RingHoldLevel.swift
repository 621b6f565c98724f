/// The adaptive detector's ring hold level (the ring hold in its notes): the largest value held
/// so far, decaying exponentially, and what it was before each of the last four samples, newest
/// first (a candidate's onset may be three samples back).
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct RingHoldLevel: Sendable {
    /// The level now.
    private(set) var now = 0.0
    private var before: (Double, Double, Double, Double) = (0, 0, 0, 0)

    /// A sample holding `held`, the level before it decaying by `decay` (exp(−dt / the time
    /// constant), computed once for both of the detector's levels). A value no sensor gives (inf,
    /// or past the double's range) would hold forever: the level starts again from 0 instead.
    mutating func hold(_ held: Double, decay: Double) {
        let level = max(held, now * decay)
        now = level.isFinite ? level : 0
        before = (now, before.0, before.1, before.2)
    }

    /// The level before the sample `back` before this one (0: before this one; `back` 0...3).
    func before(_ back: Int) -> Double {
        switch back {
        case 0: before.0
        case 1: before.1
        case 2: before.2
        default: before.3
        }
    }

    /// The level starts again from 0; what it was before each sample stays (the onset never walks
    /// back past the hit that restarted it).
    mutating func restart() {
        now = 0
    }

    /// Everything forgotten.
    mutating func clear() {
        self = RingHoldLevel()
    }
}

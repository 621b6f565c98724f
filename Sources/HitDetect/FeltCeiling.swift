/// The adaptive detector's felt ceiling (in its notes): until a pad is shown played, the pushes
/// it has felt through its stand and its strongest hits.
struct FeltCeiling: Sendable {
    /// Whether the pad has been shown played: by a hit of `AdaptiveDetector.pushMaximumG` (no
    /// push reaches it; for good), or by one of more than `provenFactor` times the strongest push
    /// felt, once `feltNeeded` have been (a hit from before then, once `provenNeeded` have been).
    /// Where the proof may be withdrawn, the strongest such hit is weighed again against every
    /// push felt later.
    private var played = false
    private var sure = false
    private var pushes = 0
    private var strongestPush = 0.0
    private var strongestEarlyHit = 0.0
    private var strongestLaterHit = 0.0

    /// The pushes felt before the ceiling judges (one: at two, a 250 Hz pad alone fired on the
    /// stand's bumps between its first and second push, 0.3 s to 4 s apart on the simulated
    /// stands); before a hit from earlier is weighed against them (the first may be weak: on a
    /// simulated stand a bump played before them read 0.47 g and they 0.12 g); and how many times
    /// the strongest of them a hit must be.
    static let feltNeeded = 1
    static let provenNeeded = 4
    /// While one push only has been counted, a candidate is one more push up to this many times
    /// it (not `feltMargin`): one push is little evidence of how strong the stand's bumps come.
    /// A candidate the ceiling holds counts as a push too (it does not raise the ceiling), so
    /// `feltMargin` applies from the next push counted, held or not; and from the first push, a
    /// hit over `provenFactor` times it shows the pad played (at 500 Hz and faster, for good).
    /// Measured so (crosstalk-notebook-2.md, "The felt ceiling from the first push").
    static let firstMargin = 1.0
    static let provenFactor = 2.0

    /// Whether a candidate of `strength` g is one more push: under `AdaptiveDetector.pushMaximumG`
    /// and no stronger than `margin` times the strongest felt (`firstMargin` times the one push
    /// felt, while there is one), on a pad not shown played that has felt `feltNeeded`.
    func holds(_ strength: Double, margin: Double) -> Bool {
        !played && margin > 0 && pushes >= Self.feltNeeded && strength < AdaptiveDetector.pushMaximumG
            && strength <= (pushes < 2 ? min(margin, Self.firstMargin) : margin) * strongestPush
    }

    /// A push felt, of `strength` g. It `raises` the ceiling only when a test other than the
    /// ceiling itself turned it away: a candidate the ceiling held may be a strike, and raising
    /// the ceiling by it would hold the next, stronger ones too. `withdrawnAt`: a proof of play
    /// short of `AdaptiveDetector.pushMaximumG` is withdrawn once the strongest hit that could
    /// show it is no stronger than this many times the strongest push (what the ceiling then
    /// holds); nil: a proof made now stands for good.
    mutating func felt(_ strength: Double, raises: Bool, withdrawnAt margin: Double?) {
        guard !sure else { return }
        pushes += 1
        if raises { strongestPush = max(strongestPush, min(strength, AdaptiveDetector.pushMaximumG)) }
        judge(withdrawnAt: margin)
    }

    /// A hit played, of `strength` g (`withdrawnAt` as for `felt`).
    mutating func struck(_ strength: Double, withdrawnAt margin: Double?) {
        guard !sure else { return }
        if strength >= AdaptiveDetector.pushMaximumG {
            sure = true
            played = true
            return
        }
        if pushes < Self.feltNeeded {
            strongestEarlyHit = max(strongestEarlyHit, strength)
        } else {
            strongestLaterHit = max(strongestLaterHit, strength)
        }
        judge(withdrawnAt: margin)
    }

    /// Whether the hits so far show the pad played, against the pushes felt so far: proven by
    /// a hit over `provenFactor` times the strongest push, and withdrawn only once that hit is
    /// within `margin` times it (between the two, as it was).
    private mutating func judge(withdrawnAt margin: Double?) {
        let proof = max(pushes >= Self.provenNeeded ? strongestEarlyHit : 0,
                        pushes >= Self.feltNeeded ? strongestLaterHit : 0)
        if proof > Self.provenFactor * strongestPush {
            // A proof made where none is withdrawn (500 Hz and faster) stands for good; one
            // made under 500 Hz stays weighable whatever the next sample's interval.
            if !played && margin == nil { sure = true }
            played = true
        } else if played, let margin, proof <= margin * strongestPush {
            played = false
        }
    }
}

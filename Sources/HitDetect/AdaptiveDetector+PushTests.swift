/// The adaptive detector's tests of a push through the stand under 500 Hz: the rebound test (with
/// its rules until a pad's first loud hit: one way only, and the stricter shares for weak
/// candidates) and the lean test (in the type's notes).
extension AdaptiveDetector {
    /// Whether a candidate is a push (`pushed`, the rebound test) or came through the stand
    /// another way than the pad's own strikes move it (`leaning`, the lean test): its swing
    /// `around` its onset from z's level, its strength (`deviation`), the way a strike swings
    /// (`sign`, `strikeSign`), at a sample period under about 170 Hz (`slow`), from rest
    /// (`fromRest`), on a pad that has fired a hit of `pushMaximumG` (`struckLoud`), whether it
    /// rose over many samples (`risesSlowly`, the bump test's `sharpness`), and its `lean`
    /// against the pad's `strikeWay` over its `noiseFloor`.
    ///
    /// Real-time safety: arithmetic only.
    static func pushTests(_ c: Configuration, around: Swing, deviation: Double, sign: Double, slow: Bool,
                          fromRest: Bool, struckLoud: Bool, risesSlowly: Bool, lean: Lean, strikeWay: StrikeWay,
                          noiseFloor: Double) -> (pushed: Bool, leaning: Bool) {
        // The rebound test: a push that swung the pad the way a stick does, with little of the
        // spring back a stick's strike is seen as at these rates. It judges a candidate right
        // behind the pad's own stroke too: a cymbal's bump there passed for a strike.
        let along = sign > 0 ? around.rise : around.fall
        let against = sign > 0 ? around.fall : around.rise
        let share = slow ? c.slowRebound : c.rebound
        // Until the pad has struck a hit of `pushMaximumG`, the way a strike swings is gravity's
        // guess, and a push the other way passed: one that swung one way only, either way, and
        // rose over many samples (the bump test's `sharpness`), is a push too (`oneWayShare`).
        let oneWay = c.oneWayShare > 0 && !struckLoud && along < pushMaximumG && against < c.oneWayShare * along && risesSlowly
        // Until then too, a weak candidate that swung the strike's way under `reboundUntilLoud`
        // (under about 170 Hz `slowReboundUntilLoud`) of its swing the other way is a push:
        // nothing yet shows the pad played, and a stand's bump rings on with a fraction of itself.
        // From about 170 Hz, one from 0.3 g up to `untilLoudStrongerMaximumG` at
        // `reboundUntilLoudStronger` (off with `reboundUntilLoud`).
        let untilLoud = slow ? c.slowReboundUntilLoud : c.reboundUntilLoud
        let quietShare = deviation < untilLoudReboundMaximumG ? untilLoud
            : !slow && untilLoud > 0 && deviation < untilLoudStrongerMaximumG ? c.reboundUntilLoudStronger : 0
        let quietPush = !struckLoud && quietShare > 0 && along < quietShare * against
        let pushed = share > 0 && (fromRest || !c.reboundFromRestOnly)
            && (against < pushMaximumG && along < share * against || oneWay || quietPush)
        // The lean test: a weak candidate that moved the pad another way than its own loud
        // strikes do came through the stand.
        let leaning = c.leanShare > 0 && deviation < pushMaximumG && strikeWay.leansAway(lean, share: c.leanShare, noiseFloor: noiseFloor)
        return (pushed, leaning)
    }
}

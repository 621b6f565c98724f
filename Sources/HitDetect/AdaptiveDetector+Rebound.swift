/// The adaptive detector's rebound test under 500 Hz, with its rules until a pad's first loud hit
/// (one way only, and the stricter shares for weak candidates; in the type's notes).
extension AdaptiveDetector {
    /// Whether a candidate is a push through the stand by the rebound test: its swing `around`
    /// its onset from z's level, its strength (`deviation`), the way a strike swings (`sign`,
    /// `strikeSign`), at a sample period under about 170 Hz (`slow`), from rest (`fromRest`), on
    /// a pad that has fired a hit of `pushMaximumG` (`struckLoud`), and whether it rose over many
    /// samples (`risesSlowly`, the bump test's `sharpness`).
    ///
    /// Real-time safety: arithmetic only.
    static func reboundPush(_ c: Configuration, around: Swing, deviation: Double, sign: Double, slow: Bool,
                            fromRest: Bool, struckLoud: Bool, risesSlowly: Bool) -> Bool {
        // A push that swung the pad the way a stick does, with little of the spring back a
        // stick's strike is seen as at these rates. It judges a candidate right behind the pad's
        // own stroke too: a cymbal's bump there passed for a strike.
        let along = sign > 0 ? around.rise : around.fall
        let against = sign > 0 ? around.fall : around.rise
        let share = slow ? c.slowRebound : c.rebound
        guard share > 0, fromRest || !c.reboundFromRestOnly else { return false }
        if against < pushMaximumG && along < share * against { return true }
        guard !struckLoud else { return false }
        // Until the pad has struck a hit of `pushMaximumG`, the way a strike swings is gravity's
        // guess, and a push the other way passed: one that swung one way only, either way, and
        // rose over many samples (the bump test's `sharpness`), is a push too (`oneWayShare`).
        if c.oneWayShare > 0 && along < pushMaximumG && against < c.oneWayShare * along && risesSlowly { return true }
        // Until then too, a weak candidate that swung the strike's way under the share until a
        // loud hit of its swing the other way is a push: nothing yet shows the pad played, and a
        // stand's bump rings on with a fraction of itself.
        let quiet = untilLoudShare(c, deviation: deviation, slow: slow)
        return quiet > 0 && along < quiet * against
    }

    /// The rebound test's share until a pad's first loud hit for a candidate of `deviation` g
    /// (0: none): under `untilLoudReboundMaximumG`, `reboundUntilLoud` (under about 170 Hz,
    /// `slow`, `slowReboundUntilLoud`); from about 170 Hz, up to `untilLoudStrongerMaximumG`,
    /// `reboundUntilLoudStronger` (off with `reboundUntilLoud`).
    static func untilLoudShare(_ c: Configuration, deviation: Double, slow: Bool) -> Double {
        let share = slow ? c.slowReboundUntilLoud : c.reboundUntilLoud
        if deviation < untilLoudReboundMaximumG { return share }
        if !slow, share > 0, deviation < untilLoudStrongerMaximumG { return c.reboundUntilLoudStronger }
        return 0
    }
}

/// The adaptive detector's fixed numbers: the ones its tests and models share, which no
/// configuration changes (`AdaptiveDetector.Configuration` holds those a user may set).
extension AdaptiveDetector {
    /// At slow rates, how much of the sample before's h the mount's ringing carries into the next
    /// sample, with its sign flipped (h[n] ≈ −0.7 h[n−1]), until the pad has learned how its own
    /// mount rings (`MountRinging`).
    static let ringingCarry = 0.7
    /// The share of a candidate's peak |h| that its samples must leave unexplained by the
    /// ringing (`ringingCarry`, or the learned `MountRinging`) to be a strike (see `fire`).
    static let ringingShare = 0.3
    /// The onset's place within its sample period, in periods after the onset sample: `at` +
    /// `slope` × (the onset sample's departure from the level / the hit's strength), within ±½.
    /// Fitted by least squares on the corpus's grooves, rolls and sparse logs (seeds 1–3): at 100,
    /// 200 and 250 Hz the fits were 0.73 − 1.72 r, 0.56 − 1.97 r and 0.68 − 1.94 r.
    static let subSampleOffset = (at: 0.65, slope: -1.9)
    /// The rebound test's ceiling: a candidate that swung against a strike's way (or, under
    /// `oneWayShare`, either way) by this much or more is no push from another instrument (those
    /// reach about 1 g, and a slow sensor reads them nearly whole); and a hit whose strength is
    /// this much or more votes for `strikeSign` with the way it swung further (from about
    /// 170 Hz, where it swung clearly one way: `strikeVoteMargin`), and ends `oneWayShare`'s rule
    /// (every one, voting or not: a hit that loud shows the pad played).
    static let pushMaximumG = 1.2
    /// `Configuration.slowReboundUntilLoud` and `reboundUntilLoud` judge only candidates weaker
    /// than this, g: the bumps our phones fired on read 0.05-0.28 g, and about a fifth of a
    /// played phone's strokes before its first loud one read under 0.3 g (kit4 seeds 1-20, each
    /// pad alone); from about 170 Hz the brain takes nothing under it for a stroke
    /// (`leastStrokeG`). At 0.4 g the bumped phones alone fired 6 times fewer (of 40) for a
    /// stroke more missed, at 0.2 g 157 times more.
    static let untilLoudReboundMaximumG = 0.3
    /// `Configuration.reboundUntilLoudStronger` judges candidates from `untilLoudReboundMaximumG`
    /// up to this, g (from about 170 Hz only): at a share of 0.8 up to 0.5 g our 71 stands and the
    /// single-pad corpus lost no stroke, where every candidate up to 0.4 g taken for a push lost 3
    /// of our 71 stands' strokes and up to 0.5 g 9.
    static let untilLoudStrongerMaximumG = 0.5
    /// `strikeSign` (`StrikeVotes`): how many more loud hits one way than the other it takes to
    /// overrule gravity's side under about 170 Hz (whose low-pass blurs the way a hit swings).
    static let strikeVotesNeeded = 6
    /// `strikeSign`: how many it takes from about 170 Hz.
    ///
    /// Why 3 there: gravity's side is a guess, and on the independent stands it was
    /// the wrong one (a strike pushes the pad face down, and those 200-250 Hz sensors read the
    /// push more than the spring back); until six loud hits had overruled it, the rebound test
    /// took a pad's first soft strokes for pushes (the first 5 s of each stand: 52 of the 387
    /// strokes missed on seeds 1-18). With 3 the Joy-Con's and DualSense's strokes missed · hits
    /// no strike explains went 213 · 197 → 196 · 192 and 174 · 193 → 146 · 187 over seeds
    /// 1-18, and 67 · 51 → 58 · 49 and 65 · 42 → 59 · 41 on fresh seeds 19-24; ours as before
    /// (with `strikeVoteMargin`; independent-stands-notebook-3.md, "A strike's way learned from
    /// three loud hits"). At 100 Hz, 3 cost the independent phones more than it won. Three had
    /// been tried before (independent-stands-notebook-2.md, "A strike's way learned sooner"),
    /// at every rate and without the margin, and not kept for the worst pads it lowered.
    static let midRateStrikeVotesNeeded = 3
    /// `strikeSign`: from about 170 Hz a loud hit votes only where it swung one way at least this
    /// many times as far as the other (`StrikeVotes`). On our 250 Hz stands (±4 g, resting at
    /// 1 g) loud strikes swung 3.0 g up, clipped, and 3.6-3.9 g down, and three of them voted the
    /// way wrong within 7 s; a ghost note after them was taken for a push. 1.2 let those by. 2
    /// would stop a strike clipped at both rails of that sensor too (3 and 5 g: 1.67 apart), but
    /// also every stroke whose swing back is 0.6 of its shock (`FeltPushTests`: a face-down pad
    /// with no gravity then never learned its way); the independent gamepads' loud strikes swing
    /// one way tens of times as far as the other, and scored the same at 1.5 and 2. Left: a
    /// strike read past both rails votes for the farther one.
    static let strikeVoteMargin = 1.5
    /// `strikeSign`: the most net votes held, so a new mounting is learned within as many.
    static let strikeVotesHeld = 16
    /// `strikeSign`: |level| that says gravity is in z (a sensor that removes it reads about 0).
    static let gravityPresentG = 0.5
    /// The re-arm's decay after a push turned away as felt, ms: a stand shaken by another
    /// instrument rings longer than a pad's own mount.
    static let feltRearmDecayMs = 100.0
    /// The lean test: hits this strong or more teach the way a strike moves the pad (no push
    /// through the stand reaches it: those are under `pushMaximumG`), g.
    static let leanTeachingG = 1.5
    /// The lean test: loud hits needed before it judges, and how many its way is averaged over.
    static let leanNeeded = 8
    static let leanHeld = 16
    /// The lean test: how many times the loud strikes' own spread a candidate must lie off.
    static let leanSpreadFactor = 3.0
    /// The time constant of z's slow level.
    static let levelSeconds = 1.0
    /// The ring rise's blocks, ms: four of them hold 15-20 ms, about half a period of a mount
    /// ringing at 30 Hz (16.7 ms), so the window mostly holds the last swing of either sign.
    static let ringRiseBlockMs = 5.0
    /// The longest sample period at which `Configuration.fastRateFullScale` applies (500 Hz).
    static let fastRatePeriod = 0.002
    /// How far back the onset's chain looks (`onset`).
    static let chainSeconds = 0.012
    /// Under about 170 Hz, how long the pad must have been quiet before a strike's first clear
    /// sample for its onset to be found three samples before the one that crossed (`onset`).
    static let lateCrossingQuietSeconds = 0.1
}

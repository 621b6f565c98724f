extension AdaptiveDetector {
    /// The detector's settings; the defaults are meant to fit every common sensor.
    public struct Configuration: Equatable, Sendable {
        public var highPassMs = 4.0
        public var noiseFactor = 4.0
        public var minimumG = 0.11
        public var noiseFloorSeconds = 1.0
        public var quietMs = 100.0
        public var scanMs = 4.0
        public var minimumScanSamples = 2
        public var maskMs = 45.0
        public var rearmFraction = 1.0
        public var rearmDecayMs = 40.0
        /// Under 500 Hz, date each hit from rest within its sample period (`subSampleOffset`);
        /// false: at the onset sample.
        public var subSample = true
        /// At 500 Hz and faster, a candidate whose steepest step from one sample to the next is
        /// less than this share of its strength rose over many samples: a bump from another
        /// instrument on the stand, not a stick's shock (the bump test in the type's notes).
        /// 0: off.
        public var sharpness = 0.5
        /// At 500 Hz and faster, a candidate of at least this many g (and under the bump test's
        /// 1.2 g) is a bump only where it rose much more slowly still: its steepest step, less
        /// three noise floors, under `bumpSteepShare` of its strength (0: off). The issue bounds
        /// a stand's bumps at about 1 g and puts ghost notes from about 1.2 g; a 1.6 kHz sensor
        /// reads a 1.2-1.36 g ghost at 1.09-1.20 g, its steepest step 0.28-0.49 of that, and the
        /// bump test took it for a push: of the 45 ghosts the independent ADXL345 stands missed
        /// (seeds 1-18), 39 (35 of them read at 1.08 g or more). Their bumps read at most 0.96 g,
        /// stepping under 0.25 of it; ours at most 1.00 g, up to 0.48 of it. There strokes
        /// missed · hits no strike explains went 71 · 10 → 32 · 13 (seeds 1-18) and 19 · 5 → 8 · 4
        /// (fresh 19-24), no bumped pad alone fired; the 3 hits more, all on seed 18's seldom
        /// played racktom, a neighbour's backbeat's crosstalk read at 9-10 % (1.13-1.19 g), which
        /// the bump test had turned away and the brain let by; ours, the stand table, the
        /// `--vary` stands and the single-pad corpus as before. From 1.05 g: 32 · 15 and 8 · 5
        /// (independent-stands-notebook-3.md, "A ghost note read under 1.2 g at 1.6 kHz").
        public var bumpSteepFromG = 1.08
        /// The share of its strength a candidate from `bumpSteepFromG` must step by, at its
        /// steepest, not to be a bump (`bumpSteepFromG`).
        public var bumpSteepShare = 0.25
        /// From about 170 to 500 Hz, a candidate whose swing in a stick's strike's way
        /// (`strikeSign`) is less than this share of its swing the other way is a push from
        /// another instrument on the stand, not a strike (the rebound test in the type's notes).
        /// 0: off.
        public var rebound = 0.6
        /// `rebound` under about 170 Hz, where a sensor's low-pass blurs the swing back into the
        /// shock, so strikes show less of it. 0: off.
        public var slowRebound = 0.42
        /// Under about 170 Hz, until the pad has fired a hit of `pushMaximumG` (1.2 g) or more, a
        /// candidate under `untilLoudReboundMaximumG` (0.3 g) whose swing in a strike's way
        /// (`strikeSign`, gravity's guess until then) is under this share of its swing the other
        /// way is a push as well: nothing yet shows the pad played, a stand's bump swings one way
        /// and rings on with a fraction of itself, and a stroke at these rates reads mostly as
        /// its mount's swing. Such a push raises the felt ceiling as the rebound test's do (so
        /// candidates up to `feltMargin` times it are held too); off with the rebound test
        /// (`slowRebound` 0). Our bumped phones alone (`tools/corpus/stand` idle-bumps, seeds
        /// 1-100) fired 467 times in all, 40 with it; the bumps that fired had swung the strike's
        /// way 0.42-0.9 of the other (most under 0.75), the kit4 stands' played pads' strokes
        /// before their first loud hit (seeds 1-20, each pad alone) mostly 0.75-1.5. It cost 8
        /// strokes of our 71 stands, and on the independent phones no stroke but more hits no
        /// strike explains, moved by the brain's learning (independent-stands-notebook-3.md, "A
        /// bumped phone alone springs back little"). 0: off.
        public var slowReboundUntilLoud = 0.65
        /// The share `slowReboundUntilLoud` sets, from about 170 to 500 Hz (off with `rebound` 0).
        /// There a kit's stroke reads 0.3 g or more (but the softest taps, like the single-pad
        /// corpus's of 0.3-1.2 g, some read under it), while a stand's first bumps, before the
        /// pad's first loud hit, passed the rebound test: our bumped pads alone (idle-bumps, seeds
        /// 1-100) fired 24 times (Joy-Con) and 12 (DualSense), 3 and 6 with it (1 and 1 with
        /// `reboundUntilLoudStronger` too). Our 71 stands as
        /// before; two single-pad Joy-Con grooves lost a tap of 0.43 g each before their first
        /// loud stroke (1.000 -> 0.996 and 0.997); the independent Joy-Cons one hit no strike
        /// explains more on seeds 1-18 and one on 19-24, the DualSenses as before
        /// (independent-stands-notebook-3.md, "A bumped gamepad alone before its first loud
        /// hit"). 0: off.
        public var reboundUntilLoud = 1.0
        /// From about 170 to 500 Hz, until the pad's first loud hit, the share for a candidate
        /// from `untilLoudReboundMaximumG` (0.3 g) to `untilLoudStrongerMaximumG` (0.5 g), where
        /// a stand's first bumps still read (0.41 and 0.47 g on a DualSense stand, swinging the
        /// strike's way 0.61 of the other) and a kit's soft strokes start: bumped Joy-Cons and
        /// DualSenses alone (idle-bumps, seeds 1-100) 3 -> 1 and 6 -> 1 hits; our 71 stands, the
        /// single-pad corpus and the independent stands as before but the idle DualSense rides of
        /// seeds 7-10, 2 hits fewer (independent-stands-notebook-3.md, "A bumped gamepad alone
        /// before its first loud hit"). Off with `reboundUntilLoud` or `rebound` 0. 0: off.
        public var reboundUntilLoudStronger = 0.8
        /// Under 500 Hz, until the pad has struck a hit of `pushMaximumG` (1.2 g) or more, a
        /// candidate under it that swung one way only, either way (the other way under this share
        /// of it), and rose over many samples (its steepest step, less three noise floors, under
        /// `sharpness` of its strength, as the bump test asks), is a push as well: which way a strike swings is then
        /// only gravity's guess (the rebound test in the type's notes). 0: off; and off with the
        /// rebound test (`rebound` or `slowRebound` 0 at the rate, or a candidate not from rest
        /// under `reboundFromRestOnly`). Any hit of 1.2 g the pad fires ends it, a neighbour's
        /// crosstalk fired that strong too.
        public var oneWayShare = 0.15
        /// Whether the rebound test judges only candidates from rest (70 ms or more after the
        /// last peak), as it did until a bump right behind the pad's own stroke was seen to pass
        /// it (the rebound test in the type's notes). Off: it judges every candidate.
        public var reboundFromRestOnly = false
        /// Under 500 Hz, a candidate under `pushMaximumG` whose motion across x, y and z lies off
        /// the way this pad's own loud strikes move it by more than this share of its part along
        /// it came through the stand (the lean test in the type's notes). 0: off.
        public var leanShare = 0.15
        /// Until the pad is shown played: once it has felt a push, a candidate under
        /// `pushMaximumG` and no stronger than this many times the strongest of them is one more
        /// (while it has felt one, no stronger than it: the felt ceiling in the type's notes). 0: off.
        public var feltMargin = 1.5
        /// Under 500 Hz, a pad shown played by a hit of more than twice the strongest push felt
        /// (not by one of `pushMaximumG`) is no longer so once a push felt later makes the
        /// strongest such hit one the ceiling holds (no stronger than `feltMargin` times it):
        /// most likely a bump too, though the push may be one of the pad's own strokes that the
        /// rebound or lean test took for one (the felt ceiling in the type's notes). false, and a
        /// proof made at 500 Hz and faster: it stands for good.
        public var feltProofWithdrawn = true
        /// A candidate whose peak |h| is under this many times the largest |h|
        /// before its onset, decaying over `ringHoldMs`, carries on a ringing that was already
        /// there, the stand's after a neighbour's strike (under about 170 Hz, in what the ringing
        /// test leaves unexplained of |h|, over `slowRingHoldMs`, and with `learnsTwoModes` in
        /// what the one-mode ringing alone leaves as well; the ring hold in the type's notes). 0: off.
        public var ringHold = 1.5
        /// The ring hold's decay time constant from about 170 Hz up, ms.
        public var ringHoldMs = 30.0
        /// Whether the ring hold (`ringHold`, over `ringHoldMs`) judges at 500 Hz and faster too.
        /// There the bump test turns a smooth push away, but a mount that rings longer than the
        /// re-arm decays rises to each swing within a few samples, passes it, and fired once
        /// the mask had ended: on the independent ADXL345 stand of seed 8 (a snare mount at
        /// 64 Hz, decaying over 124 ms) 48 hits 60-80 ms after the pad's own strokes. false:
        /// under 500 Hz only.
        public var fastRingHold = true
        /// Under about 170 Hz, the ring hold's decay time constant, ms (0: no ring hold there).
        /// There it holds what the ringing test leaves unexplained of each sample's |h| (the
        /// pad's own mount ringing, as that test predicts it, is not held), only
        /// `slowMaskHoldShare` of it within the mask of a hit the pad fired, and weighs a
        /// candidate's unexplained |h| against it (with `learnsTwoModes`, also what the one-mode
        /// ringing alone leaves, against its own level): a stand swaying after a neighbour's
        /// strike, long after the brain's window for its crosstalk (the ring hold in the type's notes).
        public var slowRingHoldMs = 60.0
        /// Under about 170 Hz, the share of what the ringing test leaves unexplained that the ring
        /// hold holds within the mask of a hit the pad fired (it starts again from that hit).
        /// Held in full there, a roll's next stroke was held by the last one's ringing; held not
        /// at all, each swing of a sway that fired cleared the hold, and the swing after its mask
        /// fired too (independent-stands-notebook.md, "A stand that sways").
        public var slowMaskHoldShare = 0.3
        /// Under about 170 Hz, a candidate that would fire, whose onset lies within the mask of
        /// the pad's last hit, where that hit was fired from rest, and weaker than this share of
        /// it, is that hit's ringing: it does not fire, and the pad is masked and its ring hold
        /// starts again from it as from a hit (the slow echo test in the type's notes). 0: off.
        ///
        /// Why: at 100 Hz the mask starts at the sample the onset's chain began on and can end
        /// four samples after the one that crossed; a mount ringing hard (the independent stand
        /// corpus's snares of seeds 1 and 3, at 22-32 Hz over 95-126 ms, swinging ±3-5 g after
        /// a 9 g stroke) swings there by more than the re-arm asks, the ringing test's models
        /// cannot yet explain what the sensor's low-pass still shapes of the strike, and the
        /// swing fired, its onset walked back into the mask: 75 of the 304 hits no strike
        /// explains on the phones' played pads (seeds 1-6), 37-44 ms after the true stroke.
        /// 0.7 spares a roll's soft strokes, 55-60 ms apart but dated as close as 45 ms and
        /// within 0.8-1.0 of each other (the single-pad corpus's phone roll of seed 18 lost two
        /// at 1.0 and one at 0.8), and takes 36 of the 75 and 7 more past 45 ms
        /// (independent-stands-notebook-2.md, "A mount's first swings past the mask at 100 Hz").
        public var slowEchoShare = 0.7
        /// The ring hold lets a candidate of at least this many g by where the pad's last
        /// event was a hit it fired (not a push it felt), the re-arm's held peak (that hit's, or
        /// a swing of its ringing within the mask that rose over it as it decayed) is at least
        /// `ringHoldOwnFactor` times the candidate's, and the ringing before the onset is no
        /// more than the re-arm level: a soft note in a loud hit's ringing, which the re-arm has
        /// judged already (the ring hold in the type's notes). Also the least a candidate
        /// `ringHoldShockFactor` lets by must be. 0: the ring hold judges every candidate.
        public var ringHoldOwnG = 0.4
        /// How many times a candidate's peak the re-arm's held peak must be for `ringHoldOwnG`
        /// (0: any).
        public var ringHoldOwnFactor = 3.0
        /// At 500 Hz and faster, `ringHoldOwnG` lets by only a candidate that does not rise
        /// slowly (the bump test's `sharpness`, at any strength): a stick's shock is steep, and
        /// a swing of the pad's own mount ringing is not. A mount that rings long (decaying over
        /// about 120 ms at 42-64 Hz) outlasts the re-arm (40 ms): 63-110 ms after each stroke its
        /// swing rose just over the re-arm, within the ring hold's level, and fired at 0.2-0.3
        /// of the stroke. On the independent 1.6 kHz stands, strokes missed · hits no strike
        /// explains went 81 · 127 → 71 · 26 (seeds 1-18; the seed 8 and 11 snares 47 and 45 → 0
        /// and 2); ours, the stand table and the single-pad corpus as before
        /// (independent-stands-notebook-3.md, "A long-ringing mount at 1.6 kHz"). false, or
        /// `sharpness` 0: off.
        public var fastOwnRingingNeedsShock = true
        /// Where the ringing test judges (under about 170 Hz always, with the fixed carry until
        /// the pad has learned; from about 170 to 500 Hz once learned), the share of a
        /// candidate's peak |h| that the pad's ringing must leave unexplained for `ringHoldOwnG`
        /// to let it by: a soft note is a shock of its own, and the loud hit's ringing is not.
        /// The ringing test turns away what is under 0.3 anyway: at 0.3 or less this changes
        /// nothing (the ring hold in the type's notes).
        public var ringHoldOwnShock = 0.4
        /// From about 170 to 500 Hz, once the pad has learned its mount's ringing: the ring hold
        /// lets a candidate of at least `ringHoldOwnG` by whose peak of what that ringing leaves
        /// unexplained is at least this many times the most it left over the samples before
        /// the onset (held as the ring hold's level is, over `ringHoldMs`, from the pad's last
        /// fired hit on): a ghost note 88-155 ms after the pad's own loud stroke rises little
        /// over that stroke's ringing in |h|, but is a shock the ringing does not explain (7-16
        /// times the level there, its ringing's swings 0.3-2 times). On the independent 200-250 Hz
        /// stands, strokes missed · hits no strike explains went 219 · 246 → 157 · 263 (seeds
        /// 1-10) and 190 · 107 → 129 · 136 (fresh seeds 11-14); other settings, measured before
        /// a candidate begun before the pad learned was left out: 2: 154 · 291, 5: 170 · 263,
        /// 8: 177 · 263; a level held over 15 or 60 ms: 146 · 306, 198 · 250; holding only 0 or
        /// 0.3 of it within a fired hit's mask: 150 · 319, 149 · 284
        /// (independent-stands-notebook-3.md, "A ghost note in its own stroke's ringing at
        /// 200–250 Hz"). Such a hit's strength is what the ringing leaves unexplained where
        /// that is less than its swing from the sample before (a sample on the ringing): on the
        /// same stands 157 · 263 → 158 · 247, fresh 130 · 136 → 130 · 121, and the seed 13
        /// snares' velocity rank 0.76 → 0.80 (Joy-Con), 0.82 → 0.86 (DualSense). 0: off.
        public var ringHoldShockFactor = 3.0
        /// At 500 Hz and faster, after a hit the pad fired, a candidate of `ringRiseG` or more
        /// that rises to this many times the largest |h| of the 15-20 ms before it (its ringing
        /// now) passes the re-arm: a soft note rising over a loud hit's ringing (the ring rise in
        /// the type's notes). 0: off.
        public var ringRiseFactor = 2.0
        /// The least |h|, in g, of a sample the ring rise lets past the re-arm.
        public var ringRiseG = 0.8
        /// Under 500 Hz, the ringing test predicts each sample from the two before it (and with
        /// `learnsTwoModes` from the four before it as well) as this pad's own mount rings,
        /// learned from the quiet after its hits (`MountRinging`), and from about 170 Hz the
        /// onset's chain stops at what that ringing explains; false: under
        /// about 170 Hz as a ringing that flips its sign every sample (h[n] ≈ −0.7 h[n−1]), and
        /// from there to 500 Hz not at all.
        public var learnsRinging = true
        /// With `learnsRinging`, the ringing test also learns a mount that rings in two modes at
        /// once (`TwoModeRinging`, h[n] predicted from the four samples before it) and weighs
        /// each sample by whichever model explains more of it; from about 170 to 500 Hz it judges
        /// once either model has learned, and under about 170 Hz the ring hold weighs a
        /// candidate against the one-mode model's level too. false: the one mode only.
        public var learnsTwoModes = true
        /// Within the mask, a sample whose |h| passes this many times the last hit's peak is a
        /// new strike, not the ringing (`breakFactor` in the type's notes); 0: the mask is absolute.
        public var breakFactor = 4.0
        /// `breakFactor` at 500 Hz and faster, where the last hit's peak was sampled closely, not
        /// on a shock's flank (the break-through in the type's notes); 0: the mask is absolute there.
        public var fastBreakFactor = 2.0
        /// `breakFactor` under 500 Hz within the mask of a push the pad felt (the rebound, lean
        /// and felt-ceiling tests), whose ringing is weak for its depth (the break-through in
        /// the type's notes); 0: `breakFactor` (and with `breakFactor` 0 the mask is absolute here too).
        public var feltBreakFactor = 2.5
        /// A candidate whose scan meets a step from one sample to the next steeper than any
        /// before it (by three noise floors) and larger than its whole swing so far (under
        /// 500 Hz, `slowRescanFactor` times it), more than a sample after its onset, is scanned
        /// again from that step (the rescan in the type's notes). false: off, and
        /// `ringingRescan` with it.
        public var rescan = true
        /// Under 500 Hz the rescan's step must be larger than this many times the candidate's
        /// whole swing so far (the rescan in the type's notes); 0: no rescan under 500 Hz.
        public var slowRescanFactor = 3.0
        /// Where the ringing test judges (under about 170 Hz always, with the fixed carry until
        /// the pad has learned its ringing; from there to 500 Hz once learned), a candidate whose
        /// samples so far the pad's ringing explains (what it leaves is under `ringingShare` of
        /// their peak) and whose scan then meets a sample it leaves that much unexplained is
        /// scanned again from that sample, and dated there (the rescan in the type's notes).
        /// false: off; `rescan` false turns this off too.
        public var ringingRescan = true
        public var velocity = VelocityCurve(floor: 0.1, fullScale: 3.0)
        /// `velocity`'s full scale in g at 500 Hz and faster, where the sensor's band lets a
        /// stick's 1.5–3.5 ms shock through nearly whole: on the corpus, strikes of 4–8 g measure
        /// 3.5–7.7 g at 1.6 kHz against 0.8–3.5 g at 100–250 Hz, so at 3 g every accent would
        /// play within the curve's headroom (0.95–1). nil: `velocity.fullScale` at every rate (a
        /// full scale the user chose, or `drumpad calibrate` measured).
        public var fastRateFullScale: Double? = 8.0

        /// The defaults, with `velocity`.
        public init(velocity: VelocityCurve = VelocityCurve(floor: 0.1, fullScale: 3.0)) {
            self.velocity = velocity
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A detector that needs no tuning across sensors of different rate, range and noise, after the
/// way trigger modules (Edrumulus, microDRUM) find drum strikes:
///
/// - **High-pass:** z minus a one-pole low-pass of itself (time constant `highPassMs`, 4 ms), so
///   gravity, tilt and handling (pushes of 60 ms and more) drop out; `|h|` is the size of the
///   shock, and where it began and how it decays.
/// - **Trigger:** `a = |h'|`, h high-passed once more the same way (`ShockFilter`). A strike is a
///   shock of a few ms; walking and handling are bounces of 100 ms and more. Differenced twice,
///   the bounce shrinks far more than the shock: at 100 Hz, where one high-pass is little more
///   than the jump from the last sample, the carried corpus logs' largest value fell from 0.12 to
///   0.09 g while their weakest strikes' rose, so ghost notes that were under walking's jumps
///   now fire and the carried pad still does not.
/// - **Noise floor:** a slow running mean of `a` (time constant `noiseFloorSeconds`, and while it
///   has seen less than that, over the time it has) while idle and at least `quietMs` (100 ms)
///   after the last strike's peak, so that a roll's ringing between strokes does not raise it; a
///   strike starts when `a` passes `noiseFactor` × that floor (and at least `minimumG`).
/// - **Scan:** from the onset for `scanMs`, and for at least `minimumScanSamples` sample
///   periods, the peak of |h| is collected (the re-arm's reference), and z's furthest departure
///   from its level before the onset (the hit's strength), so velocity follows the true peak, not the first
///   sample over the threshold. Behind a sensor's own low-pass the shock's peak lands up to two
///   samples after its onset, so at 250 Hz the scan is 8 ms and at 1.6 kHz 4 ms. When the onset
///   was found before the sample that crossed, the scan also lasts `minimumScanSamples` periods
///   past that sample, so a strike that crossed early on its rise is still measured at its peak.
///   (`minimumScanSamples` 0: at rates where a sample period is longer than the scan, the hit
///   is reported on the sample that crossed.)
/// - **Mask:** for `maskMs` after the start nothing can fire, so the ringing of the board after
///   a strike never fires again, at 100 Hz or at 1.6 kHz alike (time, not samples). The start
///   is where |h| rose without a break (at 170–500 Hz, within a ringing the pad has learned,
///   what that ringing leaves of |h|), even when the hit is dated earlier (`onset`).
/// - **Rescan (`rescan`):** a scan begun on a neighbour's crosstalk (a smooth push of a few
///   tenths of a g) may meet the pad's own stroke, struck 2–4 ms later, or another pad's
///   crosstalk: a step from one sample to the next steeper than any before it (by three noise
///   floors) and larger than the candidate's whole swing so far, more than a sample after the
///   onset. The scan starts again from the sample before that step (once, for `scanMs` more,
///   and at least a sample: the hit comes up to that much later), and the hit is dated there
///   and measured whole, not at the first crosstalk's onset and at part of what followed (which
///   the brain then took for the neighbour's crosstalk, or could not tie to the second pad's
///   strike). At 500 Hz and faster a stroke's own ringing is never larger than its shock.
///
///   Under 500 Hz the step must be `slowRescanFactor` (3) times the swing so far, and the ring
///   hold judges the rescanned hit against its level before the step. There a candidate begun
///   on a swing of the stand's sway or of the pad's own ringing, its onset walked back up to
///   three samples, met the stroke that followed in its scan and was dated 25–50 ms early: a
///   stroke missed and a hit no strike explains at once (the independent phone stands, seeds
///   1–6: 173 of the 235 strokes missed). A stroke's own first samples can be followed by a
///   swing back 1.5–3 times as large (a mount ringing near the Nyquist frequency), which the
///   step at 1 times took for the stroke (our phone stands, seeds 1–20: strokes missed 117 →
///   238). At 3 times, strokes missed went 117 → 107 there and 235 → 134 on the independent
///   phones, for a few more hits no strike explains on some of our stands
///   (independent-stands-notebook.md, "A stroke met in a sway's scan"; `MountRingingTests`). The
///   strength is still measured from the level before the first onset, and the sub-sample
///   offset from the first onset's sample: measured again from the step, our fresh phone
///   stands of seeds 301–312 lost 5 strokes more (313–336: 2 fewer) and the independent idle
///   phones played 14 hits more.
///
///   Where the ringing test judges (`ringingRescan`; under 170 Hz with the fixed carry until the
///   pad has learned its ringing), a candidate whose samples so far the ringing explains (it
///   leaves under `ringingShare` of their peak) and whose scan meets a sample it leaves that
///   much unexplained is scanned again from that sample and dated there (the ring hold judging
///   against its level before it; the strength, and the sub-sample offset from rest, still from
///   the first onset). A swing of the pad's own ringing crossed, its onset walked back, and a
///   ghost note's first sample in the scan made it pass the ringing test: the hit was dated at
///   the swing, 25–50 ms before the ghost, which its mask then hid. A scan rescans once, by
///   whichever rule finds its sample first (the step's, on the same sample). On the
///   independent phone stands (seeds 1–6) strokes missed went 134 → 69 and hits no strike
///   explains 886 → 695 (held out, 7–10: 95 → 40, 682 → 583), but their idle pads played
///   107 → 132 (69 → 118): with unisons dated right, the brain learns a pair from fewer of its
///   source's strikes (a unison's are shared), and after a run of silences it dropped an idle
///   pad's coupling to a neighbour (independent-stands-notebook-2.md, "A ghost met in its own
///   ringing's scan"; `MountRingingTests.aGhostMetInItsRingingsScanIsDatedWhereTheRingingLeavesIt`);
///   weighing an idle pad's silences against its recent hits
///   (`StandModel.Configuration.silenceFromRecentFloor`) brought them to 102 and 62 (the
///   notebook's "An idle pad's silences").
/// - **Break-through:** within the mask, a sample whose |h| passes `breakFactor` (4) × the last
///   hit's peak (held as below), and whose trigger passes the thresholds, starts a strike: a pad's
///   ringing never rises above the strike that rang it, but a weak hit (the crosstalk of a flam's
///   grace note on a neighbour) is followed 15–40 ms later by the pad's own strike, which the
///   mask would otherwise swallow. On the simulated stands (tools/corpus/stand, kit4 at 250 Hz,
///   seed 1) the snare lost 11 such strikes of 6–14 g before this. At 500 Hz and faster the
///   peak is sampled closely, not on a shock's flank, and `fastBreakFactor` (2) × it is enough:
///   a racktom struck 5–10 ms after a ride stroke, first fired by the ride's crosstalk, broke
///   through there (the simulated ride-kit stands at 1.6 kHz). Within the mask of a push the pad
///   felt, under 500 Hz, `feltBreakFactor` (2.5) × it is enough: a neighbour's stroke reaches the
///   pad as a push a few ms before the pad's own stroke of a unison, the candidate starts on the
///   push, its scan ends on the stroke's shock before the swing back, and it is felt; the swing
///   back then breaks through (the simulated ride-kit stands, seeds 1–8: 55 → 43 strokes missed
///   at 250 Hz, 39 → 37 at 200 Hz, nothing else lost or played; at 2 × an idle pad played once).
/// - **Bump test (500 Hz and faster):** a candidate whose steepest step from one sample to the
///   next, from its onset to the scan's end, less three noise floors (noise adds steps to a weak
///   push), is under `sharpness` (0.5) × its strength rose over many samples: another
///   instrument on the stand (a cymbal's strike felt as a push of 4–10 ms), not a stick's shock
///   of 1–3.5 ms. It does not fire, and its tail is held off by the re-arm, but it masks
///   nothing: a neighbour's loud strike reaches a pad as such a push, and the pad's own strike of
///   a unison or flam can follow within the mask (masked, five racktom strikes of the simulated
///   stands' seed 21 were lost behind a 10–13 g snare). Slower sensors see both as a
///   sample or two and cannot tell them apart. On the simulated stands (`tools/corpus/stand
///   --scenarios idle-bumps --profile adxl345`, seeds 1–4) an idle pad's bumps of 0.15–1 g fired
///   123–132 times per two minutes before, and never after (without the noise term: 2–6 times;
///   at 0.6 without it: 0–1 times, but smooth crosstalk was then rejected so unevenly that the
///   stands were learned worse). On the single-pad corpus (seeds 18, 19) the ADXL345's rolls went
///   from 1.000 to 0.996 and 0.998, its grooves stayed 1.000.
///   Only under `pushMaximumG` (1.2 g): bumps reach about 1 g, and a 1.6 kHz sensor reads a
///   strike nearly whole, so anything stronger is a strike whatever its shape. A stick's contact
///   of 3 ms behind an 800 Hz low-pass rises too smoothly for the test: on a second simulator
///   written apart from ours (`tools/corpus/independent`, seeds 1–6) the 1.6 kHz stands' worst
///   pads went from 0.42–0.81 to 0.97–1.00 with the ceiling (the idle ride 1 → 11 hits over the
///   six, the crosstalk of strikes over 12 g, left to the brain); ours scored exactly as before.
/// - **Rebound test (under 500 Hz):** behind a 200–250 Hz sensor's low-pass a
///   stick's shock of 1.5–3.5 ms comes out a fraction of itself, and most of what the sensor
///   sees of a strike is the pad's mount swinging back; a push through the stand of 4–10 ms (a
///   cymbal's bump, and much of a neighbour's crosstalk) comes out nearly whole, with little
///   swing back. A candidate whose swing from z's slow level, over the four samples before it and
///   its scan, went the other way from a strike's (`strikeSign`) by under `pushMaximumG` and the
///   strike's way by less than `rebound` (0.6) of that is such a push: it does not fire, it is
///   masked as a hit (but broken through at `feltBreakFactor`, 2.5 ×, not 4 ×) with the re-arm
///   decaying over `feltRearmDecayMs` (the stand rings on), and
///   `takeFelt` hands it on, so the brain can learn its stands from it (`/drum/felt`). On the
///   simulated stands (tools/corpus/stand-table, seeds 1–20) a bumped idle pad fired 123–165
///   times in two minutes at 200–250 Hz before, 0–45 after. Under about 170 Hz a phone's 45 Hz
///   low-pass blurs the swing back into the shock, and the share asked is `slowRebound` (0.42):
///   a bumped 100 Hz pad fired 94–128 times before, 30–112 after. It judges every candidate,
///   not only those from rest (70 ms after the last peak, as until `reboundFromRestOnly` was
///   turned off): a cymbal's bump right behind the pad's own stroke (under 70 ms after its last
///   peak), on the stroke's ringing, passed for a strike (the simulated bumps stands, seeds 1–8 at 200 and 250 Hz: 289 → 128 hits no
///   strike explains, not one strike fewer). Until the pad has struck a hit of `pushMaximumG`,
///   which way a strike swings is only gravity's guess, and a cymbal lifting the pad swung that
///   way with little back: so until then a candidate under it that swung one way only, either
///   way (the other way under `oneWayShare`, 0.15, of it), and rose over many samples (its
///   steepest step less three noise floors under `sharpness` of its strength, as the bump test
///   asks) is a push too. On the independent stand corpus a bumped pad alone went from 38–340
///   hits in two minutes to 0–3 where the bumps lift it (seeds 1–6, 100–250 Hz); on
///   `tools/corpus/stand`'s stands and the single-pad corpus nothing moved (without the step
///   test a 200 Hz roll read under 1.2 g lost 11 % of its strokes).
/// - **Lean test (under 500 Hz, given x and y):** a stick drives the pad along much the same way
///   every time, while what comes through the stand (a cymbal's bump, a neighbour's crosstalk)
///   moves it the way the stand sways. The pad's own hits of 1.5 g and more (no push reaches it)
///   teach that way across x, y and z (`strikeLean`: their mean, each weighed 1/16 once sixteen
///   have taught it; learned at every rate) and how far they stray from it. Once eight have, a
///   candidate under `pushMaximumG` whose motion at its peak lies off that way by more than
///   `leanShare` (0.15) of its part along it, or three times the strikes' own stray if more,
///   plus the noise, is a push: felt, as the rebound test's.
///   Where the strikes stray widely, or the sensor gives z alone, it turns nothing away. On the
///   simulated stands' bumps scenario (a cymbal on a played 250 Hz snare's stand, seeds 1–8) the
///   worst F1 went from 0.957–0.978 to 0.958–0.994, and on fresh seeds 9–16 from 0.953–0.976 to
///   0.954–0.989; the kit4 stands (seeds 1–28) and the single-pad corpus scored as before.
/// - **Felt ceiling (until the pad is shown played):** a pad that nobody has played yet but whose
///   stand is bumped feels most bumps as pushes by the tests above (at 1.6 kHz the bump test's),
///   and the few that pass them read no stronger than those it felt. So once it has felt a push
///   (`FeltCeiling.feltNeeded`), a candidate under `pushMaximumG` and no stronger than it
///   (`FeltCeiling.firstMargin`), and from the second push on no stronger than `feltMargin` (1.5)
///   times the strongest of them, is one more. (From the second push only, as until 2026-12-02, a
///   bumped pad alone fired on the bumps between its first two pushes: 284 → 250 hits over 120
///   simulated stands, 197 → 167 on 60 fresh ones, with no stroke more or fewer on 290 played
///   stands; 1.5 × the one push held a snare's first stroke, read 0.74 g after a 0.50 g bump.) A hit
///   of 1.2 g (`pushMaximumG`: no push reaches it), or of more than twice the strongest push felt,
///   shows the pad is played, and from then on the ceiling is off; a hit from before the first push
///   is weighed against them once four are felt (a phone reads a 6 g strike at about 0.9 g; the
///   first pushes may be weak). Under
///   500 Hz only a hit of 1.2 g shows it for good: a proof by twice the pushes is weighed again
///   against each push felt later (`feltProofWithdrawn`), and once the ceiling would hold the
///   strongest hit that showed it (a push at least two thirds as strong), that was one more bump (a
///   bumped phone alone, seed 131: 82 hits in two minutes, now 27, every one before the push that
///   withdrew the proof). Between twice and 1.5 × the pushes the proof stands: withdrawn at twice,
///   a phone shown played by 6 g strokes (read 0.89 g) lost every ghost note after a 1 g bump read
///   0.52 g (`FeltCeilingTests`). At 1.6 kHz the bump test judges a shock's shape, and a hit that
///   passes it is proof enough: weighed again, ghost notes read under 1.2 g among bumps of up to 1
///   g were held. What it costs: a pad's first ghost notes, before its first real strike, as weak
///   as the pushes it has felt, are felt too (`FeltCeilingTests`). On the simulated stands
///   (`tools/corpus/stand-table --seeds 1 … 28`) a bumped idle pad alone went from 0–57 hits in two
///   minutes to 0–2 at 200–250 Hz, and from 30–112 to 0–27 at 100 Hz but for one seed (112, whose
///   stand rings at 64 Hz: there the rebound test feels only the weakest bumps; 9 since the proof
///   of play can be withdrawn); the kit's idle phone pad from 0–3 to none on any seed; of about
///   39,000 strikes at 100–250 Hz three more were missed (each a floortom's ghost note in its first
///   four seconds) and two fewer. The ceiling rises only with the pushes the other tests turn away,
///   never with a candidate it held itself (or the strikes it held would raise it over the next).
///   At 500 Hz and faster the bump test's pushes under `pushMaximumG` teach it too, and what it
///   holds is handed on as felt (the bump test's own pushes are not) and, like them, masks nothing:
///   a bumped 1.6 kHz pad alone fired 0–2 times in two minutes (9 hits on 8 of 40 seeds; 0–3 with
///   the noise doubled; mostly bumps whose steepest step passed for a shock's), and never since;
///   the stands and the single-pad corpus at 1.6 kHz scored as before. What it costs there: a pad
///   whose stand has pushed it, started with strokes under 1.2 g, loses those as weak as 1.5 × the
///   pushes until a stroke of 1.2 g or twice the strongest push (on the simulated stands every
///   pad's first strokes read over 1.2 g at 1.6 kHz).
/// - **Re-arm:** after the mask a new strike's |h| must also pass `rearmFraction` × the last peak,
///   decaying with time constant `rearmDecayMs`: the tail of a loud strike cannot fire, but a
///   roll's next stroke can. The last peak is held through the mask: a sample of the ringing
///   higher than the decayed peak becomes the new reference, so a pad whose mount rings longer
///   than the mask (or a slow sensor that saw only the shock's flank) does not fire again.
/// - **Slow echo (under about 170 Hz):** a candidate that would fire (not a push), whose onset
///   lies within the mask of the pad's last hit, where that hit came from rest, and weaker than
///   `slowEchoShare` (0.7) of it, is that hit's ringing: it does not fire, the pad is masked
///   again from it and its slow ring hold starts again there, as after a hit. At 100 Hz the mask
///   (45 ms from the chain's first sample) can end four samples after the sample that crossed,
///   where a mount ringing hard swings by more than the re-arm asks and the ringing test's models,
///   which predict each sample from the few before it, still start from samples the sensor's
///   low-pass shaped from the strike; the swing's onset is then walked back into the mask. On the
///   independent phone stands (seeds 1–6) 75 of 304 hits no strike explains came 37–44 ms after
///   the pad's own stroke, by the strokes' true times.
/// - **Ring rise (500 Hz and faster):** after a hit the pad fired (not a push turned away), a
///   sample of |h| of `ringRiseG` (0.8 g) or more and `ringRiseFactor` (2) times the largest |h|
///   of the 15–20 ms that end four samples before it (so a soft note's own rise is not counted)
///   passes the re-arm. At 1.6 kHz an accent is read nearly whole: a 12 g accent holds the
///   re-arm at 1.6 g 80 ms on, where a ghost note a 16th after it comes at 190 BPM, while its
///   ringing there is a few tenths of a g. A decaying ringing seldom doubles the largest swing
///   of the 15–20 ms before it, and a swing that does rises smoothly, which the bump test turns
///   away. On the simulated stands at 150–190 BPM (`tools/corpus/stand --vary fast`, ADXL345
///   kit4 and ride-kit) the strokes missed went 34 → 10 on seeds 241–242, 22 → 5 on 243–244
///   and 65 → 20 on fresh seeds 247–249 (hits no strike explains 2 → 1); at the usual tempo,
///   under five variations and on the single-pad corpus nothing changed. A re-arm decaying
///   over 30 ms, not 40, found more (34 → 7) but fired again on a mount whose ringing decays as
///   fast as that re-arm. Under 500 Hz it was tried and changed nothing: a 200 Hz snare reads
///   a 1.5 g ghost at about 0.7 g, where its accent's ringing, struck with a ride stroke, read
///   1.85 g 15 ms before.
/// - **Ringing at slow rates:** under about 170 Hz, a candidate whose samples from its onset to
///   the scan's end each carry on the sample before them as the mount's ringing does, flipping
///   its sign (|h[n] + 0.7 h[n−1]| under 0.3 × the candidate's peak |h| on every one), is the
///   ringing and does not fire (from 170 to 500 Hz the same test judges with the learned model
///   only, below; the fixed carry never judges there). Seen through a 100 Hz sensor's ~45 Hz low-pass, a mount ringing
///   at 30–60 Hz changes sign nearly every sample, so at 60–70 ms, once the mask and most of the
///   re-arm are over, its samples can fall on its peaks and cross; a strike's first sample leaves
///   the level unannounced. On the corpus's phone logs of seeds 1–5 and 22–29 the false hits
///   went 57 → 28 (grooves), 31 → 23 (rolls), 11 → 2 (sparse) and 18 → 15 (crosstalk), and no
///   strike was lost. A mount ringing away from half the sample rate turns by less than half a
///   cycle a sample, and the fixed carry took its samples for strikes. So each pad learns how
///   its own mount rings (`MountRinging`, `learnsRinging`): h[n] ≈ a1 h[n−1] + a2 h[n−2], fitted
///   over the quiet 15–80 ms after the scans that found its hits from rest ended; once three
///   such windows have taught it, the test asks that of every sample. On the simulated phone
///   stands (kit4, seeds 1–20) the hits played that no strike explains went 63 → 42 and the
///   strikes missed 114 → 115; on the fresh seeds 51–58, 37 → 21 and 45 → 47. A window teaches
///   when its own fit explains it (`MountRinging.selfFitShare`), even if a candidate began in
///   it, and from about 170 to 500 Hz the learned model judges too (not the fixed carry, made for
///   100 Hz): a mount ringing long and strong crossed past the mask after every hit, broke off
///   every window and never taught, and at 200–250 Hz ringing slower than the ring hold fired. On
///   the independent stand corpus (`tools/corpus/independent`, seeds 1–6) the played pads' hits
///   no strike explains went 3909 → 2603 (phones), 706 → 425 (Joy-Con) and 579 → 308
///   (DualSense), strokes missed 199 → 221, 155 → 153 and 155 → 151; on `tools/corpus/stand`'s
///   stands and the single-pad corpus nearly nothing moved (independent-stands-notebook.md, "A
///   mount that rings past the mask"). A mount that rings in two modes at once (its own and a
///   second, 30–60 ms after a stroke) leaves a one-mode fit far off and refuses it its windows:
///   a second model learns it from the same windows (`TwoModeRinging`, `learnsTwoModes`: h[n]
///   from the four samples before it), and each sample counts with whichever leaves less of it
///   unexplained; from about 170 to 500 Hz the test judges once either has learned. On the
///   independent stands (seeds 1–6) strokes missed · hits no strike explains went 69 · 696 →
///   65 · 541 (phones), 86 · 303 → 67 · 187 (Joy-Con) and 87 · 214 → 63 · 111 (DualSense), with
///   fewer hits no strike explains on the held-out and fresh seeds too, for a few strokes more
///   missed on the fresh phones (independent-stands-notebook-2.md, "A mount that rings in two
///   modes").
/// - **Ring hold:** a candidate whose peak |h| is under `ringHold` (1.5)
///   times the largest |h| before its onset, decaying over `ringHoldMs` (30 ms), carries on a
///   ringing that was already there and does not fire. What it is for: a neighbour's strike
///   rings the stand, and where the stand rings longer than the re-arm decays (the crosstalk
///   fired, or was masked, and its ringing outlasts the mask), each swing of the ringing is
///   about as high as the one before it, and crossed; a strike rises well above what came
///   before it. At 1.6 kHz the bump test turns a smooth swing away, but not a mount's that rises
///   to each swing within a few samples, and since 2026-12-04 the hold judges there too, after
///   the bump test (`fastRingHold`): a mount ringing at 64 Hz over 124 ms (the independent
///   ADXL345 stand of seed 8) fired every 45-50 ms once the mask had ended (the hits no strike
///   explains on those stands' seeds 7-10 went 76 -> 47, on fresh seeds 11-14 66 -> 49, seeds
///   1-6 10 -> 8, for 2 strokes more missed over the 14 stands; our stands and the single-pad
///   corpus as before; `FastRingHoldTests`). There a rescanned candidate is judged against the
///   level before its first onset (the level is kept for only a few samples back, fewer than a
///   1.6 kHz scan holds). Under 170 Hz the
///   ringing test turns away a mount's (now, once learned, up to 500 Hz too); between them
///   nothing did (a stand's sway under 170 Hz: below). Sampled densely, ringing that decays more slowly
///   than the hold passes it by no more than exp(half its period / `ringHoldMs`), 1.3 for a
///   stand at 60 Hz; but near half the sample rate the samples beat against the ringing, and
///   a swing can read twice the one before (a steady 90 Hz ring at 200 Hz): a stand ringing
///   there for much longer than the simulated stands' 30–60 ms still fires now and then (the
///   reviewer's probe, 90 Hz over 150 ms: 146 hits past the mask over 40 rings, 205 without
///   the hold). On the simulated stands with the stand ringing twice as strong and long after
///   crosstalk (`tools/corpus/stand --vary ringing`, kit4, seeds 61–62) the worst played pad at
///   200 and 250 Hz went from 0.711–0.870 to 0.986–1.000 and the idle pad's hits from 7–133 to
///   0–2; on the stands as made (seeds 1–20) 10 crosstalk hits played went to 2, with no strike
///   more missed; on the single-pad corpus (seeds 1–5, 22–25) the Joy-Con's grooves and
///   crosstalk rose (0.992 → 0.996 on seed 1, 0.987 → 1.000 on seed 22) and one roll fell
///   (1.000 → 0.998, seed 22). With a hold of 2 or of 45 ms, strikes were lost (Joy-Con rolls
///   to 0.995; 12 → 69 strikes missed on its stands). Under about 170 Hz, held so, the mount's
///   own ringing near the Nyquist frequency counted against the next stroke (phone rolls 0.993
///   → 0.928), so there it holds what the ringing test leaves unexplained of each sample's |h|,
///   decaying over `slowRingHoldMs` (60 ms), and weighs the candidate's unexplained |h| against
///   it (with the two-mode model, two levels: what the ringing as best learned leaves and what
///   its one mode alone leaves, and a candidate held by either is held; `RingHoldLevel`);
///   within the mask of a hit the pad fired it holds only `slowMaskHoldShare` (0.3) of that,
///   from the hit on. What it is for: a stand swaying after a neighbour's strike (12–24 Hz on
///   the independent corpus's phone stands, `stand_f`), each swing a few tenths of a g, for
///   0.1–0.3 s, long past the brain's window for the crosstalk; the ringing test predicts the
///   pad's own mount, not the sway. On those stands (seeds 1–6) the hits no strike explains
///   went 2596 → 1191 and the idle pads' 982 → 667, strokes missed 220 → 232; on the held-out
///   seeds 7–10, 1967 → 874, 752 → 334 and 170 → 169. A swing that fired (the crosstalk's first
///   is one) leaves little held, so the swing after its mask may fire too, and a sway whose
///   period is about the mask's (45 ms: about 22 Hz) may do so swing after swing. It costs our own phone
///   stands strokes (kit4 and ride-kit, seeds 1–20 and 301–336, and the `--vary` stands: 794 →
///   866 missed, 138 → 104 false) and the single-pad phone grooves and rolls up to 0.012
///   (independent-stands-notebook.md, "A stand that sways").
///   Not a soft note in the ringing of a loud hit the pad fired: a candidate of `ringHoldOwnG`
///   (0.4 g) or more, at most 1 / `ringHoldOwnFactor` (3) of the re-arm's held peak (that
///   hit's, or a swing of its ringing within the mask that rose over it as it decayed), whose
///   ringing before its onset is no more than the re-arm level passes, the re-arm having judged
///   that ringing; where the ringing test judges, only if at least `ringHoldOwnShock` (0.4) of
///   its peak |h| is a shock of its own, not the pad's ringing carried on. A ghost note a 16th
///   after an accent at 150–190 BPM rises over the accent's ringing, and the hold took it for a
///   ringing already there: on the simulated stands at that
///   tempo (`tools/corpus/stand --vary fast`) 464 → 348 strokes missed on seeds 241–242, 386 →
///   291 and 524 → 387 on fresh ones, for 11, 2 and 6 hits more that no strike explains; at the
///   tempo they are made at, 5 more over 206 stands (a cymbal's bumps right behind a snare's
///   strokes) and 3 strokes fewer missed. Those ghost notes leave 0.40–1.75 of their peak
///   unexplained, where the swings of a mount ringing 60–180 ms after a loud strike that this
///   let by on the independent stands mostly left 0.05–0.45. The ringing test turns away a
///   candidate under 0.3 anyway, so the rule only tells apart those between 0.3 and 0.4: for
///   them it raises the ringing test's share to 0.4. With `ringHoldOwnShock`, on those
///   stands (seeds 1–6) the hits no strike explains went 1191 → 1135 (phones), 369 → 345
///   (Joy-Con) and 273 → 250 (DualSense), on the held-out seeds 874 → 837, 419 → 400 and 307 →
///   294, and on ours (`tools/corpus/stand`, the single-pad corpus) nothing moved but fresh
///   phone stands' (seeds 301–312) 416 → 415 strokes missed and 27 → 26 false, and the gamepad
///   `--vary` stands' 345 → 347 and 87 → 86. The ringing test judges under about 170 Hz from
///   the first hit (with the fixed carry until the pad has learned), and from about 170 to
///   500 Hz only once the pad has learned its ringing (in one mode or two); before that there, a
///   swing of the loud hit's ringing is still let by as a soft note.
///
/// The hit carries the index and time of the onset and is returned on the sample that ends the
/// scan. Its `strength` (and so its velocity) is how far z went, in g, from its level on the
/// sample before the onset, over the onset and the scan: at 100–250 Hz the high-pass follows a
/// strike within a sample or two, so its peak says more about where the samples fell than about
/// the strike (on the corpus, rolls' velocity rank correlation at 200–250 Hz rose from
/// 0.63–0.84 to 0.80–0.94 with this). Re-arm works in |h|, and so does finding the onset (in
/// what a learned ringing leaves of |h|, at 170–500 Hz): a strike's first samples depart from
/// the level before the trigger's |h'| rises.
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
    // Its settings: AdaptiveDetector+Configuration.swift; its parts: ShockFilter, FeltCeiling,
    // MountRinging (with TwoModeRinging), RingHoldLevel, Swing and Lean, each in its own file.

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
    // Loud hits whose z rose more than it fell, less those that fell more, held within
    // ±strikeVotesHeld: `strikeSign`.
    private var strikeVotes = 0
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
    // The ring rise's window: the largest |h| in each of the last four blocks of
    // `ringRiseBlockMs`, newest (still filling) first, of the samples up to the fourth before the
    // one being judged (a soft note's own rise stays out of it); and when the newest began.
    private var riseBlocks: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var riseBlockStart = -Double.infinity
    // x's and y's slow levels, as z's (`level`); nan until a sample gives them.
    private var crossLevel = (x: Double.nan, y: Double.nan)
    // The way this pad's own loud hits move it across all three axes (`Lean`), a unit vector
    // with z ≥ 0; how many have taught it (up to `leanHeld`), and how far from it they lay.
    private var strikeLean = Lean(x: 0, y: 0, z: 1)
    private var strikeLeans = 0
    private var strikeLeanSpread = 0.0
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
    // The ring hold's levels before the onset of the candidate being scanned (what `fire` weighs
    // it against).
    private var scanRing = 0.0
    private var scanOneModeRing = 0.0

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
        riseBlocks = (0, 0, 0, 0)
        riseBlockStart = -.infinity
        ringLevel.clear()
        oneModeRingLevel.clear()
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
    /// the sensor removed gravity.
    public var strikeSign: Double {
        if abs(strikeVotes) >= Self.strikeVotesNeeded { return strikeVotes > 0 ? 1 : -1 }
        return level <= -Self.gravityPresentG ? -1 : 1
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
            }
            // The ring rise's window, kept at every rate (a sensor near 500 Hz has periods on
            // both sides of `fastRatePeriod`): a new block every `ringRiseBlockMs`, and where
            // times stepped back, the newest block starts again from here.
            if time - riseBlockStart >= Self.ringRiseBlockMs / 1000 {
                riseBlocks = (0, riseBlocks.0, riseBlocks.1, riseBlocks.2)
                riseBlockStart = time
            } else if time < riseBlockStart {
                riseBlockStart = time
            }
            if recentCount >= 3, recentH.2.isFinite { riseBlocks.0 = max(riseBlocks.0, recentH.2) }
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
    /// before, but never at or before the last hit's peak:
    /// - **The chain:** back, within 12 ms (3 samples at 250 Hz, 2 at 200 Hz), as long as each
    ///   sample's |h| stayed over `rising`. The mask starts there. From about 170 to 500 Hz, once
    ///   the pad has learned its mount's ringing (`MountRinging`), what that ringing leaves of
    ///   each sample's h must stay over `rising`. A stroke that comes while the last one's
    ///   mount still rings above `rising` had its onset walked back into that ringing, up to the
    ///   chain's 12 ms, and could be dated past the 10 ms a hit may be off by on a stand (a miss
    ///   and a hit no strike explains at once). On the independent stand corpus (seeds 1–6) this
    ///   found fills, unisons and ghost notes at 200–250 Hz (strokes missed 153 → 101 Joy-Con,
    ///   151 → 119 DualSense); a snare whose mount rings in two modes at once was still dated
    ///   early (one mode does not explain it; the two-mode model, once learned, judges here too).
    ///   From rest the rule applies
    ///   too: a slowly ringing mount's model predicts part of a soft stroke's smooth rise, yet
    ///   over 72 such signals every stroke was dated as with no model
    ///   (`MountRingingTests.aSoftStrokeFromRestIsDatedAsWithoutTheModel`).
    /// - **Where 12 ms holds fewer than two samples** (under ~170 Hz), the onset is the earlier of
    ///   the last two samples that had left the level of the sample before them (|h|, or z's
    ///   distance from that level, over `slowRateDeparture` × `rising`), even if the other had
    ///   not. At 100 Hz a pad's mount rings near the Nyquist frequency, so the sample after a
    ///   strike's first clear one can fall on a zero-crossing and look quiet; the chain stops
    ///   there and dates the strike one or two periods late, past the 25 ms a hit may be off by.
    ///   The mask still starts where the chain did: started from the earlier sample, it ended
    ///   before the ringing of a roll's stroke had, which then crossed before the next stroke and
    ///   took its place. Behind a 45 Hz low-pass a soft strike's first sample or two depart only
    ///   0.02–0.03 g, a little under `rising` at its least (0.3 × 0.11 g); counting a departure
    ///   of 0.7 × `rising` dates the strike from them (phone grooves: strikes dated over 25 ms
    ///   late 28 → 23 on seeds 1–5 and 22–29).
    /// - **Three samples back, from rest** (under ~170 Hz): where each of the three samples
    ///   before the one that crossed had left z at the rest sample before them all by that much,
    ///   the rest sample lay at z's slow level, the four came one period apart, and the pad had
    ///   had no peak (no hit, felt push or held ringing of its own) for
    ///   `lateCrossingQuietSeconds` (100 ms) before the first of them, the onset is that first
    ///   one. A soft strike whose first clear sample departs 0.065 g and whose mount swings it
    ///   past the trigger only three samples on was dated 30 ms late, a stroke missed and a hit
    ///   no strike explains at once (a 5.2 g racktom stroke alone, phone kit4 seed 10, 63.41 s).
    ///   Phone kit4 stands of seeds 1–20: 108 · 42 → 103 · 37 strokes missed · hits no strike
    ///   explains, the worst pad 0.954 → 0.963; no stand measured scored worse by more than a
    ///   stroke (crosstalk-notebook-2.md, "A strike that crossed three samples late"). Without the
    ///   quiet, a 100 Hz floortom's stroke 102 ms after its own 9.4 g one was dated 28 ms early,
    ///   in that one's ringing (mixed-rates seed 3). A neighbour's crosstalk that stayed under
    ///   the trigger is no peak: a stroke that follows it within 30 ms may be dated from it.
    ///
    /// On the corpus's 100 Hz phone logs, over the tuning seeds 1–5 and 14–17 the mean F1 went
    /// from 0.958 to 0.973 (grooves), 0.952 to 0.973 (rolls), 0.940 to 0.958 (sparse) and 0.954
    /// to 0.957 (crosstalk); the other profiles' hits did not change. Asking instead that the
    /// pad be at rest before the earlier sample (and starting the mask from the onset) kept the
    /// rolls as they were; starting the mask from the onset without that cost them (seed 19:
    /// 0.969 → 0.953); three samples back, without the rest and the quiet asked above, cost
    /// every roll (0.96–0.98 → 0.85).
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
    /// this much or more votes for `strikeSign` with the way it swung further, and ends
    /// `oneWayShare`'s rule.
    static let pushMaximumG = 1.2
    /// `strikeSign`: how many more loud hits one way than the other it takes to overrule
    /// gravity's side, and how many it holds (so a new mounting is learned within as many).
    static let strikeVotesNeeded = 6
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
    private static let chainSeconds = 0.012
    /// Under about 170 Hz, how long the pad must have been quiet before a strike's first clear
    /// sample for its onset to be found three samples before the one that crossed (`onset`).
    static let lateCrossingQuietSeconds = 0.1
    /// Under about 170 Hz: the onset's chain holds fewer than two sample periods.
    private static func isSlowRate(dt: Double) -> Bool { 2 * dt > chainSeconds }

    /// Whether `lean` lies off the way this pad's loud strikes move it by more than `share` (or
    /// `leanSpreadFactor` times their own stray, if more) of its part along it, plus the
    /// noise: false until `leanNeeded` strikes have shown the way, and where x and y are unknown.
    private func leansAway(_ lean: Lean, share: Double) -> Bool {
        guard strikeLeans >= Self.leanNeeded, lean.x.isFinite, lean.y.isFinite else { return false }
        let (along, off) = lean.split(along: strikeLean)
        return off > max(share, Self.leanSpreadFactor * strikeLeanSpread) * abs(along) + 3 * noiseFloor
    }

    /// Teaches the way a strike moves this pad from a loud hit's `lean`: the mean of the unit
    /// vectors so far, weighed 1/16 each once `leanHeld` have taught it; and how far each lay
    /// from the way taught before it (the first, from none), likewise averaged.
    private mutating func learnLean(_ lean: Lean) {
        let size = lean.length
        guard size > 0, size.isFinite else { return }
        let sign: Double = lean.z < 0 ? -1 : 1
        let u = lean.divided(by: sign * size)
        if strikeLeans > 0 {
            let (_, off) = u.split(along: strikeLean)
            strikeLeanSpread += (off - strikeLeanSpread) / Double(min(strikeLeans, Self.leanHeld))
        }
        strikeLeans = min(strikeLeans + 1, Self.leanHeld)
        let weight = 1 / Double(strikeLeans)
        let d = strikeLeans == 1 ? u : strikeLean.moved(toward: u, by: weight)
        let norm = d.length
        guard norm > 0 else { return }
        strikeLean = d.divided(by: norm)
    }

    /// The ring rise (500 Hz and faster): after a hit the pad fired, `departure` is at least
    /// `ringRiseG` and `ringRiseFactor` times the largest |h| of the window (15-20 ms, ending
    /// four samples before this one).
    private func risesOverRinging(_ departure: Double, dt: Double) -> Bool {
        let c = configuration
        guard c.ringRiseFactor > 0, dt <= Self.fastRatePeriod, lastWasFired, departure >= c.ringRiseG else { return false }
        let ringing = max(max(riseBlocks.0, riseBlocks.1), max(riseBlocks.2, riseBlocks.3))
        return departure > c.ringRiseFactor * ringing
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
        // onset): a ghost note a 16th after an accent rises over it. At fast rates it judges
        // after the bump test, which a push must still meet (it teaches the felt ceiling).
        let slow = Self.isSlowRate(dt: dt)
        let fast = dt <= Self.fastRatePeriod
        let carriesRinging = slow ? unexplained < c.ringHold * scanRing || scanOneModeUnexplained < c.ringHold * scanOneModeRing
                                  : peak < c.ringHold * scanRing
        let heldByRinging = ringHoldJudges(dt: dt) && carriesRinging
            && !(c.ringHoldOwnG > 0 && peak >= c.ringHoldOwnG && (fast ? lastWasFired : !lastWasFelt)
                 && lastPeak >= c.ringHoldOwnFactor * peak && scanRing <= rearmLevel(at: time)
                 && !(unexplained < c.ringHoldOwnShock * peak))
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
        // samples, not a shock. Its tail is held off by the re-arm, but nothing is masked: a
        // strike may follow at once. It teaches the felt ceiling (below) as the slow rates' pushes do.
        if c.sharpness > 0, dt <= Self.fastRatePeriod, swing.deviation < Self.pushMaximumG, risesSlowly(step: step, strength: swing.deviation) {
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
        let hit = Hit(index: index, time: struck, strength: deviation,
                      velocity: curve.velocity(amplitude: deviation, thresholdAmplitude: threshold), sampleTime: time)
        // The rebound test (slow rates): a push that swung the pad the way a stick does, with
        // little of the spring back a stick's strike is seen as at these rates. Not a hit, but
        // kept for `takeFelt`; masked, for the stand's ringing after it (a strike breaks
        // through at `feltBreakFactor` × its peak). It judges a candidate right behind the
        // pad's own stroke too: a cymbal's bump there passed for a strike.
        let along = strikeSign > 0 ? around.rise : around.fall
        let against = strikeSign > 0 ? around.fall : around.rise
        let share = Self.isSlowRate(dt: dt) ? c.slowRebound : c.rebound
        // Until the pad has struck a hit of `pushMaximumG`, the way a strike swings is gravity's
        // guess, and a push the other way passed: one that swung one way only, either way, and
        // rose over many samples (the bump test's `sharpness`), is a push too (`oneWayShare`).
        let oneWay = c.oneWayShare > 0 && !struckLoud && along < Self.pushMaximumG && against < c.oneWayShare * along
            && risesSlowly(step: step, strength: swing.deviation)
        let pushed = share > 0 && (fromRest || !c.reboundFromRestOnly)
            && (against < Self.pushMaximumG && along < share * against || oneWay)
        // The lean test (slow rates): a weak candidate that moved the pad another way than its
        // own loud strikes do came through the stand.
        let leaning = c.leanShare > 0 && deviation < Self.pushMaximumG && leansAway(lean, share: c.leanShare)
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
            if ringHoldJudges(dt: dt) {
                ringLevel.restart()
                oneModeRingLevel.restart()
            }
            lastPeak = max(peak, rearmLevel(at: now))
            lastPeakTime = now
            state = .masked(until: maskFrom + c.maskMs / 1000)
            return nil
        }
        if deviation >= Self.pushMaximumG {
            struckLoud = true
            strikeVotes = max(-Self.strikeVotesHeld, min(Self.strikeVotesHeld, strikeVotes + (swing.rise > swing.fall ? 1 : -1)))
        }
        if deviation >= Self.leanTeachingG { learnLean(lean) }
        // The ringing test's model learns from the quiet after a hit from rest.
        ringing.heardStroke()
        if fromRest, ringingModelJudges(dt: dt) { ringing.listen(after: deviation, at: now) }
        ceiling.struck(deviation, withdrawnAt: withdrawnAt)
        lastPeak = peak
        lastPeakTime = now
        lastWasFelt = false
        lastWasFired = true
        lastFromRest = slow && fromRest ? (deviation, maskFrom + c.maskMs / 1000) : nil
        if ringHoldJudges(dt: dt), Self.isSlowRate(dt: dt) {  // the slow ring hold starts again from the hit
            ringLevel.restart()
            oneModeRingLevel.restart()
        }
        state = .masked(until: maskFrom + c.maskMs / 1000)
        return hit
    }
}

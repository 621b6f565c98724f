/// Which way a stick's strike swings z at slow rates, as a pad's own loud hits vote it (the
/// adaptive detector's `strikeSign`, which its rebound test judges by): each hit of
/// `AdaptiveDetector.pushMaximumG` or more votes for the way it swung further, and a majority of
/// `strikeVotesNeeded` (under about 170 Hz) or `midRateStrikeVotesNeeded` (from there) decides;
/// until then, the side gravity reads on z.
///
/// From about 170 Hz a hit votes only where it swung one way at least `strikeVoteMargin` times
/// as far as the other: a strike read past full scale on one side swings to that rail and a
/// little past it the other (our 250 Hz stands' strikes: 3.0 g up, clipped, 3.6-3.9 g down), and
/// such hits would vote the way of the farther rail. A strike past both rails still does where
/// they are far apart (a ±4 g sensor resting at 1 g: 3 g up, 5 g down). Under it every loud hit
/// votes, as before the margin: the independent phones' strokes swing less plainly one way, and
/// the margin cost them hits.
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct StrikeVotes: Sendable {
    /// Loud hits whose z rose more than it fell, less those that fell more, held within
    /// ±`AdaptiveDetector.strikeVotesHeld`.
    private(set) var votes = 0

    /// Takes a loud hit's swing up (`rise`) and down (`fall`) from z's level, at a sample period
    /// under about 170 Hz (`slow`) or not.
    mutating func vote(rise: Double, fall: Double, slow: Bool) {
        let margin = slow ? 1 : AdaptiveDetector.strikeVoteMargin
        guard max(rise, fall) >= margin * min(rise, fall) else { return }
        let held = AdaptiveDetector.strikeVotesHeld
        votes = max(-held, min(held, votes + (rise > fall ? 1 : -1)))
    }

    /// The way, +1 or −1: the votes' where enough have decided at a sample period under about
    /// 170 Hz (`slow`) or not; else the side gravity reads on z (`level`: a pad face up reads
    /// +1 g), or +1 where the sensor removed gravity.
    func sign(level: Double, slow: Bool) -> Double {
        let needed = slow ? AdaptiveDetector.strikeVotesNeeded : AdaptiveDetector.midRateStrikeVotesNeeded
        if abs(votes) >= needed { return votes > 0 ? 1 : -1 }
        return level <= -AdaptiveDetector.gravityPresentG ? -1 : 1
    }
}

extension StandModel {
    /// Whether a hit of `strength` g on `pad` at `strikeMicros` (not yet learned) is a shake of
    /// its whole stand (`Configuration.shakenPads`): under `shakeMaximumG`, with hits already
    /// seen on at least `shakenPads` − 1 other pads, each within the slower pad's sensor period
    /// + 1 ms of it and within `shakeRatio` of its strength, and no hit of `shakeMaximumG` or
    /// more on any other pad within that time of it. Returns the ids of those other pads' hits
    /// (the shake's other readings, some perhaps still waiting to play), or nil where it is no
    /// shake.
    ///
    /// Only pads sampling at about 170 Hz or faster (`slowestMidPeriod`) that said their rate
    /// judge and are counted: slower, a pad reads a stroke anywhere from a tenth of it to whole,
    /// so its strokes read alike with its neighbours' crosstalk of them (on our 100 Hz stands,
    /// 25 strokes went), and a pad that never said its rate may be that slow. A slow pad's loud
    /// hit still rules a shake out.
    ///
    /// Any hit counts as a reading: played, judged crosstalk or felt as a push. The pads are
    /// not asked to share a learned stand: a shake comes before any strike has taught one, and
    /// three pads on different stands alike within a period, with no strike among them, are
    /// not strokes either. A loud hit arriving after the shake was judged cannot undo it (a
    /// soft stroke struck with a neighbour's loud one whose report comes later, while two other
    /// pads' crosstalk of it read alike): the replays, in the pads' own arrival order, lost one
    /// stroke of about 16,700 to the rule.
    public func shake(of pad: Int, strikeMicros: Int64, strength: Double) -> [UInt32]? {
        let c = configuration
        guard c.shakenPads > 1, c.shakeRatio >= 1, strength.isFinite, strength > 0, strength < c.shakeMaximumG,
              pad >= 0, pad < padKeys.count, judgesShake(pad) else { return nil }
        var alike: [UInt32] = []
        var pads: Set<Int> = []
        for other in recent where other.pad != pad {
            let within = max(periods[pad], periods[other.pad]) + 1_000
            let lag = other.strikeMicros.saturatingSubtract(strikeMicros)
            guard lag >= -within && lag <= within else { continue }
            if other.strength >= c.shakeMaximumG { return nil }
            guard judgesShake(other.pad), other.strength * c.shakeRatio >= strength,
                  other.strength <= c.shakeRatio * strength else { continue }
            alike.append(other.id)
            pads.insert(other.pad)
        }
        return pads.count + 1 >= c.shakenPads ? alike : nil
    }

    /// Whether `pad`'s readings judge and count for a shake: it said its rate, about 170 Hz or
    /// faster (`slowestMidPeriod`).
    private func judgesShake(_ pad: Int) -> Bool {
        ratesSaid[pad] && periods[pad] <= Self.slowestMidPeriod
    }
}

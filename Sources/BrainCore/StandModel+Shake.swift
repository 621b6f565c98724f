extension StandModel {
    /// Whether a hit of `strength` g on `pad` at `strikeMicros` (not yet learned) is a shake of
    /// its whole stand (`Configuration.shakenPads`): under `shakeMaximumG`, with hits already
    /// seen on at least `shakenPads` − 1 other pads within the slower pad's sensor period + 1 ms
    /// of it, each within `shakeRatio` of its strength, and no hit of `shakeMaximumG` or more
    /// on another pad within that time. Returns the ids of those other pads' hits (the shake's
    /// other readings, some perhaps still waiting to play), or nil where it is no shake.
    ///
    /// Only pads sampling at about 170 Hz or faster (`slowestMidPeriod`) judge and are counted:
    /// slower, a pad reads a stroke anywhere from a tenth of it to whole, so its strokes read
    /// alike with its neighbours' crosstalk of them (on our 100 Hz stands, 25 strokes went).
    ///
    /// Any hit counts as a reading: played, judged crosstalk or felt as a push. The pads are
    /// not asked to share a learned stand: a shake comes before any strike has taught one, and
    /// three pads on different stands alike within a period, with no strike among them, are
    /// not strokes either.
    public func shake(of pad: Int, strikeMicros: Int64, strength: Double) -> [UInt32]? {
        let c = configuration
        guard c.shakenPads > 1, c.shakeRatio >= 1, strength.isFinite, strength > 0, strength < c.shakeMaximumG,
              pad >= 0, pad < padKeys.count, periods[pad] <= Self.slowestMidPeriod else { return nil }
        var alike: [UInt32] = []
        var pads: Set<Int> = []
        for other in recent where other.pad != pad && periods[other.pad] <= Self.slowestMidPeriod {
            let within = max(periods[pad], periods[other.pad]) + 1_000
            guard abs(other.strikeMicros.saturatingSubtract(strikeMicros)) <= within else { continue }
            if other.strength >= c.shakeMaximumG { return nil }
            guard other.strength * c.shakeRatio >= strength, other.strength <= c.shakeRatio * strength else { continue }
            alike.append(other.id)
            pads.insert(other.pad)
        }
        return pads.count + 1 >= c.shakenPads ? alike : nil
    }
}

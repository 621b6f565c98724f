import BrainCore
import Testing

/// A pad in its first hits on a swaying stand (`StandModel.Configuration.unplayedSwayShare`):
/// while a slow pad has played fewer than `unplayedHits` hits, a neighbour whose pair has not
/// learned a coupling sways it too, at a share of the coupling as now weighed; a played pad, a
/// hit stronger than that sway and a fast pad are left alone.
struct UnplayedSwayTests {
    /// Pads `a` (100 Hz) and `b` (`bRateHz`), both greeted; `a` strikes 12 times (5 g, 400 ms
    /// apart) and `b` never answers them, so the pair a → b learns no coupling; `b` strikes
    /// alone `bStrikes` times (1 g, 250 ms after one of `a`'s, from the second on). Returns the
    /// decisions and the next hit's number.
    static func stand(bStrikes: Int = 0, bRateHz: Double = 100, share: Double? = nil) -> (StandCrosstalk, UInt32) {
        var configuration = StandModel.Configuration()
        if let share { configuration.unplayedSwayShare = share }
        let stands = StandCrosstalk(model: StandModel(configuration))
        stands.greet(padKey: "a", rateHz: 100)
        stands.greet(padKey: "b", rateHz: bRateHz)
        var id: UInt32 = 0
        for k in 0..<12 {
            let t = 1000 + Double(k) * 400
            id += 1
            _ = StandModelTests.decide(stands, "a", t, 5, id: id, rateHz: 100)
            if k >= 1 && k <= bStrikes {
                id += 1
                _ = StandModelTests.decide(stands, "b", t + 250, 1.0, id: id, rateHz: bRateHz)
            }
        }
        return (stands, id + 1)
    }

    /// `a` strikes 8 g at 10 s; `b` hits 200 ms after it with `strength` g. Whether `b`'s hit
    /// plays.
    static func plays(_ stands: StandCrosstalk, id: UInt32, strength: Double, bRateHz: Double = 100) -> Bool {
        _ = StandModelTests.decide(stands, "a", 10_000, 8, id: id, rateHz: 100)
        return StandModelTests.decide(stands, "b", 10_200, strength, id: id + 1, rateHz: bRateHz) != .crosstalk
    }

    /// An idle pad's 0.1 g hit 200 ms after an 8 g strike beside it, on a pair that never
    /// learned a coupling (its silences bound it to about 0.11), is the strike's sway (1.6 ×
    /// 0.5 × 0.11 × 8 g × e^-1.33 ≈ 0.19 g): counted as swayed and no source of crosstalk
    /// itself; with the rule off (0) it plays, past the pair's window.
    @Test func anIdlePadsHitOnAnUnlearnedNeighboursSwayIsCrosstalk() {
        let (stands, id) = Self.stand()
        #expect(!stands.model.couplings.contains { $0.source == "a" && $0.receiver == "b" })
        #expect(!Self.plays(stands, id: id, strength: 0.1))
        #expect(stands.counts.swayed == 1)
        #expect(!stands.model.recentIsSource(id: id + 1))
        let a = stands.model.padKeys.firstIndex(of: "a") ?? -1
        let b = stands.model.padKeys.firstIndex(of: "b") ?? -1
        #expect(stands.model.swayingPad(receiver: b, strikeMicros: 10_200_000, strength: 0.1) == a)
        let (off, offID) = Self.stand(share: 0)
        #expect(Self.plays(off, id: offID, strength: 0.1))
        #expect(off.counts.swayed == 0)
    }

    /// A hit stronger than the sway could cause plays: 0.3 g where the sway reaches about
    /// 0.19 g. At the whole coupling (share 1) the sway would reach 0.38 g and take it.
    @Test func aStrongerHitPlays() {
        let (stands, id) = Self.stand()
        #expect(Self.plays(stands, id: id, strength: 0.3))
        #expect(stands.counts.swayed == 0)
    }

    /// A pad that has played five hits (`unplayedHits`) is judged by learned pairs only: the
    /// same 0.1 g hit plays. Four played hits are not yet enough.
    @Test func aPlayedPadIsSwayedByLearnedPairsOnly() {
        let (played, playedID) = Self.stand(bStrikes: 5)
        #expect(!played.model.couplings.contains { $0.source == "a" && $0.receiver == "b" })
        #expect(Self.plays(played, id: playedID, strength: 0.1))
        let (first, firstID) = Self.stand(bStrikes: 4)
        #expect(!Self.plays(first, id: firstID, strength: 0.1))
    }

    /// A fast pad (1.6 kHz) is not judged by the sway at all: its detector tells a push from a
    /// stroke itself.
    @Test func aFastPadIsNotJudgedByTheSway() {
        let (stands, id) = Self.stand(bRateHz: 1600)
        #expect(Self.plays(stands, id: id, strength: 0.1, bRateHz: 1600))
    }
}

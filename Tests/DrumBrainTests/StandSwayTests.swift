import BrainCore
import Testing

/// A stand's sway judged by the brain (`StandModel.swayingPad`,
/// `StandModel.Configuration.swayCrosstalkShare`): a slow pad's hit on the sway a learned
/// neighbour's strike set going, past the pair's window, is that strike's crosstalk; the pad's
/// own strokes, unlearned pairs and fast pads are left alone.
struct StandSwayTests {
    /// A stand of pads `a` and `b` (`bRateHz`; `a` at 100 Hz) after `a` has struck 12 times
    /// (5 g, 400 ms apart), each answered on `b` 2 ms later at `answer` of it (0: silent), and
    /// `b` has struck alone six times (1 g), `aloneMs` after every other strike of `a`: a played
    /// pad whose soft strikes are about 1 g. Returns the decisions and the next hit's number.
    static func stand(answer: Double, bRateHz: Double = 100, share: Double? = nil, aloneMs: Double = 200) -> (StandCrosstalk, UInt32) {
        var configuration = StandModel.Configuration()
        if let share { configuration.swayCrosstalkShare = share }
        let stands = StandCrosstalk(model: StandModel(configuration))
        var id: UInt32 = 0
        for k in 0..<12 {
            let t = 1000 + Double(k) * 400
            id += 1
            _ = StandModelTests.decide(stands, "a", t, 5, id: id, rateHz: 100)
            if answer > 0 {
                id += 1
                _ = StandModelTests.decide(stands, "b", t + 2, 5 * answer, id: id, rateHz: bRateHz)
            }
            if k % 2 == 1 {
                id += 1
                _ = StandModelTests.decide(stands, "b", t + aloneMs, 1.0, id: id, rateHz: bRateHz)
            }
        }
        return (stands, id + 1)
    }

    /// `a` strikes `strike` g at 10 s; `b` hits at `lag` ms after it with `strength` g. Whether
    /// `b`'s hit plays.
    static func plays(_ stands: StandCrosstalk, id: UInt32, strike: Double = 8, lag: Double, strength: Double,
                      bRateHz: Double = 100) -> Bool {
        _ = StandModelTests.decide(stands, "a", 10_000, strike, id: id, rateHz: 100)
        return StandModelTests.decide(stands, "b", 10_000 + lag, strength, id: id + 1, rateHz: bRateHz) != .crosstalk
    }

    /// The pair a → b has learned 6 %: a hit on `b` 120 ms after an 8 g strike on `a`, at 0.2 g
    /// (the sway there could cause 1.6 × 6 % × 2.5 (the margin, the pair's spread not yet
    /// known) × 8 g × e^-0.8 ≈ 0.86 g), is the sway's crosstalk, counted as such, and no source
    /// of crosstalk itself; with the rule off it plays (it is past the pair's window, 31 ms at
    /// 100 Hz, and its ring tail, 20 ms more). Nor does a hit of no strength (a bare one) or a
    /// felt push count as the sway's.
    @Test func aHitOnALearnedNeighboursSwayIsCrosstalk() {
        let (stands, id) = Self.stand(answer: 0.06)
        #expect(stands.model.couplings.contains { $0.source == "a" && $0.receiver == "b" })
        #expect(!Self.plays(stands, id: id, lag: 120, strength: 0.2))
        #expect(stands.counts.swayed == 1)
        #expect(!stands.model.recentIsSource(id: id + 1))
        let b = stands.model.padKeys.firstIndex(of: "b") ?? -1
        #expect(stands.model.swayingPad(receiver: b, strikeMicros: 10_125_000, strength: 0.2) != nil)
        #expect(stands.model.swayingPad(receiver: b, strikeMicros: 10_125_000, strength: 0) == nil)
        let push = stands.decide(padKey: "b", rateHz: 100, strikeMicros: 10_130_000, arrivalMicros: 10_130_000,
                                 strength: 0.2, id: id + 2, felt: true)
        #expect(push == .felt(takeBack: []) && stands.model.recentIsSource(id: id + 2), "\(push)")
        #expect(stands.counts.swayed == 1)
        let (off, offID) = Self.stand(answer: 0.06, share: 0)
        #expect(Self.plays(off, id: offID, lag: 120, strength: 0.2))
        #expect(off.counts.swayed == 0)
    }

    /// The pad's own stroke in the sway plays: at 0.85 g (over 0.8 of its soft strikes,
    /// `swayOwnShare`), 80 ms after a 16 g strike whose sway could cause 1.6 × 6 % × 2.5 ×
    /// 16 g × e^-0.53 ≈ 2.25 g; and the sway decays (`swayCrosstalkMicros`): 0.2 g 600 ms after
    /// an 8 g strike plays (8 g × e^-4 × 6 % × 2.5 × 1.6 ≈ 0.035 g; over 300 ms it would be
    /// 0.26 g).
    @Test func thePadsOwnStrokesAndALateHitPlay() {
        let (own, ownID) = Self.stand(answer: 0.06)
        #expect(Self.plays(own, id: ownID, strike: 16, lag: 80, strength: 0.85))
        let (late, lateID) = Self.stand(answer: 0.06)
        #expect(Self.plays(late, id: lateID, lag: 600, strength: 0.2))
    }

    /// A pair that has not learned a coupling sways nothing once its receiver has played
    /// `unplayedHits` hits: `b` never answered `a` (a pad on another stand, or one whose
    /// crosstalk never showed) and has played six strokes 250 ms after `a`'s (past the sway that
    /// keeps a hit from counting as played, `swayShare`), and its 0.2 g hit 120 ms after `a`'s
    /// 8 g strike plays; the prior (0.2-0.3) would have swayed it (about 1.7 g). In its first
    /// hits such a pair sways it at a share of the prior (`UnplayedSwayTests`).
    @Test func anUnlearnedPairSwaysNothing() {
        let (stands, id) = Self.stand(answer: 0, aloneMs: 250)
        #expect(!stands.model.couplings.contains { $0.source == "a" && $0.receiver == "b" })
        #expect(Self.plays(stands, id: id, lag: 120, strength: 0.2))
    }

    /// A fast pad (1.6 kHz) is not judged by the sway: its detector tells a push from a stroke
    /// itself. The same learned pair and hit as `aHitOnALearnedNeighboursSwayIsCrosstalk`
    /// plays.
    @Test func aFastPadIsNotJudgedByTheSway() {
        let (stands, id) = Self.stand(answer: 0.06, bRateHz: 1600)
        #expect(stands.model.couplings.contains { $0.source == "a" && $0.receiver == "b" })
        #expect(Self.plays(stands, id: id, lag: 120, strength: 0.2, bRateHz: 1600))
    }
}

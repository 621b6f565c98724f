@testable import BrainCore
import Testing

/// A slow pad's rare answers sway it (`StandModel.Configuration.swayByAnswers`): a 100 Hz pad
/// fires only on the neighbour's shocks its samples fall on, so its pair answers a fifth of the
/// strikes or fewer and never couples (`minimumResponseRate`), while the pad reads the stand's
/// slow sway whole. A pair that has answered `minimumResponses` strikes sways it at its coupling
/// as now weighed, coupled or not.
struct AnsweredSwayTests {
    /// Pads `a` and `b`, both 100 Hz. `b` hits once alone at `floorG` (0.1 g: its detector's
    /// floor, so that its silences tell); `a` strikes 20 times (5 g, 400 ms apart); `b` answers
    /// every fourth strike (at most `answers` of them) at `answerG` (0.45 g: 9 %), 1 ms after
    /// it, and strikes `ownG` (3 g) 200 ms after every second one (a played pad, its soft
    /// strikes about 1 g). At the defaults the pair a → b then holds five answers at 9 % (a
    /// decaying count of about 4) and a response rate under 0.3 (0.28 measured): not coupled,
    /// its coupling weighed at the played prior, 0.2. Returns the decisions and the next hit's
    /// number.
    static func stand(answers: Int = 99, answerG: Double = 0.45, floorG: Double = 0.1, ownG: Double = 3,
                      bRateHz: Double = 100, swayByAnswers: Bool? = nil) -> (StandCrosstalk, UInt32) {
        var configuration = StandModel.Configuration()
        if let swayByAnswers { configuration.swayByAnswers = swayByAnswers }  // nil: the default
        let stands = StandCrosstalk(model: StandModel(configuration))
        stands.greet(padKey: "a", rateHz: 100)
        stands.greet(padKey: "b", rateHz: bRateHz)
        var id: UInt32 = 1
        _ = StandModelTests.decide(stands, "b", 500, floorG, id: id, rateHz: bRateHz)
        var answered = 0
        for k in 0..<20 {
            let t = 1000 + Double(k) * 400
            id += 1
            _ = StandModelTests.decide(stands, "a", t, 5, id: id, rateHz: 100)
            if k % 4 == 1 && answered < answers {
                answered += 1
                id += 1
                _ = StandModelTests.decide(stands, "b", t + 1, answerG, id: id, rateHz: bRateHz)
            }
            if k % 2 == 0 && ownG > 0 {
                id += 1
                _ = StandModelTests.decide(stands, "b", t + 200, ownG, id: id, rateHz: bRateHz)
            }
        }
        return (stands, id + 1)
    }

    /// The pair a → b as the model holds it now.
    static func pair(_ stands: StandCrosstalk) -> (pair: StandModel.Pair?, coupling: (value: Double, coupled: Bool)) {
        let a = stands.model.padKeys.firstIndex(of: "a") ?? -1, b = stands.model.padKeys.firstIndex(of: "b") ?? -1
        let key = StandModel.PairKey(source: a, receiver: b)
        return (stands.model.pairs[key], stands.model.coupling(key))
    }

    /// `a` strikes 8 g at 10 s; `b` hits `afterMs` later with `strength` g. Whether `b`'s hit
    /// plays.
    static func plays(_ stands: StandCrosstalk, id: UInt32, strength: Double, afterMs: Double = 120, bRateHz: Double = 100) -> Bool {
        _ = StandModelTests.decide(stands, "a", 10_000, 8, id: id, rateHz: 100)
        return StandModelTests.decide(stands, "b", 10_000 + afterMs, strength, id: id + 1, rateHz: bRateHz) != .crosstalk
    }

    /// A 0.4 g hit 120 ms after an 8 g strike, on a pair that answered four strikes but not
    /// enough of them to couple, is the strike's sway (1.6 × 0.2 × 8 g × e^-0.8 ≈ 1.15 g);
    /// with the rule off it plays (the pad is played, so pairs not coupled do not sway it).
    @Test func aRarelyAnsweringPairSwaysItsReceiver() {
        let (stands, id) = Self.stand()
        let (pair, coupling) = Self.pair(stands)
        #expect(!coupling.coupled && (pair?.responseRate ?? 1) < StandModel.Configuration().minimumResponseRate)
        #expect((pair?.responses ?? 0) >= Double(StandModel.Configuration().minimumResponses))
        #expect(!Self.plays(stands, id: id, strength: 0.4))
        #expect(stands.counts.swayed == 1)
        let (off, offID) = Self.stand(swayByAnswers: false)
        #expect(Self.plays(off, id: offID, strength: 0.4))
        #expect(off.counts.swayed == 0)
    }

    /// Answers counted as they fade (`minimumResponses`, 2, less each strike's forgetting): two
    /// answers are not enough yet and a 0.2 g hit plays, which the pair's coupling as weighed
    /// would sway (its silences bound it to about 3 × the pad's 0.1 g floor over the 8 g
    /// strike, 0.0375: 1.6 × 0.0375 × 8 g × e^-0.8 ≈ 0.22 g); from three it is swayed.
    @Test(arguments: [1, 2, 3])
    func aFewAnswersAreNeeded(answers: Int) {
        let (stands, id) = Self.stand(answers: answers)
        let enough = (Self.pair(stands).pair?.responses ?? 0) >= Double(StandModel.Configuration().minimumResponses) - 0.01
        #expect(enough == (answers >= 3))
        #expect(Self.plays(stands, id: id, strength: 0.2) == (answers < 3))
    }

    /// The sway is weighed by what the pair's answers show, not by the prior: answering at 4 %
    /// (0.2 g of 5 g; the pad's floor 0.05 g and its strokes 5 g, its soft strikes about 1.1 g),
    /// the pair is weighed at about 0.1, so a 0.7 g hit 120 ms after an 8 g strike plays
    /// (1.6 × 0.1 × 8 g × e^-0.8 ≈ 0.58 g), where the played prior (0.2) would sway up to
    /// 1.15 g; a 0.5 g hit is the sway's.
    @Test func thePairIsWeighedByItsAnswers() {
        let (stands, id) = Self.stand(answerG: 0.2, floorG: 0.05, ownG: 5)
        let (pair, coupling) = Self.pair(stands)
        #expect(!coupling.coupled && (pair?.responses ?? 0) >= 1.99 && coupling.value < 0.15, "\(coupling)")
        #expect(Self.plays(stands, id: id, strength: 0.7))
        let (weak, weakID) = Self.stand(answerG: 0.2, floorG: 0.05, ownG: 5)
        #expect(!Self.plays(weak, id: weakID, strength: 0.5))
    }

    /// Up to the prior: an idle 250 Hz pad (no strokes of its own) answering a 100 Hz pad's
    /// strikes at 16 % is weighed at about 0.4 (its answers × 2.5, under the prior raised for
    /// the faster sensor), but sways only up to `priorCoupling` (0.3): a 2 g hit 120 ms after an
    /// 8 g strike plays (1.6 × 0.3 × 8 g × e^-0.8 ≈ 1.7 g), a 1.5 g hit is the sway's.
    @Test func theSwayIsCappedAtThePrior() {
        let (stands, id) = Self.stand(answerG: 0.8, ownG: 0, bRateHz: 250)
        let (pair, coupling) = Self.pair(stands)
        #expect(!coupling.coupled && (pair?.responses ?? 0) >= 1.99 && coupling.value > 0.35, "\(coupling)")
        #expect(Self.plays(stands, id: id, strength: 2.0, bRateHz: 250))
        let (weak, weakID) = Self.stand(answerG: 0.8, ownG: 0, bRateHz: 250)
        #expect(!Self.plays(weak, id: weakID, strength: 1.5, bRateHz: 250))
    }

    /// The guards the rule keeps (this passes with the rule off too): the pad's own strokes in
    /// the sway still play, 0.9 g, over 0.8 of its soft strikes (`swayOwnShare`), and a 0.4 g
    /// hit 600 ms on, past what the sway could cause (2.56 g × e^-4 ≈ 0.05 g).
    @Test func thePadsOwnStrokesAndLaterHitsPlay() {
        let (stands, id) = Self.stand()
        #expect(Self.plays(stands, id: id, strength: 0.9))
        let (later, laterID) = Self.stand()
        #expect(Self.plays(later, id: laterID, strength: 0.4, afterMs: 600))
    }
}

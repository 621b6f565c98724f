import BrainCore
import Testing

/// A fast pad's silences (`StandModel.Configuration.fastIdleKeepsPrior`,
/// `fastPlayedKeepsPrior`): a 1.6 kHz pad keeps its pairs' bound through its silences, an idle
/// one always, a played one where the pair has answered of late.
struct FastIdleSilenceTests {
    /// Pads `snare` and `ride`, both at `rateHz` (1.6 kHz): the ride hits once alone (0.05 g, its
    /// softest), then, if `played`, three times alone at 6 g (a played pad, whose answers below read as
    /// crosstalk, not its own soft strokes), then the snare strikes 20
    /// times at 10 g, 250 ms apart, which the ride leaves silent (its detector let the smooth
    /// crosstalk by), but for every fifth of the first `answering` of them, which it answers 1 ms
    /// later at 0.6 g (6 %: too few to stay coupled); with `silentAfter` that many more strikes
    /// follow, unanswered. Then the snare strikes 11.6 g and the ride hits 1 ms later at 0.69 g
    /// (6 %): whether that hit plays.
    static func ridePlays(keepsPrior: Bool, played: Bool, rateHz: Double = 1600, playedKeepsPrior: Bool = true,
                          answering: Int = 0, silentAfter: Int = 0) -> Bool {
        var configuration = StandModel.Configuration()
        configuration.fastIdleKeepsPrior = keepsPrior
        configuration.fastPlayedKeepsPrior = playedKeepsPrior
        let stands = StandCrosstalk(model: StandModel(configuration))
        var id: UInt32 = 1
        _ = StandModelTests.decide(stands, "ride", 500, 0.05, id: id, rateHz: rateHz)
        if played {
            for k in 0..<3 {
                id += 1
                _ = StandModelTests.decide(stands, "ride", 1000 + Double(k) * 500, 6, id: id, rateHz: rateHz)
            }
        }
        for k in 0..<(20 + silentAfter) {
            id += 1
            _ = StandModelTests.decide(stands, "snare", 3000 + Double(k) * 250, 10, id: id, rateHz: rateHz)
            if k < answering && k % 5 == 0 {
                id += 1
                _ = StandModelTests.decide(stands, "ride", 3001 + Double(k) * 250, 0.6, id: id, rateHz: rateHz)
            }
        }
        id += 1
        let t = 3000 + Double(20 + silentAfter) * 250 + 2000
        _ = StandModelTests.decide(stands, "snare", t, 11.6, id: id, rateHz: rateHz)
        id += 1
        return StandModelTests.decide(stands, "ride", t + 1, 0.69, id: id, rateHz: rateHz) != .crosstalk
    }

    /// The idle ride's hit is the snare's crosstalk: its silences left the pair at the prior.
    /// Without the rule they bounded it to 3 × 0.05 g / 10 g = 1.5 %, and the hit played. An
    /// idle 250 Hz pad's silences still bound the pair, and its hit plays: its crosstalk mostly
    /// shows (the rule is for fast pads).
    @Test func anIdleFastPadsSilencesLeaveThePrior() {
        #expect(!Self.ridePlays(keepsPrior: true, played: false))
        #expect(Self.ridePlays(keepsPrior: false, played: false))
        #expect(Self.ridePlays(keepsPrior: true, played: false, rateHz: 250))
    }

    /// A played ride whose pair has answered of late (4 of the 20 strikes) keeps the prior
    /// through its silences too (`fastPlayedKeepsPrior`), and its hit is the snare's crosstalk;
    /// without that rule its silences bound the pair and the hit plays. One whose pair never
    /// answered (a pad on another stand) is bounded by its silences, and its hit plays, as a
    /// played 250 Hz pad's does. Each rule judges its own pads: the idle one's setting does not
    /// reach a played pad, nor the played one's an idle pad.
    @Test func aPlayedFastPadsSilencesLeaveThePriorWhereItsPairAnswers() {
        #expect(!Self.ridePlays(keepsPrior: true, played: true, answering: 20))
        #expect(Self.ridePlays(keepsPrior: true, played: true, playedKeepsPrior: false, answering: 20))
        #expect(Self.ridePlays(keepsPrior: true, played: true))
        #expect(Self.ridePlays(keepsPrior: true, played: true, rateHz: 250))
        #expect(!Self.ridePlays(keepsPrior: false, played: true, answering: 20))
        #expect(Self.ridePlays(keepsPrior: false, played: false, playedKeepsPrior: true, answering: 20))
        #expect(!Self.ridePlays(keepsPrior: true, played: false, playedKeepsPrior: false))
    }

    /// Answers fade (`fastPlayedAnswers`): a played ride that answered twice in the snare's first
    /// strikes and then stayed silent through 60 more is bounded by its silences again (its
    /// decaying count of answers, 2 % a strike, under 0.5), and its hit plays; after 10 more it
    /// still keeps the prior.
    @Test(arguments: [(10, false), (60, true)])
    func aPlayedFastPadsFadedAnswersLetItsSilencesBoundThePair(silentAfter: Int, plays: Bool) {
        #expect(Self.ridePlays(keepsPrior: true, played: true, answering: 10, silentAfter: silentAfter) == plays)
    }
}

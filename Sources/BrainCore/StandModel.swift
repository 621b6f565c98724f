#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// What the brain has learned of its stands: how much of a strike on one pad each other pad
/// feels, learned from the playing, with no configuration (docs/crosstalk.md, "Learned stands").
///
/// A strike shakes its stand, and the other pads on it feel a weak copy within a millisecond or
/// two: crosstalk. Per ordered pair of pads (source → receiver, keyed by pad, not drum) the model
/// keeps what the hits show, in hindsight, once every hit around a strike has arrived (`settle`):
/// - **strikes:** hits not judged crosstalk that no much stronger hit on another pad surrounds; a
///   strike with another strike around it on a third pad teaches nothing of the pair, nor one
///   around which the receiver struck too (`isOwnStrike`). A strike with no hit on another pad
///   around it that could have caused it is alone: one of the pad's own soft strikes (three
///   make it a played pad; not one within the sway of another pad's strikes: `swayShare`).
///   Once the pair exists, a hit on its source surrounds a strike, or keeps it from being
///   alone, only if the pair's coupling as now weighed could have caused it (`causeMargin`).
/// - **responses:** a receiver's hit in the window, much weaker than the strike (at most
///   `candidateRatio` of it, less where the receiver's sensor is slower, more where it is faster
///   but then weaker than the receiver's own soft strikes: `isResponse`). Their ratios give the
///   coupling (`estimate`: a running median, robust to the soft note played with a strike, which
///   only ever reads high).
/// - **silences:** a strike the receiver did not answer while it could have (past its own last
///   hit's mask and ringing, and the crosstalk believed well above its softest hit: for a pad
///   that has not struck alone, the softest of its hits of the last 3 s if higher,
///   `silenceFromRecentFloor`). They lower the response rate, and bound a pair that mostly
///   stays silent (`upper`): a coupling that large would have fired it. A pad on another stand
///   is bounded this way in a few strikes (an idle one that fires on its own stand's shaking,
///   in a few strikes loud enough to show over its hits of late).
///
/// A pair is *coupled* once it has answered `minimumResponses` strikes and at least
/// `minimumResponseRate` of those that could show through; until it has answered
/// `trustedResponses`, it counts for no more than the prior. Before any evidence, a pair is assumed
/// coupled up to `priorCoupling` (scaled by the pads' rates: `priorCoupling(_:)`), or
/// `playedPriorCoupling` where the receiver is a played pad, so the first strikes are already
/// judged; a receiver's own strike is weighed against the unscaled played prior.
///
/// A hit is crosstalk when the hits on other pads around it explain its strength (`Bound`): each
/// coupled pair's `margin` × coupling × source strength (less where a played receiver's
/// responses spread narrowly: `spreadFactor`), added up, plus the receiver's softest
/// hit (`floorAllowance`) for its own noise; the prior counts once, for the strongest neighbour.
/// Where the receiver's sensor is faster than the source's, the source's strength is also what
/// the other pads' crosstalk of it shows (`witnessed`).
/// The window is on strike times (one clock): one and a half sensor periods before the source
/// (two where the receiver's sensor is the faster), to the stand's lag, two periods and its
/// ringing after, then `ringTailMicros` more at
/// `ringTailShare` of the coupling (`unplayedRingTailMicros` on a pad that has hardly played, an
/// idle one, for a learned pair); a hit dated over a sensor period before the strike is weighed
/// against less of it, the earlier the less (`earlyShare`).
///
/// Forgetting: every learned value decays towards the prior with each new strike of its source
/// (`forgetting`), so a pad moved to another stand is learned afresh within tens of strikes.
///
/// Thread safety: a value type; the brain keeps it on its network thread.
public struct StandModel: Sendable {
    // Its settings: StandModel+Configuration.swift; a pair's evidence and the recent hits:
    // StandModel+Pair.swift; the state file: StandModel+State.swift.

    /// The settings in force.
    public let configuration: Configuration
    /// Pads by key (a name, or the connection), numbered in order of first hit.
    public private(set) var padKeys: [String] = []
    private var padIndex: [String: Int] = [:]
    /// Each pad's sample period, µs (`Configuration.defaultPeriodMicros` until it says its rate).
    private(set) var periods: [Int64] = []
    /// Whether each pad has said its rate (in its hello, or with a hit).
    private(set) var ratesSaid: [Bool] = []
    /// Each pad's softest hit (g), nil before its first.
    private var floors: [Double?] = []
    /// Each pad's loud level: its strongest hit, slowly forgotten (g).
    private var louds: [Double] = []
    /// Each pad's soft strikes: a low quantile of its strikes alone (no hit on another pad around
    /// them that could have caused them), in g, nil before the first.
    private var ownSofts: [Double?] = []
    /// How many strikes taught each pad's `ownSofts`.
    private var ownSoftCounts: [Int] = []
    /// How many hits each pad has played (not judged crosstalk, on arrival or taken back, nor
    /// felt, nor within another pad's sway), counted in hindsight (`settle`), up to `unplayedHits`.
    private var playedCounts: [Int] = []
    /// Each pad's last few hits (strike time, strength), oldest first: whether it could answer.
    private var histories: [[(micros: Int64, strength: Double)]] = []
    /// Each pad's last few strikes (strike time, strength), oldest first: its stand's sway
    /// (`swayShare`).
    private var swayStrikes: [[(micros: Int64, strength: Double)]] = []
    /// Evidence per ordered pair (source, receiver).
    public internal(set) var pairs: [PairKey: Pair] = [:]
    /// The hits of late, every pad's (a shake of the whole stand reads them: `shake`).
    private(set) var recent: [Recent] = []
    /// Pairs announced as sharing a stand, so each is said once.
    var announced: Set<PairKey> = []
    /// Pairs put back from a state file: kept in the next one even while their pads' rates, and
    /// so their priors, are not known yet.
    var restored: Set<PairKey> = []

    /// A model with nothing learned.
    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Hits kept per pad to tell whether it could answer a strike.
    static let historyLength = 6

    /// How far back an idle pad's recent hits count (`silenceFromRecentFloor`), µs: a few of its
    /// hits on a played stand (the independent phones' idle rides fire about once a second), and
    /// once it has been quiet that long, its softest hit ever again. 1 s and 3 s measured alike
    /// there, as did no limit.
    static let recentFloorMicros: Int64 = 3_000_000

    /// The softest of `pad`'s last few hits (`historyLength`) struck from `recentFloorMicros` to
    /// `margin` µs before `strikeMicros`, or nil if it has none there.
    private func recentSoftest(_ pad: Int, at strikeMicros: Int64, margin: Int64) -> Double? {
        var softest: Double?
        for hit in histories[pad] {
            let age = strikeMicros.saturatingSubtract(hit.micros)
            guard age > margin, age <= Self.recentFloorMicros else { continue }
            softest = min(softest ?? hit.strength, hit.strength)
        }
        return softest
    }

    /// Appends `strike` to a pad's `list`, keeping its `last` newest.
    private static func keep(_ strike: (micros: Int64, strength: Double), in list: inout [(micros: Int64, strength: Double)], last: Int) {
        list.append(strike)
        if list.count > last { list.removeFirst(list.count - last) }
    }

    /// Whether `receiver`'s detector could have answered crosstalk of `expected` g at
    /// `strikeMicros`: its own hits before then are past their mask and rang down below it.
    private func couldAnswer(_ receiver: Int, at strikeMicros: Int64, expected: Double, before: Int64) -> Bool {
        let c = configuration
        for hit in histories[receiver] {
            let age = strikeMicros.saturatingSubtract(hit.micros)
            guard age > before else { continue }  // the answer itself, or later
            if age < c.busyMicros { return false }
            if hit.strength * exp(-Double(age) / c.busyDecayMicros) > expected * 0.5 { return false }
        }
        return true
    }

    /// The most pads the model judges: a kit's worth. Each hit's evidence is weighed against
    /// every other pad, so a brain playing hundreds of pads (a load test) judges the first
    /// `maxPads` and lets the rest play undecided, rather than spend the network thread on it.
    public static let maxPads = 32

    /// The pad number for `key`, made on first sight (nil once `maxPads` are known); `rateHz`
    /// (when known) sets its period.
    public mutating func pad(_ key: String, rateHz: Double? = nil) -> Int? {
        let number: Int
        if let known = padIndex[key] {
            number = known
        } else {
            guard padKeys.count < Self.maxPads else { return nil }
            number = padKeys.count
            padKeys.append(key)
            padIndex[key] = number
            periods.append(configuration.defaultPeriodMicros)
            ratesSaid.append(false)
            floors.append(nil)
            louds.append(0)
            ownSofts.append(nil)
            ownSoftCounts.append(0)
            playedCounts.append(0)
            histories.append([])
            swayStrikes.append([])
        }
        if let rateHz, rateHz.isFinite, rateHz >= 1 {
            periods[number] = Int64((1e6 / rateHz).rounded())
            ratesSaid[number] = true
        }
        return number
    }

    /// The coupling used for decisions on `pair` now, and whether it is learned (coupled): the
    /// learned one × `margin` (no more than the prior until the pair has answered
    /// `trustedResponses` strikes), or before that the prior (`playedPriorCoupling` once the
    /// receiver's own strikes are known), or lower where the pair's silences bound it (but a
    /// receiver slower than 500 Hz no lower than its answers show × `margin` while it still
    /// answers: `slowAnswersHold`) or, on a pad that has played `unplayedHits` hits, what its
    /// answers show (`unlearnedFactor`).
    public func coupling(_ key: PairKey) -> (value: Double, coupled: Bool) {
        let c = configuration
        let prior = isPlayed(key.receiver) ? playedPrior * rateFactor(key.source, key.receiver) : priorCoupling(key)
        guard let pair = pairs[key] else { return (prior, false) }
        if let estimate = pair.estimate, hasAnsweredEnough(pair), pair.responseRate >= c.minimumResponseRate {
            // Until the pair has answered `trustedResponses` strikes, what it learned counts for
            // no more than the prior: the first responses may be the receiver's own strokes,
            // struck with the source's before its own strikes were known.
            let learned = estimate * (isPlayed(key.receiver) ? margin(pair, estimate: estimate) : c.margin)
            return (pair.responses < c.trustedResponses ? min(learned, prior) : learned, true)
        }
        // Not coupled: its silences bound it, but a slow receiver's no lower than its answers
        // show (`slowAnswersHold`).
        var upper = pair.upper
        if c.slowAnswersHold, !isFast(key.receiver), let estimate = pair.estimate,
           hasAnsweredEnough(pair), pair.responseRate >= c.slowAnswersRate {
            upper = max(upper, estimate * c.margin)
        }
        // It has answered: on a pad that has played `unplayedHits` hits, what the answers show
        // bounds it too.
        if c.unlearnedFactor > 0, let estimate = pair.estimate, estimate > 0, playedCounts[key.receiver] >= c.unplayedHits {
            return (min(prior, upper, estimate * c.margin * c.unlearnedFactor), false)
        }
        return (min(prior, upper), false)
    }

    /// How far above its learned coupling a played receiver's hit is still the pair's crosstalk:
    /// `margin`, or less where the pair's responses spread narrowly (`spreadFactor`).
    func margin(_ pair: Pair, estimate: Double) -> Double {
        let c = configuration
        guard c.spreadFactor > 0, let high = pair.highRatio, estimate > 0 else { return c.margin }
        return min(c.margin, max(c.leastMargin, c.spreadFactor * high / estimate))
    }

    /// How strong a hit `other`'s pad could have caused on `receiver`, in hindsight
    /// (`causeMargin`): nil (any) until the pair exists (the source has struck since the
    /// receiver was known) or with the rule off, then the pair's coupling as now weighed (its
    /// prior until it learns) × the strength as `witnessed` takes it (what the other pads felt of
    /// it where the receiver's sensor is the faster, the source's loud level where the receiver
    /// has played nothing yet), × `causeMargin`.
    private func caused(by other: Recent, on receiver: Int) -> Double? {
        let key = PairKey(source: other.pad, receiver: receiver)
        guard configuration.causeMargin > 0, pairs[key] != nil, other.strength > 0 else { return nil }
        let seen = witnessed(other.pad, id: other.id, at: other.strikeMicros, strength: other.strength, for: receiver)
        return coupling(key).value * seen * configuration.causeMargin
    }

    /// Whether `pad`'s own strikes are known: it has struck `ownSoftStrikes` times alone (a
    /// played pad, not an idle one).
    private func isPlayed(_ pad: Int) -> Bool { ownSoftCounts[pad] >= configuration.ownSoftStrikes }

    /// The prior a played receiver is judged by, before the rates (`playedPriorCoupling`, no
    /// higher than `priorCoupling`).
    private var playedPrior: Double { min(configuration.playedPriorCoupling, configuration.priorCoupling) }

    /// Whether `receiver`'s silences leave `pair`'s bound where it is: a fast receiver's
    /// detector lets most smooth crosstalk by unreported, so an idle one's never bound it
    /// (`fastIdleKeepsPrior`), nor a played one's while the pair answers of late
    /// (`fastPlayedKeepsPrior`, `fastPlayedAnswers`).
    private func silencesKeepBound(_ pair: Pair, on receiver: Int) -> Bool {
        let c = configuration
        guard isFast(receiver) else { return false }
        return isPlayed(receiver) ? c.fastPlayedKeepsPrior && pair.responses >= c.fastPlayedAnswers : c.fastIdleKeepsPrior
    }

    /// Whether `pair` has answered `minimumResponses` strikes (its decaying count).
    private func hasAnsweredEnough(_ pair: Pair) -> Bool {
        pair.responses >= Double(configuration.minimumResponses) - 0.01
    }

    /// The coupling assumed for `key` before any evidence (for an idle receiver: a played one is
    /// judged by `playedPriorCoupling` in its place, `coupling(_:)`): `priorCoupling` times the pads' rate
    /// factor (their period ratio to `rateExponent`, as `candidateRatio(_:_:)` has it): lowered
    /// where the source's sensor is faster than the receiver's, raised the other way. A 1.6 kHz
    /// pad reads a shock nearly whole and a 100 Hz one a tenth to a third of it, so what a
    /// 1.6 kHz hit can cause on a 100 Hz pad, read there, is a fraction of the 1.6 kHz reading,
    /// and what a 100 Hz pad's strike causes on a 1.6 kHz pad may be as strong as the 100 Hz
    /// reading or more: the idle ride of the simulated mixed-rates stands read it at 0.5-1.1
    /// times in their first seconds, and played it. A hit that is one of the receiver's own
    /// strikes is not weighed against the raised prior (`crosstalk(from:at:strength:on:at:reading:longTail:)`).
    func priorCoupling(_ key: PairKey) -> Double {
        configuration.priorCoupling * rateFactor(key.source, key.receiver)
    }

    /// The window, µs, within which a strike on `source` can cause a hit on `receiver`: from one
    /// and a half of the longer period (+ 1 ms) before it to the stand's lag and two such periods
    /// (+ 1 ms) after (a detector dates a weak hit's onset a sample or two late: on the simulated
    /// stands, 8–9.4 ms after its cause at 250 Hz). Before: both onsets are dated to a sample,
    /// the strong one's often a sample late; on the simulated stands' 100 Hz phones one
    /// crosstalk hit in a hundred was dated over 14 ms before its cause, one in 483 over 16 ms,
    /// while a flam's grace note, struck 15–40 ms before its main stroke, was dated within 21 ms
    /// of it 134 times in 340 and within 16 ms 70 times (with two periods, 119 grace notes of
    /// seeds 1–28 were taken for the main stroke's crosstalk). Where the receiver's sensor is
    /// the faster, its hit is dated closely and the source's lateness shows whole: two of the
    /// longer periods (+ 1 ms) before (a 1.6 kHz pad's crosstalk of a 100 Hz pad's strike was
    /// dated up to 20.7 ms before it).
    func window(_ source: Int, _ receiver: Int) -> (before: Int64, after: Int64) {
        let period = max(periods[source], periods[receiver])
        let before = periodRatio(source, receiver) > 1 ? 2 * period + 1_000 : 3 * period / 2 + 1_000
        return (before, configuration.lagMicros + 2 * period + 1_000 + configuration.ringMicros)
    }

    /// The longest a hit on `receiver` may wait for the strike that could explain it to arrive:
    /// one sensor period of the pads involved plus 1 ms (nil when no pad could cause it). A hit
    /// waits when the other pads' loud strikes together could cause it (a unison's crosstalk
    /// adds up: an idle pad was found playing one whose second strike arrived 0.9 ms after it),
    /// each pad's loud level taken as at least `assumedLoud` until it has played one.
    public func hold(for receiver: Int, strength: Double) -> Int64? {
        var longest: Int64?
        var together = 0.0
        for source in padKeys.indices where source != receiver {
            let loud = max(louds[source], configuration.assumedLoud)
            together += assumedCoupling(from: source, on: receiver, reading: strength, of: loud) * loud
            longest = max(longest ?? 0, max(periods[source], periods[receiver]) + 1_000)
        }
        guard strength <= together else { return nil }
        return longest
    }

    /// Decides whether the hit on pad `receiver`, struck at `strikeMicros` with `strength` g, is
    /// crosstalk of the hits already seen on other pads around it; returns the strongest such
    /// hit's id (and pad) if so. Crosstalk adds up: a pad between two pads struck together feels
    /// both, so the hit is weighed against the sum of what each can cause. `felt`: a push the pad
    /// felt, which never plays, so the long tail of an idle pad's stand (`unplayedRingTailMicros`)
    /// does not judge it.
    public func explainingHit(receiver: Int, strikeMicros: Int64, strength: Double, felt: Bool = false) -> (id: UInt32, pad: Int)? {
        let (bound, strongest) = crosstalkBound(on: receiver, at: strikeMicros, strength: strength, longTail: !felt)
        guard let strongest, strength <= bound.value(allowance: floorAllowance(receiver)) else { return nil }
        return strongest
    }

    /// What the recent source hits on other pads (but `excluding`) can cause together on
    /// `receiver`'s hit of `strength` g at `strikeMicros`, and the one that contributes most.
    private func crosstalkBound(on receiver: Int, at strikeMicros: Int64, strength: Double, excluding: UInt32? = nil,
                                longTail: Bool = true)
        -> (bound: Bound, strongest: (id: UInt32, pad: Int)?)
    {
        var bound = Bound()
        var strongest: (id: UInt32, pad: Int, share: Double)?
        for earlier in recent where earlier.pad != receiver && earlier.isSource && earlier.id != excluding {
            guard let share = crosstalk(from: earlier.pad, at: earlier.strikeMicros,
                                        strength: witnessed(earlier.pad, id: earlier.id, at: earlier.strikeMicros,
                                                            strength: earlier.strength, for: receiver),
                                        on: receiver, at: strikeMicros, reading: strength, longTail: longTail) else { continue }
            bound.add(share, coupled: coupling(PairKey(source: earlier.pad, receiver: receiver)).coupled)
            if share > strongest?.share ?? 0 { strongest = (earlier.id, earlier.pad, share) }
        }
        return (bound, strongest.map { ($0.id, $0.pad) })
    }

    /// The most a response on `receiver` can be of a strike on `source`, as a ratio of
    /// strengths: `candidateRatio`, raised when the receiver's sensor is faster. A strike's shock
    /// lasts 1-3.5 ms: a 1.6 kHz sensor reads it nearly whole, a 100 Hz one behind its 45 Hz
    /// low-pass a tenth to a third of it, so crosstalk read at 1.6 kHz of a strike read at
    /// 100 Hz can be as strong as the strike.
    func candidateRatio(_ source: Int, _ receiver: Int) -> Double {
        configuration.candidateRatio * max(1, rateFactor(source, receiver))
    }

    /// Whether a hit of `strength` g on `receiver`, in the window of a strike of `strike` g on
    /// `source`, can be its crosstalk (a response) rather than a strike of its own.
    ///
    /// Between pads of one rate: at most `candidateRatio` of the strike. A slower receiver reads
    /// a faster pad's crosstalk as a fraction of what that pad reads of its strike, so the ratio
    /// is lowered as the prior is (a 100 Hz floortom's own strikes, read at 0.1-1 g, struck
    /// with a 1.6 kHz ride's 8ths, were learned as its crosstalk and then cancelled by it). A
    /// faster receiver may read more than the source read of its strike (`candidateRatio(_:_:)`),
    /// but a hit above what a pad of the source's rate could feel must also be weaker than
    /// `ownSoftShare` of the receiver's own soft strikes: a ride's 8ths struck with a 250 Hz
    /// snare's backbeats on another stand were learned as its crosstalk, at 40-140 % of it.
    ///
    /// A hit that is one of the receiver's own strikes (`isOwnStrike`) is no response.
    func isResponse(_ strength: Double, of strike: Double, from source: Int, on receiver: Int) -> Bool {
        let c = configuration
        let factor = rateFactor(source, receiver)
        // A hit of no strength (a bare or zeroed one) tells nothing of the coupling, and a
        // ratio of 0 would hold the median there (its steps are shares of itself).
        guard strength > 0, strength <= c.candidateRatio * factor * strike else { return false }
        if isOwnStrike(strength, of: strike, from: source, on: receiver) { return false }
        guard factor > 1, strength > c.candidateRatio * strike, c.ownSoftShare > 0,
              isPlayed(receiver), let soft = ownSofts[receiver] else { return true }
        return strength < c.ownSoftShare * soft
    }

    /// Whether a hit of `strength` g on `receiver`, around a strike of `strike` g on `source`, is
    /// one of the receiver's own strikes: at least `ownStrikeShare` of its soft strikes, once they
    /// are known, and, where the receiver's sensor is faster, above what a pad of the source's
    /// rate could feel of the strike (`candidateRatio`; below it, `isResponse`'s rule decides).
    /// A ride keeping 8ths on the snare's stand strikes with most backbeats; where a 100 or
    /// 200 Hz sensor read a stroke under 35 % of the backbeat, it was taken for the snare's
    /// crosstalk, and the ride learned to feel 15-27 % of the snare (the truth: 3-10 %) and lost
    /// the strokes struck with it (the ride-kit stands, docs/crosstalk.md). A 1.6 kHz ride's
    /// 8ths struck with a 250 Hz snare's backbeats on another stand counted as its answers, so
    /// the pair kept its prior and the snare took the strokes back (two-stands:mixed).
    func isOwnStrike(_ strength: Double, of strike: Double, from source: Int, on receiver: Int) -> Bool {
        let c = configuration
        guard c.ownStrikeShare > 0, isPlayed(receiver), let soft = ownSofts[receiver],
              strength >= c.ownStrikeShare * soft else { return false }
        return rateFactor(source, receiver) <= 1 || strength > c.candidateRatio * strike
    }

    /// Strikes kept per pad for its sway.
    static let swayLength = 6

    /// `source`'s sway on `receiver` at `micros`: the strongest of its strikes before then and
    /// past the pair's window (whose hits the window judges), each decaying over `decayMicros`
    /// (`swayMicros` unless given).
    private func sway(_ source: Int, on receiver: Int, at micros: Int64, decayMicros: Int64? = nil) -> Double {
        let after = window(source, receiver).after
        let decay = Double(decayMicros ?? configuration.swayMicros)
        var most = 0.0
        for strike in swayStrikes[source] {
            let age = micros.saturatingSubtract(strike.micros)
            guard age > after else { continue }
            most = max(most, strike.strength * exp(-Double(age) / decay))
        }
        return most
    }

    /// Whether `receiver`'s hits are judged by a stand's sway (`swayingPad`): the rule is on
    /// and its sensor is slower than a fast one's (`slowestFastPeriod`: a fast pad's detector
    /// tells a push itself).
    public func judgesSway(_ receiver: Int) -> Bool {
        let c = configuration
        return c.swayCrosstalkShare > 0 && c.swayCrosstalkMicros > 0 && receiver >= 0 && receiver < padKeys.count
            && !isFast(receiver)
    }

    /// The first neighbour (in pad order) whose sway alone explains a hit of `strength` g on
    /// `receiver` at `strikeMicros` (`swayCrosstalkShare`), or nil: the hit is that sway's
    /// crosstalk. A neighbour whose pair has learned a coupling, or has answered
    /// `minimumResponses` strikes without coupling (`swayByAnswers`); on a pad in its first hits
    /// (`unplayedHits`), any other too, at `unplayedSwayShare` of the coupling as now weighed.
    /// Sways of several neighbours are not added up. Only the strikes settled
    /// so far sway (`settle(before:)` first), and of those the ones `settle` took as strikes:
    /// not felt, not judged crosstalk, no much stronger hit around them, nor within another
    /// pad's sway (`swayShare`).
    public func swayingPad(receiver: Int, strikeMicros: Int64, strength: Double) -> Int? {
        let c = configuration
        guard judgesSway(receiver), strength.isFinite, strength > 0 else { return nil }
        if isPlayed(receiver), let soft = ownSofts[receiver], strength >= c.swayOwnShare * soft { return nil }
        // A pair not yet coupled may be one the pad's crosstalk is too weak to fire on, so it
        // sways a pad in its first hits at a share of its coupling (an idle pad's pairs stay
        // unlearned for a minute); and one that has answered a few strikes, too seldom to
        // couple, sways any slow pad, up to the prior: a 100 Hz pad fires only on the shocks its
        // samples fall on, yet reads the slow sway whole (`swayByAnswers`).
        let unlearnedShare = playedCounts[receiver] < c.unplayedHits ? c.unplayedSwayShare : 0
        for source in padKeys.indices where source != receiver && !swayStrikes[source].isEmpty {
            let key = PairKey(source: source, receiver: receiver)
            let (weighed, coupled) = coupling(key)
            let answered = c.swayByAnswers && pairs[key].map { $0.estimate != nil && hasAnsweredEnough($0) } == true
            let value = coupled ? weighed : (answered ? 1 : unlearnedShare) * min(weighed, c.priorCoupling)
            guard value > 0 else { continue }
            let sway = sway(source, on: receiver, at: strikeMicros, decayMicros: c.swayCrosstalkMicros)
            if c.swayCrosstalkShare * value * sway >= strength { return source }
        }
        return nil
    }

    /// A strike of `strength` on `pad` at `micros` (in hindsight: `settle`) sets its stand swaying.
    private mutating func addSway(_ pad: Int, at micros: Int64, strength: Double) {
        let c = configuration
        guard c.swayShare > 0 && c.swayMicros > 0 || c.swayCrosstalkShare > 0 && c.swayCrosstalkMicros > 0,
              strength.isFinite, strength > 0 else { return }
        Self.keep((micros, strength), in: &swayStrikes[pad], last: Self.swayLength)
    }

    /// Whether a hit of `strength` on `receiver` at `micros` is no more than another pad's sway
    /// could cause: `swayShare` × the pair's coupling as now weighed (`coupling(_:)`: the prior,
    /// what silences bound it to, what a slow receiver's answers hold it at, or what it learned
    /// × `margin`), never over `priorCoupling` (a
    /// faster receiver's prior is raised), × that sway.
    private func isSwayed(_ receiver: Int, at micros: Int64, strength: Double) -> Bool {
        let c = configuration
        guard c.swayShare > 0, c.swayMicros > 0 else { return false }
        for source in padKeys.indices where source != receiver && !swayStrikes[source].isEmpty {
            let key = PairKey(source: source, receiver: receiver)
            if c.swayShare * min(coupling(key).value, c.priorCoupling) * sway(source, on: receiver, at: micros) >= strength { return true }
        }
        return false
    }

    /// Takes a strike on `pad` that no hit on another pad surrounds into its soft strikes: over
    /// its first `ownSoftStrikes`, their geometric mean (one stray light tap does not set it),
    /// then a low quantile (`ownSoftQuantile`), tracked in steps of a tenth.
    private mutating func learnOwnStrike(_ pad: Int, strength: Double) {
        let n = min(ownSoftCounts[pad] + 1, Int.max / 2)
        ownSoftCounts[pad] = n
        guard let soft = ownSofts[pad], n > configuration.ownSoftStrikes else {
            let before = ownSofts[pad].map { log($0) * Double(n - 1) } ?? 0
            ownSofts[pad] = exp((before + log(strength)) / Double(n))
            return
        }
        let q = configuration.ownSoftQuantile
        ownSofts[pad] = strength < soft ? max(strength, soft * 0.9) : soft * (1 + 0.1 * q / (1 - q))
    }

    /// What a receiver's detector adds to any crosstalk it fires on, whatever its cause: near its
    /// softest hits, its own noise and where its samples fell decide the strength read, not the
    /// coupling, so a ratio of two weak hits says little.
    private func floorAllowance(_ receiver: Int) -> Double {
        configuration.floorAllowance * (floors[receiver] ?? configuration.defaultFloor)
    }

    /// The most crosstalk a hit on `source` (at `sourceMicros`, `strength` g) can cause on
    /// `receiver`'s hit read at `reading` g at `receiverMicros`: nil outside the pair's window.
    /// Before the pair is learned, a hit that is one of the receiver's own strikes
    /// (`isOwnStrike`) is weighed against the prior of pads of one rate, not the raised one of a
    /// faster receiver (`priorCoupling(_:)`): that guess must not cancel a 1.6 kHz ride's
    /// strokes struck with a 250 Hz snare's backbeats on another stand.
    private func crosstalk(from source: Int, at sourceMicros: Int64, strength: Double, on receiver: Int,
                           at receiverMicros: Int64, reading: Double, longTail: Bool = true) -> Double? {
        let w = window(source, receiver)
        let lag = receiverMicros.saturatingSubtract(sourceMicros)
        let c = configuration
        let reached = lag <= w.after.saturatingAdd(c.ringTailMicros)
            || longTail && lag <= w.after.saturatingAdd(c.longestRingTail) && ringsLong(from: source, on: receiver)
        guard lag >= -w.before && reached else { return nil }
        // Past the window, the stand's ringing: fading, and only ever weak.
        var fading = lag > w.after ? configuration.ringTailShare : 1
        // Dated over a period before its cause: seldom crosstalk, often a flam's grace note.
        let period = max(periods[source], periods[receiver])
        if configuration.earlyShare < 1, lag < -period, w.before > period {
            let into = Double(-lag - period) / Double(w.before - period)
            fading *= 1 - (1 - configuration.earlyShare) * min(1, into)
        }
        return assumedCoupling(from: source, on: receiver, reading: reading, of: strength) * strength * fading
    }

    /// Whether `source`'s ringing reaches `receiver`'s hits for `unplayedRingTailMicros` past the
    /// window: the pair is learned, and the receiver has played fewer than `unplayedHits` hits.
    private func ringsLong(from source: Int, on receiver: Int) -> Bool {
        playedCounts[receiver] < configuration.unplayedHits && coupling(PairKey(source: source, receiver: receiver)).coupled
    }

    /// The coupling a hit on `receiver` read at `reading` g is weighed against, around a strike of
    /// `strike` g on `source`: the pair's, but before it is learned, for a hit that is one of the
    /// receiver's own strikes (`isOwnStrike`), no more than the unraised played prior
    /// (`playedPriorCoupling`).
    private func assumedCoupling(from source: Int, on receiver: Int, reading: Double, of strike: Double) -> Double {
        let (value, coupled) = coupling(PairKey(source: source, receiver: receiver))
        guard !coupled && isOwnStrike(reading, of: strike, from: source, on: receiver) else { return value }
        // isOwnStrike holds only for a played receiver: its prior is the played one.
        return min(value, playedPrior * min(1, rateFactor(source, receiver)))
    }

    /// A hit waiting for its cause: its number, pad, strike time (µs), strength (g), and whether
    /// it is a push the pad felt.
    public typealias Waiting = (id: UInt32, pad: Int, strikeMicros: Int64, strength: Double, felt: Bool)

    /// The waiting hits (given as recent hits on other pads) that the new hit on `source` explains:
    /// those it would have cancelled had it come first (with what else around them can cause).
    /// Returns their ids.
    public func explained(bySource source: Int, strikeMicros: Int64, strength: Double,
                          among waiting: [Waiting]) -> [UInt32] {
        let first = explainedOnce(bySource: source, strikeMicros: strikeMicros, strength: strength, among: waiting, witnesses: [])
        guard configuration.witnesses, !first.isEmpty else { return first }
        // What the first pass explained is this strike's crosstalk: it witnesses the strike. The
        // second pass differs from the first by that alone (those hits still count in the bound
        // as they did there), so it takes back all the first did and perhaps more.
        let witnesses = waiting.filter { first.contains($0.id) }.map { ($0.pad, $0.strikeMicros, $0.strength) }
        return explainedOnce(bySource: source, strikeMicros: strikeMicros, strength: strength, among: waiting, witnesses: witnesses)
    }

    private func explainedOnce(bySource source: Int, strikeMicros: Int64, strength: Double,
                               among waiting: [Waiting],
                               witnesses: [(pad: Int, micros: Int64, strength: Double)]) -> [UInt32] {
        waiting.compactMap { hit in
            guard hit.pad != source,
                  let share = crosstalk(from: source, at: strikeMicros,
                                        strength: witnessed(source, id: nil, at: strikeMicros, strength: strength, for: hit.pad,
                                                            also: witnesses),
                                        on: hit.pad, at: hit.strikeMicros, reading: hit.strength, longTail: !hit.felt)
            else { return nil }
            var (bound, _) = crosstalkBound(on: hit.pad, at: hit.strikeMicros, strength: hit.strength, excluding: hit.id,
                                            longTail: !hit.felt)
            bound.add(share, coupled: coupling(PairKey(source: source, receiver: hit.pad)).coupled)
            return hit.strength <= bound.value(allowance: floorAllowance(hit.pad)) ? hit.id : nil
        }
    }

    /// The strength of a strike on `source` (at `micros`, read at `strength` g) as `receiver`
    /// judges its crosstalk: its reading, or, where the receiver's sensor is faster, what the
    /// other pads' crosstalk of it shows, if more (their hits judged crosstalk in its window, each
    /// over the learned coupling to it), at most the source's loud level. `id`: the strike's hit,
    /// whose crosstalk the recent hits judged so were judged; `also`: hits about to be judged
    /// crosstalk of it. A 1.6 kHz pad reads the
    /// crosstalk of a 100 Hz pad's strike whole while the 100 Hz pad may read the strike at a
    /// tenth of itself; the 200 and 250 Hz pads beside them read the strike's crosstalk more
    /// truly (on a mixed-rates stand a 3.6 g floortom strike read at 0.077 g, its crosstalk on
    /// the idle ride at 0.27 g and on the racktom at 0.096 g, 15.6 % of the strike by what was
    /// learned: 0.62 g). A receiver none of whose own strikes is known yet takes the strike at
    /// the source's loud level (`loudWhileUnplayed`): the reading says little (a phone read a
    /// 9 g strike at 0.12 g, and the idle 1.6 kHz ride its crosstalk at 0.89 g), and an idle pad
    /// has no strike to lose; a played one may lose a stroke struck with the slow pad's before
    /// it has struck three alone. A receiver about as fast as the source that has played no hit
    /// at all does the same (`loudBeforeFirstHit`): a phone reads one strike at a tenth of
    /// another as strong.
    func witnessed(_ source: Int, id: UInt32?, at micros: Int64, strength: Double, for receiver: Int,
                   also: [(pad: Int, micros: Int64, strength: Double)] = []) -> Double {
        let ratio = periodRatio(source, receiver)
        if configuration.loudWhileUnplayed && ratio > 1 && !isPlayed(receiver)
            || configuration.loudBeforeFirstHit && ratio > Self.sameRate && ratio <= 1 && playedCounts[receiver] == 0 {
            return max(strength, louds[source])
        }
        guard ratio > 1 else { return strength }
        guard configuration.witnesses else { return strength }
        var best = strength
        func weigh(_ pad: Int, _ at: Int64, _ felt: Double) {
            guard pad != source && pad != receiver else { return }
            let w = window(source, pad)
            let lag = at.saturatingSubtract(micros)
            let key = PairKey(source: source, receiver: pad)
            guard lag >= -w.before && lag <= w.after, coupling(key).coupled, let e = pairs[key]?.estimate, e > 0 else { return }
            best = max(best, felt / e)
        }
        if let id {
            for hit in recent where !hit.isSource && hit.cause == id { weigh(hit.pad, hit.strikeMicros, hit.strength) }
        }
        for hit in also { weigh(hit.pad, hit.micros, hit.strength) }
        return min(best, max(strength, louds[source]))
    }

    /// Takes a hit on `pad` (played or not: crosstalk is the evidence), struck at `strikeMicros`
    /// with `strength` g; `isSource` when it was not judged crosstalk on arrival (else `cause`:
    /// the hit it was judged crosstalk of); `felt` for a push the pad felt. The evidence is
    /// drawn in hindsight, once every hit around a strike has arrived (`settle`). Returns the
    /// pairs found coupled meanwhile, for the brain to say.
    public mutating func learn(pad: Int, strikeMicros: Int64, strength: Double, id: UInt32,
                               isSource: Bool = true, felt: Bool = false, cause: UInt32? = nil) -> [PairKey] {
        let found = settle(before: strikeMicros)
        floors[pad] = min(floors[pad] ?? strength, strength)
        Self.keep((strikeMicros, strength), in: &histories[pad], last: Self.historyLength)
        if isSource { louds[pad] = max(louds[pad] * (1 - configuration.forgetting), strength) }
        recent.append(Recent(pad: pad, strikeMicros: strikeMicros, strength: strength, id: id, isSource: isSource,
                             felt: felt, cause: cause))
        return found
    }

    /// Whether the recent hit numbered `id` can still cause crosstalk (false once judged or
    /// marked crosstalk, or forgotten).
    public func recentIsSource(id: UInt32) -> Bool {
        recent.contains { $0.id == id && $0.isSource }
    }

    /// Marks the hits numbered `ids` as crosstalk after all (taken back while they waited) of the
    /// hit numbered `cause`: they neither cause crosstalk nor count as strikes, and witness the
    /// cause's strength (`witnessed`).
    public mutating func markCrosstalk(_ ids: [UInt32], of cause: UInt32? = nil) {
        guard !ids.isEmpty else { return }
        for k in recent.indices where ids.contains(recent[k].id) {
            recent[k].isSource = false
            recent[k].cause = cause
        }
    }

    /// Settles the strikes whose windows closed before `nowMicros`, in hindsight: a hit that
    /// no much stronger hit on another pad surrounds is a strike, and each other pad either
    /// answered it with a weak hit in its window (a response: its ratio moves the coupling) or
    /// stayed silent (the coupling is below that pad's softest hit over the strike). Returns the
    /// pairs that became coupled. `learn` settles first; a decision that needs the sway of
    /// strikes whose windows have closed (`swayingPad`) settles before it.
    public mutating func settle(before nowMicros: Int64) -> [PairKey] {
        let c = configuration
        let longest = (periods.max() ?? c.defaultPeriodMicros) * 2 + c.lagMicros + 4_000
        var found: [PairKey] = []
        for k in recent.indices where !recent[k].settled {
            let strike = recent[k]
            guard nowMicros.saturatingSubtract(strike.strikeMicros) > longest else { continue }
            recent[k].settled = true
            // A hit judged crosstalk (on arrival, or taken back) is no strike.
            guard strike.isSource else { continue }
            // Within the sway of a strike on another pad, and no stronger than it could be: no
            // proof that the pad is played (`swayShare`).
            let swayed = isSwayed(strike.pad, at: strike.strikeMicros, strength: strike.strength)
            if !strike.felt && !swayed && playedCounts[strike.pad] < c.unplayedHits { playedCounts[strike.pad] += 1 }
            // A strike, in hindsight, unless a much stronger hit on another pad surrounds it (and
            // one that pad's coupling to it could have caused: `causeMargin`).
            let surrounded = recent.contains { other in
                guard other.pad != strike.pad else { return false }
                let w = window(other.pad, strike.pad)
                let lag = strike.strikeMicros.saturatingSubtract(other.strikeMicros)
                guard lag >= -w.before && lag <= w.after else { return false }
                let much = other.strength * candidateRatio(other.pad, strike.pad)
                return min(much, caused(by: other, on: strike.pad) ?? much) >= strike.strength
            }
            guard !surrounded, strike.strength > 0 else { continue }
            // Played, and alone: no hit on another pad around it that could have caused it (any,
            // until that pad has struck since this one was known: `causeMargin`). The pad's own
            // soft strikes.
            let alone = !recent.contains { other in
                guard other.pad != strike.pad else { return false }
                let w = window(other.pad, strike.pad)
                let lag = strike.strikeMicros.saturatingSubtract(other.strikeMicros)
                guard lag >= -w.after && lag <= w.after else { return false }
                guard let most = caused(by: other, on: strike.pad) else { return true }
                return most + floorAllowance(strike.pad) >= strike.strength
            }
            if !strike.felt && !swayed { addSway(strike.pad, at: strike.strikeMicros, strength: strike.strength) }
            if alone && (!swayed || isPlayed(strike.pad)) && !strike.felt { learnOwnStrike(strike.pad, strength: strike.strength) }
            for receiver in padKeys.indices where receiver != strike.pad {
                // Another strike around it, on a third pad, could as well have caused what the
                // receiver felt: a hit there says nothing of this pair (a ride struck with the
                // snare on another stand would show the ride's own crosstalk as the snare's).
                let shared = recent.contains { other in
                    guard other.pad != strike.pad, other.pad != receiver, other.isSource,
                          other.strength >= candidateRatio(other.pad, strike.pad) * strike.strength * 0.5 else { return false }
                    let w = window(other.pad, receiver)
                    let lag = strike.strikeMicros.saturatingSubtract(other.strikeMicros)
                    return lag >= -w.after && lag <= w.after
                }
                if shared { continue }
                let key = PairKey(source: strike.pad, receiver: receiver)
                var pair = pairs[key] ?? Pair(prior: priorCoupling(key))
                let w = window(strike.pad, receiver)
                let inWindow = recent.filter { hit in
                    guard hit.pad == receiver else { return false }
                    let lag = hit.strikeMicros.saturatingSubtract(strike.strikeMicros)
                    return lag >= -w.before && lag <= w.after
                }
                // The receiver struck too: its stroke hides whatever crosstalk came with it, so
                // this strike says nothing of the pair (counted as answered, a ride struck with
                // every backbeat kept the pair at the prior, which cancelled its strokes again).
                if inWindow.contains(where: { isOwnStrike($0.strength, of: strike.strength, from: strike.pad, on: receiver) }) { continue }
                let floor = floors[receiver] ?? c.defaultFloor
                let believed = pair.estimate ?? min(priorCoupling(key), pair.upper)
                let answered = !inWindow.isEmpty
                // A silence counts only where the crosstalk believed would have shown well above
                // the receiver's softest hit, and the receiver was ready to answer.
                // A pad that has not struck alone: its softest hit of late, if higher
                // (`silenceFromRecentFloor`).
                let heard = c.silenceFromRecentFloor && ownSoftCounts[receiver] == 0
                    ? max(floor, recentSoftest(receiver, at: strike.strikeMicros, margin: w.before) ?? floor) : floor
                let telling = believed * strike.strength >= heard * c.silenceMargin
                    && couldAnswer(receiver, at: strike.strikeMicros, expected: believed * strike.strength, before: w.before)
                if telling || answered && believed * strike.strength >= floor * 1.5 {
                    pair.responseRate += ((answered ? 1 : 0) - pair.responseRate) * 0.2
                }
                if let response = inWindow.filter({ isResponse($0.strength, of: strike.strength, from: strike.pad, on: receiver) })
                    .max(by: { $0.strength < $1.strength }) {
                    let ratio = response.strength / strike.strength
                    let lag = response.strikeMicros.saturatingSubtract(strike.strikeMicros)
                    if let estimate = pair.estimate {
                        // A median tracker, in steps of a share of the estimate (larger while the
                        // responses are few). The median, not a higher quantile: a soft note
                        // played with a neighbour's strike reads as a large ratio, and only
                        // ever from above.
                        let step = max(0.08, 0.4 / (pair.responses + 1)) * estimate
                        pair.estimate = ratio > estimate ? estimate + min(ratio - estimate, step) : max(estimate - step, ratio)
                    } else {
                        pair.estimate = ratio
                    }
                    pair.responses += 1
                    if c.spreadResponses > 0 {
                        pair.lastRatios.append(ratio)
                        if pair.lastRatios.count > c.spreadResponses { pair.lastRatios.removeFirst() }
                        if pair.lastRatios.count == c.spreadResponses {
                            pair.highRatio = pair.lastRatios.sorted()[(c.spreadResponses - 1) * 9 / 10]
                        }
                    }
                    pair.lagMicros += (Double(lag) - pair.lagMicros) / max(1, min(pair.responses, 20))
                } else if !answered && telling && !silencesKeepBound(pair, on: receiver)
                            && (pair.responseRate < c.minimumResponseRate
                                || pair.responseRate < c.unlearnedSilenceRate && !isFast(receiver)
                                    && !hasAnsweredEnough(pair)) {
                    // A pair that mostly stays silent is bounded by its silences; one that
                    // answers often is not (a detector's bump test lets smooth crosstalk by). One
                    // that has answered many strikes is bounded no lower than what it learned: on
                    // a 1.6 kHz stand four silences in a row uncoupled a snare and racktom
                    // answering 7-10 strikes, and the racktom played six of the snare's crosstalk
                    // hits (ADXL345 kit4, seed 19).
                    let trusted = pair.responses >= c.trustedResponses
                        ? (pair.estimate ?? 0) * c.margin * pair.responseRate / c.minimumResponseRate : 0
                    pair.upper = min(pair.upper, max(c.silenceMargin * floor / strike.strength, trusted))
                }
                // Forgetting: the evidence fades with each strike of the source.
                pair.responses *= 1 - c.forgetting
                pair.upper += (priorCoupling(key) - pair.upper) * c.forgetting * 0.25
                pairs[key] = pair
                if !announced.contains(key) && coupling(key).coupled {
                    announced.insert(key)
                    found.append(key)
                }
            }
        }
        recent.removeAll {
            $0.settled && nowMicros.saturatingSubtract($0.strikeMicros) > 3 * longest + c.longestRingTail
        }
        return found
    }
}

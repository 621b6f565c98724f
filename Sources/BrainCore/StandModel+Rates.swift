import Glibc

extension StandModel {
    /// The two pads' period ratio (`periodRatio`) to `rateExponent`: how much more of a shock the
    /// receiver's sensor reads than the source's (over 1 where the receiver is the faster).
    func rateFactor(_ source: Int, _ receiver: Int) -> Double {
        pow(min(max(periodRatio(source, receiver), 1 / Self.mostRateRatio), Self.mostRateRatio), configuration.rateExponent)
    }

    /// The longest sample period of a fast sensor (500 Hz), µs: there the detector's bump test
    /// judges pushes (`AdaptiveDetector.fastRatePeriod`), and lets smooth crosstalk by now and
    /// then. Periods are whole µs, so a sensor a hair under 500 Hz counts as fast here; a pad that
    /// has not said its rate counts as 250 Hz (`defaultPeriodMicros`).
    static let slowestFastPeriod: Int64 = 2_000

    /// Whether `pad` samples every `slowestFastPeriod` or faster (500 Hz and up): its detector
    /// judges a push itself and reads a neighbour's crosstalk nearly whole.
    func isFast(_ pad: Int) -> Bool { periods[pad] <= Self.slowestFastPeriod }

    /// The longest sample period at which `Configuration.leastStrokeG` judges (about 170 Hz),
    /// µs: slower, the detector's onset chain of 12 ms holds fewer than two periods and its slow
    /// rates' rules judge (`AdaptiveDetector`).
    static let slowestMidPeriod: Int64 = 6_000

    /// Whether a hit of `strength` g on `pad` is too weak to be a stroke at its rate
    /// (`Configuration.leastStrokeG`: from about 170 to 500 Hz). Only on a pad that has said its
    /// rate: one that has not (a client of its own, or a pad's hits before its hello) counts as
    /// 250 Hz for the other rules, but may sample at any rate, and this rule drops a hit
    /// outright. A pad on the card's detector says its rate and sends |Δz|, which the card's own
    /// threshold (squared 0.4) keeps at 0.63 g or more: the floor never meets it.
    public func isTooWeak(_ pad: Int, strength: Double) -> Bool {
        let least = configuration.leastStrokeG
        return least > 0 && ratesSaid[pad] && periods[pad] > Self.slowestFastPeriod && periods[pad] <= Self.slowestMidPeriod
            && strength < least
    }

    /// The most two pads' rates count as apart (25 Hz and 1.6 kHz): beyond it, the bounds that
    /// follow the rates stop growing, so no coupling learned exceeds what the state file keeps.
    static let mostRateRatio = 64.0

    /// The least period ratio (`periodRatio`) at which the receiver counts as about as fast as
    /// the source: a rate measured from a pad's first samples is a little off.
    static let sameRate = 0.95

    /// The source's sample period over the receiver's: over 1 where the receiver's sensor is faster.
    func periodRatio(_ source: Int, _ receiver: Int) -> Double {
        Double(periods[source]) / Double(max(periods[receiver], 1))
    }
}

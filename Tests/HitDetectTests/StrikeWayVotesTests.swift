import HitDetect
import Testing

/// How soon a pad's loud hits overrule gravity's guess at the way a strike swings
/// (`AdaptiveDetector.strikeSign`): three more one way than the other from about 170 Hz, six
/// under it; and only a hit that swung one way clearly further than the other votes.
struct StrikeWayVotesTests {
    /// A stiff pad, face up (its strikes show the shock, no swing back: the other way from
    /// gravity's side, as the independent simulator's 200-250 Hz pads read them), struck `loud`
    /// times at `amplitude` g, then soft strokes of 1.5 g from 2 s: the sign after, and which of
    /// the soft strokes played.
    static func stiffPad(rate: Double, loud: Int, swingBack: Double = 0, amplitude: Double = 6) -> (sign: Double, ghosts: [Double], played: [Double]) {
        var events: [FeltPushTests.Event] = (0..<loud).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: amplitude) }
        let ghosts = (0..<8).map { 2.0 + Double($0) * 0.3 }
        events += ghosts.map { .strike(time: $0, amplitude: 1.5) }
        let signal = FeltPushTests.signal(rate: rate, seconds: 5, gravity: 1, up: 1, events: events, swingBack: swingBack)
        var detector = AdaptiveDetector()
        let (hits, _) = FeltPushTests.run(&detector, signal)
        return (detector.strikeSign, ghosts, hits.map(\.time).filter { $0 > 1.9 })
    }

    /// At 200 and 250 Hz three loud strikes teach the way, and every soft stroke after them
    /// plays; two do not, and the rebound test takes the soft strokes for pushes.
    @Test(arguments: [200.0, 250.0])
    func threeLoudStrikesTeachTheWayFrom170Hz(rate: Double) {
        let three = Self.stiffPad(rate: rate, loud: 3)
        #expect(three.sign == -1)
        #expect(three.ghosts.allSatisfy { FeltPushTests.near(three.played, $0) } && three.played.count == three.ghosts.count,
                "\(rate) Hz: soft strokes played at \(three.played)")
        let two = Self.stiffPad(rate: rate, loud: 2)
        #expect(two.sign == 1)
        #expect(two.played.count < two.ghosts.count / 2, "\(rate) Hz, two loud: soft strokes played at \(two.played)")
    }

    /// At 100 Hz, whose low-pass blurs the way a hit swings, three loud strikes (of 20 g, read
    /// over 1.2 g there) are not enough; six are.
    @Test func at100HzSixAreNeeded() {
        #expect(Self.stiffPad(rate: 100, loud: 5, amplitude: 20).sign == 1)
        #expect(Self.stiffPad(rate: 100, loud: 6, amplitude: 20).sign == -1)
    }

    /// Strikes read past full scale swing to it both ways: here the sensor clips at 3 g under
    /// its level and 2.95 g over it, so each of eight 20 g strikes fell a hair further than it
    /// rose. None votes: gravity's side holds (a vote by the hair would have turned it within
    /// three), and a strike that swings clearly further one way still votes.
    @Test func strikesClippedBothWaysDoNotVote() {
        let events: [FeltPushTests.Event] = (0..<8).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: 20) }
        var signal = FeltPushTests.signal(rate: 250, seconds: 3, gravity: 1, up: 1, events: events)
        signal.z = signal.z.map { min(max($0, 1 - 3), 1 + 2.95) }
        var clipped = AdaptiveDetector()
        let hits = FeltPushTests.run(&clipped, signal).hits
        #expect(hits.count == 8, "\(hits.map(\.time))")
        #expect(clipped.strikeSign == 1)
        #expect(Self.stiffPad(rate: 250, loud: 8).sign == -1)
    }
}

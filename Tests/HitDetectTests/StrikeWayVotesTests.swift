import HitDetect
import Testing

/// How soon a pad's loud hits overrule gravity's guess at the way a strike swings
/// (`AdaptiveDetector.strikeSign`): three more one way than the other from about 170 Hz, six
/// under it; and only a hit that swung one way clearly further than the other votes.
struct StrikeWayVotesTests {
    /// A stiff pad, face up (its strikes show the shock, no swing back: the other way from
    /// gravity's side, as the independent simulator's 200-250 Hz pads read them), struck `loud`
    /// times at `amplitude` g (8 g reads about 1.7 g at 200 Hz), 0.25 s apart, then eight soft
    /// strokes of 1.5 g from 0.5 s after the last: the sign after, and which of the soft strokes
    /// played.
    static func stiffPad(rate: Double, loud: Int, swingBack: Double = 0, amplitude: Double = 8) -> (sign: Double, ghosts: [Double], played: [Double]) {
        var events: [FeltPushTests.Event] = (0..<loud).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: amplitude) }
        let ghosts = (0..<8).map { 0.75 + Double(loud) * 0.25 + Double($0) * 0.3 }
        events += ghosts.map { .strike(time: $0, amplitude: 1.5) }
        let signal = FeltPushTests.signal(rate: rate, seconds: ghosts[7] + 0.5, gravity: 1, up: 1, events: events, swingBack: swingBack)
        var detector = AdaptiveDetector()
        let (hits, _) = FeltPushTests.run(&detector, signal)
        return (detector.strikeSign, ghosts, hits.map(\.time).filter { $0 > ghosts[0] - 0.1 })
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

    /// At 100 Hz, whose low-pass blurs the way a hit swings, five loud strikes (of 20 g, read
    /// over 1.2 g there) are not enough; six are.
    @Test func at100HzSixAreNeeded() {
        #expect(Self.stiffPad(rate: 100, loud: 5, amplitude: 20).sign == 1)
        #expect(Self.stiffPad(rate: 100, loud: 6, amplitude: 20).sign == -1)
    }

    /// Strikes read past full scale: eight 20 g strikes at 250 Hz clipped at 3.0 g over the level
    /// and 3.65 g under it (as our 250 Hz stands read theirs: under 1.5 times as far, no vote,
    /// where 1.2 let each vote), or at 2.95 and 3.0 g (both sides at the rails), do not vote:
    /// gravity's side holds, where three votes the wrong way would have turned it. A stiff pad's
    /// strikes of 20 g, unclipped, still vote their way.
    @Test(arguments: [(3.0, 3.65), (2.95, 3.0)])
    func strikesClippedDoNotVote(room: (up: Double, down: Double)) {
        let events: [FeltPushTests.Event] = (0..<8).map { .strike(time: 0.5 + Double($0) * 0.25, amplitude: 20) }
        var signal = FeltPushTests.signal(rate: 250, seconds: 3, gravity: 1, up: 1, events: events)
        signal.z = signal.z.map { min(max($0, 1 - room.down), 1 + room.up) }
        var clipped = AdaptiveDetector()
        let hits = FeltPushTests.run(&clipped, signal).hits
        #expect(hits.count == 8, "\(hits.map(\.time))")
        #expect(clipped.strikeSign == 1, "room \(room)")
        #expect(Self.stiffPad(rate: 250, loud: 8, amplitude: 20).sign == -1)
    }

    /// Strikes that swing back 0.4 of their shock read less than 1.5 times as far one way as the
    /// other at 250 Hz: none votes there, and gravity's side holds; at 100 Hz every loud hit
    /// votes, as before the margin, and eight of them teach the way.
    @Test func underAbout170HzEveryLoudHitVotes() {
        #expect(Self.stiffPad(rate: 250, loud: 8, swingBack: 0.4, amplitude: 20).sign == 1)
        #expect(Self.stiffPad(rate: 100, loud: 8, swingBack: 0.4, amplitude: 20).sign == -1)
    }
}

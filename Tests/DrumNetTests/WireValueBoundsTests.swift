import Testing
@testable import DrumNet

/// Every value a client sends is checked before it meets arithmetic that can trap, and names are
/// escaped before they are printed (docs/architecture.md, Wire protocol: "Every value from the wire is untrusted").
struct WireValueBoundsTests {
    static let now: Int64 = 5_000_000_000

    func connection() -> BrainConnection {
        BrainConnection(connectionID: 1, address: "127.0.0.1:5000", brainName: "studio", kitName: "Default",
                        nowMicros: Self.now)
    }

    /// Sends a ping with `offset` and `roundTrip`, then a hit stamped `padTime`; returns the hit's
    /// latency as delivered and every notice.
    func deliver(pingTime: Int64 = 1_000, offset: Int64, roundTrip: Int64 = 200, padTime: Int64)
        -> (latency: Int64??, notices: [String], connection: BrainConnection) {
        var c = connection()
        var notices: [String] = []
        var latency: Int64??
        let stream = DrumMessage.ping(timeMicros: pingTime, offsetMicros: offset, roundTripMicros: roundTrip).packet
            + DrumMessage.hit(DrumHit(drum: "snare", velocity: 1, padTimeMicros: padTime, sequence: 1)).packet
        for action in c.receive(stream, nowMicros: Self.now) {
            switch action {
            case .deliver(_, let l): latency = .some(l)
            case .notice(let text): notices.append(text)
            default: break
            }
        }
        return (latency, notices, c)
    }

    /// The packets: a ping whose offset puts the pad 5000 s away, then a hit at
    /// Int64.min. The offset is refused, so the hit plays untimed: nothing to overflow.
    @Test func theReportedPacketsPlayUntimed() {
        let (latency, notices, c) = deliver(pingTime: 1, offset: 0, roundTrip: 100, padTime: .min)
        #expect(latency == .some(nil))
        #expect(c.statistics.clockOffsetMicros == nil && c.statistics.refusedTimes == 1)
        #expect(notices.count == 1 && notices[0].contains("clock offset refused"))
    }

    /// With a sensible offset, pad times at every extreme are refused and counted, the hit still
    /// delivered untimed; times within 10 s either way are kept.
    static let wildPadTimes: [Int64] = [.min, .min + 1, .max - 1, .max, 1_000 - 10_000_001, 1_000 + 10_000_001,
                                         -5_000_000_000, 5_000_000_000]
    @Test(arguments: wildPadTimes)
    func wildPadTimesAreRefusedAndCounted(padTime: Int64) {
        let (latency, notices, c) = deliver(offset: Self.now - 1_000, padTime: padTime)
        #expect(latency == .some(nil), "pad time \(padTime)")
        #expect(c.statistics.refusedTimes == 1 && c.statistics.hits == 1)
        #expect(notices.count == 1 && notices[0].contains("hit time refused"))
        #expect(c.statistics.latencyMicros.count == 0)
    }

    static let plausibleDelays: [Int64] = [-9_999_000, -300, 0, 400, 9_999_000]
    @Test(arguments: plausibleDelays)
    func plausiblePadTimesGiveTheirLatency(after: Int64) {
        // Struck `after` µs after the ping left: latency = now − (padTime + offset).
        let (latency, notices, c) = deliver(offset: Self.now - 1_000, padTime: 1_000 + after)
        #expect(latency == .some(.some(-after)))
        #expect(notices.isEmpty && c.statistics.refusedTimes == 0)
    }

    /// Offsets at the ends of Int64, and round trips no network takes, are refused; the last
    /// sensible offset stays in force.
    static let implausibleOffsets: [(offset: Int64, roundTrip: Int64)] = [
        (.max, 200), (.min, 200), (now - 1_000, -1), (now - 1_000, .max), (now - 1_000 + 20_000_000, 200)]
    @Test(arguments: implausibleOffsets)
    func implausibleOffsetsAreRefusedAndTheLastSensibleOneKept(offset: Int64, roundTrip: Int64) {
        var c = connection()
        _ = c.receive(DrumMessage.ping(timeMicros: 1_000, offsetMicros: Self.now - 1_000, roundTripMicros: 150).packet,
                      nowMicros: Self.now)
        #expect(c.statistics.clockOffsetMicros == Self.now - 1_000)
        let actions = c.receive(DrumMessage.ping(timeMicros: 1_000, offsetMicros: offset, roundTripMicros: roundTrip).packet,
                                nowMicros: Self.now)
        #expect(c.statistics.clockOffsetMicros == Self.now - 1_000 && c.statistics.roundTripMicros == 150)
        #expect(c.statistics.refusedTimes == 1)
        // Still answered: a refused estimate is no reason to drop the pad.
        #expect(actions.contains(.send(.pong(timeMicros: 1_000, brainTimeMicros: Self.now))))
    }

    @Test func aReceivedHitsStrikeTimeIsTotal() {
        let hit = DrumHit(drum: "snare")
        #expect(ReceivedHit(hit: hit, connectionID: 1, padName: nil, receivedMicros: 100, latencyMicros: 30).strikeMicros == 70)
        #expect(ReceivedHit(hit: hit, connectionID: 1, padName: nil, receivedMicros: 100, latencyMicros: nil).strikeMicros == nil)
        #expect(ReceivedHit(hit: hit, connectionID: 1, padName: nil, receivedMicros: .min + 5, latencyMicros: 10).strikeMicros == nil)
        #expect(ReceivedHit(hit: hit, connectionID: 1, padName: nil, receivedMicros: 5, latencyMicros: .min).strikeMicros == nil)
    }

    @Test(arguments: [
        ("snare", "snare"),
        ("hat-closed", "hat-closed"),
        ("snare\nhit drum=forged velocity=1.000", "snare\\x0Ahit\\x20drum=forged\\x20velocity=1.000"),
        ("\u{1B}[2J\u{1B}]0;pwned\u{07}", "\\x1B[2J\\x1B]0;pwned\\x07"),
        ("tab\there\r", "tab\\x09here\\x0D"),
        ("del\u{7F}c1\u{9B}", "del\\x7Fc1\\x9B"),
        ("back\\slash", "back\\\\slash"),
        ("\u{202E}kcik", "\\u{202E}kcik"),
        ("tom\u{2028}line", "tom\\u{2028}line"),
        ("caisse-claire-é", "caisse-claire-é"),
    ])
    func namesAreEscapedForPrinting(raw: String, printed: String) {
        #expect(WireText.printable(raw) == printed)
    }

    @Test func proseKeepsItsSpacesAndLosesItsControls() {
        #expect(WireText.printable("wrong key: try again\n\u{1B}[2J", limit: 200, prose: true)
                == "wrong key: try again\\x0A\\x1B[2J")
    }

    @Test func longNamesAreCut() {
        let long = String(repeating: "a", count: 500)
        #expect(WireText.printable(long) == String(repeating: "a", count: 64) + "…")
        #expect(WireText.printable(String(repeating: "\u{1B}", count: 100)).hasSuffix("…"))
        #expect(WireText.printable(String(repeating: "b", count: 64)) == String(repeating: "b", count: 64))
    }
}

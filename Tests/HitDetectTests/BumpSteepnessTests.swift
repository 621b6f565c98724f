import Foundation
import Testing
@testable import HitDetect

/// Between about 1 g (the most a stand's bump reaches, by the issue) and the bump test's 1.2 g,
/// at 1.6 kHz a candidate is a bump only where it rose much more slowly than a stick's shock
/// (`AdaptiveDetector.Configuration.bumpSteepFromG`, `bumpSteepShare`).
@Suite struct BumpSteepnessTests {
    /// Eight events 0.7 s apart at 1.6 kHz on a quiet pad (`MountRingingTests.mountSignal`, no
    /// ringing), each a half sine of `amplitude` g lasting `contactMs` (a stick's contact of a
    /// few ms, or a bump's push of tens), from 1 s on. The hits found.
    static func hits(amplitude: Double, contactMs: Double, configuration: AdaptiveDetector.Configuration = .init()) -> Int {
        let events = (0..<8).map { (time: 1.0 + 0.7 * Double($0), amplitude: amplitude) }
        let signal = MountRingingTests.mountSignal(rate: 1600, seconds: 7, strikes: events, ringHz: 40, ringMs: 25, share: 0,
                                                   riseMs: contactMs)
        var detector = AdaptiveDetector(configuration)
        return detector.detect(z: signal.z, time: signal.t).count
    }

    /// A ghost note of 1.15 g whose contact lasts 4.5 ms (it steps about 0.43 of its size per
    /// sample, under the bump test's half) plays every time; with the rule off (0) the bump
    /// test takes each for a push.
    @Test func aGhostReadJustUnder1point2gPlays() {
        #expect(Self.hits(amplitude: 1.15, contactMs: 4.5) == 8)
        var off = AdaptiveDetector.Configuration()
        off.bumpSteepFromG = 0
        #expect(Self.hits(amplitude: 1.15, contactMs: 4.5, configuration: off) == 0)
    }

    /// A push of 1.17 g lasting 10 ms, read at 1.1 g or more by the end of the scan and stepping
    /// about 0.2 of that, is still a bump (under the quarter), and plays with a share of 0.15
    /// (the reading lands in the rule's range and the share decides). One of 1.0 g as steep as
    /// the ghost above is a bump, under the rule's 1.08 g.
    @Test func bumpsStayBumps() {
        #expect(Self.hits(amplitude: 1.17, contactMs: 10) == 0)
        var lower = AdaptiveDetector.Configuration()
        lower.bumpSteepShare = 0.15
        #expect(Self.hits(amplitude: 1.17, contactMs: 10, configuration: lower) == 8)
        #expect(Self.hits(amplitude: 1.0, contactMs: 4.5) == 0)
    }
}

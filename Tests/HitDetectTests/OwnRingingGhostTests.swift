import Foundation
import Testing
@testable import HitDetect

/// A ghost note in the ringing of the pad's own loud stroke at 200–250 Hz
/// (`AdaptiveDetector.Configuration.ringHoldShockFactor`): 90–150 ms after a loud stroke a
/// mount that rings long still swings at a third of the ghost's |h| or more, so the ring hold
/// took the ghost for that ringing carried on, where the pad's learned ringing leaves the
/// ghost's shock unexplained many times over what it left of the ringing before it.
@Suite struct OwnRingingGhostTests {
    /// A mount ringing at 40 Hz over 120 ms at 30 % of each stroke (the independent Joy-Con
    /// stands' snares: `mount_a` 0.27–0.29, `mount_T` 0.08–0.12 s), loud strokes of 8 g 0.6 s
    /// apart, and from the fourth on a ghost note `after` (110 ms) after each, of `ghost` g.
    static func strokes(ghost: Double, loudG: Double = 8, after: Double = 0.110)
        -> (loud: [(time: Double, amplitude: Double)], ghosts: [(time: Double, amplitude: Double)]) {
        let loud = (0..<14).map { (time: 0.5 + 0.6 * Double($0), amplitude: loudG) }
        let ghosts = loud.dropFirst(3).map { (time: $0.time + after, amplitude: ghost) }
        return (loud, Array(ghosts))
    }

    /// Runs the adaptive detector over `strokes(ghost:loudG:after:)` at `rate` with
    /// `ringHoldShockFactor` at `factor` (nil: the default): the ghosts and loud strokes found
    /// (within max(10 ms, 2.5 periods)), and the hits neither explains after the fourth stroke.
    static func run(rate: Double, ghost: Double, factor: Double? = nil, loudG: Double = 8, after: Double = 0.110)
        -> (ghostsFound: Int, loudFound: Int, unexplained: [Double], ghosts: Int) {
        let (loud, ghosts) = strokes(ghost: ghost, loudG: loudG, after: after)
        let signal = MountRingingTests.mountSignal(rate: rate, seconds: 9.5, strikes: loud + ghosts, ringHz: 40, ringMs: 120, share: 0.3)
        var configuration = AdaptiveDetector.Configuration()
        if let factor { configuration.ringHoldShockFactor = factor }  // nil: the default
        var detector = AdaptiveDetector(configuration)
        let hits = detector.detect(z: signal.z, time: signal.t).map(\.time)
        let tolerance = max(0.010, 2.5 / rate)
        let ghostsFound = ghosts.filter { g in hits.contains { abs($0 - g.time) <= tolerance } }.count
        let loudFound = loud.filter { s in hits.contains { abs($0 - s.time) <= tolerance } }.count
        // Before the pad has learned its ringing (its first strokes) the ringing may fire
        // at 200 Hz with the rule or without it: only what fires after counts.
        let unexplained = hits.filter { h in h > loud[3].time && !(loud + ghosts).contains { abs(h - $0.time) <= tolerance } }
        return (ghostsFound, loudFound, unexplained, ghosts.count)
    }

    /// At the defaults, the ghosts of 1.5 g play once the pad has learned its ringing (it has by the fourth
    /// stroke), and nothing else does; with the rule off (0) the ring hold holds most of them
    /// (here all). One may still be held: where its shock falls between two samples the
    /// ringing leaves it only 2.5-3 times its level before (10 of 11 at both rates; at 2 times,
    /// the independent stands' pads played more of their own ringing than they won ghosts).
    @Test(arguments: [200.0, 250.0])
    func aGhostNoteInItsOwnStrokesRingingPlays(rate: Double) {
        let on = Self.run(rate: rate, ghost: 1.5)
        #expect(on.ghostsFound >= on.ghosts - 1, "\(on.ghostsFound) of \(on.ghosts) ghosts")
        #expect(on.loudFound == 14)
        #expect(on.unexplained.isEmpty, "\(on.unexplained)")
        let off = Self.run(rate: rate, ghost: 1.5, factor: 0)
        #expect(off.ghostsFound <= off.ghosts / 2, "off: \(off.ghostsFound) of \(off.ghosts) ghosts")
    }

    /// The ringing alone (no ghosts) plays nothing with the rule on. A guard, not a judge of the
    /// rule: this clean one-mode ringing is turned away by the ringing test whatever the ring
    /// hold does, so it passes with the rule off too; `aRingingTheModelExplainsPoorlyStaysHeld`
    /// is the test that judges the level.
    @Test(arguments: [200.0, 250.0])
    func theRingingAlonePlaysNothing(rate: Double) {
        let on = Self.run(rate: rate, ghost: 0)
        #expect(on.loudFound == 14)
        #expect(on.unexplained.isEmpty, "\(on.unexplained)")
    }

    /// Loud strokes (8 g, 0.6 s apart) on a mount whose ringing the learned model explains
    /// poorly: it rings from 40 Hz, its pitch rising 100 Hz a second as it decays over 120 ms at
    /// 30 % of the stroke (the independent Joy-Con stand of seed 2's racktom left 0.5-0.9 of its
    /// swings unexplained). The hits after the fourth stroke that no stroke explains.
    static func driftingRinging(rate: Double, factor: Double?) -> [Double] {
        let loud = (0..<14).map { 0.5 + 0.6 * Double($0) }
        var z: [Double] = [], t: [Double] = []
        for i in 0..<Int(9.5 * rate) {
            let time = Double(i) / rate
            var value = 1.0 + 0.002 * sin(Double(i) * 2.39996)  // a little deterministic noise
            for stroke in loud where time >= stroke && time - stroke < 0.6 {
                let age = time - stroke
                let ringing: Double = 0.3 * exp(-age * 1000 / 120) * sin(2 * Double.pi * (40 + 100 * age) * age)
                value += 8 * (exp(-age / 0.002) + ringing)
            }
            z.append(value)
            t.append(time)
        }
        var configuration = AdaptiveDetector.Configuration()
        if let factor { configuration.ringHoldShockFactor = factor }
        var detector = AdaptiveDetector(configuration)
        let hits = detector.detect(z: z, time: t).map(\.time)
        return hits.filter { h in h > loud[3] && !loud.contains { abs(h - $0) <= max(0.010, 2.5 / rate) } }
    }

    /// What the level is for: the swings of a ringing the model explains poorly each leave much
    /// unexplained, but no more than the swings before them did, so at the defaults they stay
    /// held; weighed against nothing but themselves (a factor of 0.01) they play.
    @Test(arguments: [200.0, 250.0])
    func aRingingTheModelExplainsPoorlyStaysHeld(rate: Double) {
        let held = Self.driftingRinging(rate: rate, factor: nil)
        #expect(held.isEmpty, "\(held)")
        let loose = Self.driftingRinging(rate: rate, factor: 0.01)
        #expect(loose.count >= 10, "a factor of 0.01: \(loose.count) swings played")
    }

    /// At 100 Hz the rule does not judge (there the ring hold weighs what the ringing leaves
    /// already), and at 1.6 kHz neither (no ringing is learned there): the factor changes no
    /// hit, the ghosts' nor the drifting ringing's. (These signals do not reach the 100 Hz ring
    /// hold; the bound to 170 Hz and up is what keeps the mount-ringing tests of a sway's
    /// swings at 100 Hz passing, `aSwingOfTheLearnedRingingIsNoSoftNoteInIt` among them.)
    @Test(arguments: [100.0, 1600.0])
    func itJudgesOnlyFrom170To500Hz(rate: Double) {
        let on = Self.run(rate: rate, ghost: 1.5), off = Self.run(rate: rate, ghost: 1.5, factor: 0)
        #expect(on.ghostsFound == off.ghostsFound && on.loudFound == off.loudFound && on.unexplained == off.unexplained)
        #expect(Self.driftingRinging(rate: rate, factor: nil) == Self.driftingRinging(rate: rate, factor: 0.01))
    }
}

extension OwnRingingGhostTests {
    /// A weak shock in a weaker stroke's ringing (0.25 g, 160 ms after strokes of 2.5 g), whose
    /// peak |h| with that ringing stays under `ringHoldOwnG`, is still held: a stand's bump or a
    /// neighbour's crosstalk that size. Without that floor the rule let it by here, and on the
    /// independent 200-250 Hz stands the pads played more of these than they won ghost notes.
    @Test(arguments: [200.0, 250.0])
    func aShockUnderTheOwnFloorInTheRingingIsHeld(rate: Double) {
        let on = Self.run(rate: rate, ghost: 0.25, loudG: 2.5, after: 0.160)
        #expect(on.ghostsFound == 0, "\(on.ghostsFound) of \(on.ghosts) shocks of 0.25 g played")
        #expect(on.loudFound == 14 && on.unexplained.isEmpty, "\(on.unexplained)")
    }
}

extension OwnRingingGhostTests {
    /// A ghost let by over its own stroke's ringing is measured by what the ringing leaves
    /// unexplained, not from a sample on the ringing's swing: the 1.5 g ghosts read 1.46-1.50 g
    /// at 200 Hz, where from the swing they read 2.05-2.08 g (the bound asked, 0.5-1.8 g, tells
    /// the two apart there). At 250 Hz, where these samples fall beside the shock, they read
    /// 0.75-0.79 g, and 0.88-0.90 g from the swing: the bound does not tell those apart.
    @Test(arguments: [200.0, 250.0])
    func aGhostInTheRingingReadsNearItsOwnSize(rate: Double) {
        let (loud, ghosts) = Self.strokes(ghost: 1.5)
        let signal = MountRingingTests.mountSignal(rate: rate, seconds: 9.5, strikes: loud + ghosts, ringHz: 40, ringMs: 120, share: 0.3)
        var detector = AdaptiveDetector()
        let hits = detector.detect(z: signal.z, time: signal.t)
        let read = ghosts.compactMap { g in hits.first { abs($0.time - g.time) <= max(0.010, 2.5 / rate) }?.strength }
        #expect(read.count >= ghosts.count - 1)
        #expect(read.allSatisfy { $0 >= 0.5 && $0 <= 1.8 }, "\(read)")
    }
}

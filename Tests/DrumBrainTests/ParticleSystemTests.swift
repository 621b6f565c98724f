import DrumVisual
import Testing

/// The bursts: emission for 0.1 s scaled by velocity, a fade over about a second, a bounded
/// count, the same result for the same seed.
struct ParticleSystemTests {
    /// Steps `system` for `seconds` in 60 fps frames.
    func run(_ system: inout ParticleSystem, seconds: Double) {
        for _ in 0..<Int((seconds * 60).rounded()) { system.step(seconds: 1 / 60) }
    }

    @Test(arguments: [(Float(1), 90), (Float(0.5), 48), (Float(0.1), 14), (Float(0), 6)])
    func emissionScalesWithVelocity(velocity: Float, expected: Int) {
        var system = ParticleSystem(seed: 1)
        system.hit(drum: 0, velocity: velocity)
        run(&system, seconds: 0.3)
        // 6 at velocity 0 rising to 90 at full velocity, give or take the last fraction.
        #expect(abs(system.liveCount - expected) <= 1, "velocity \(velocity): \(system.liveCount) particles")
    }

    @Test func emissionLastsAboutATenthOfASecond() {
        var system = ParticleSystem(seed: 2)
        system.hit(drum: 0, velocity: 1)
        run(&system, seconds: 0.05)
        let halfway = system.liveCount
        run(&system, seconds: 0.07)
        let afterBurst = system.liveCount
        run(&system, seconds: 0.4)
        #expect(halfway > 20 && halfway < 70, "\(halfway) particles after 0.05 s")
        #expect(afterBurst >= 89)
        #expect(system.liveCount == afterBurst, "no emission after the burst")
    }

    @Test func particlesFlyOutAndFadeOverAboutASecond() {
        var system = ParticleSystem(seed: 3)
        system.hit(drum: 0, velocity: 1)
        run(&system, seconds: 0.1)
        func spread(_ s: ParticleSystem) -> Float {
            var total: Float = 0, count: Float = 0
            s.forEachLive { total += ($0.x * $0.x + 4 * $0.y * $0.y).squareRoot(); count += 1 }
            return total / max(1, count)
        }
        func brightness(_ s: ParticleSystem) -> Float {
            var total: Float = 0, count: Float = 0
            s.forEachLive { total += $0.brightness; count += 1 }
            return total / max(1, count)
        }
        let early = (spread(system), brightness(system))
        run(&system, seconds: 0.4)
        let later = (spread(system), brightness(system))
        #expect(later.0 > early.0 * 2, "they fly out: \(early.0) → \(later.0) columns")
        #expect(later.1 < early.1 * 0.7, "they fade: \(early.1) → \(later.1)")
        #expect(system.liveCount > 80, "most still alive at 0.5 s")
        run(&system, seconds: 0.25)
        #expect(system.liveCount > 0, "some still alive at 0.75 s")
        run(&system, seconds: 0.6)
        // The last were emitted at 0.1 s and live at most 1.2 s.
        #expect(system.liveCount == 0, "all gone by 1.35 s")
        let active = system.isActive
        #expect(!active)
    }

    @Test func countStaysBoundedUnderAStormOfHits() {
        var system = ParticleSystem(capacity: 500, emitterCapacity: 16, seed: 4)
        for frame in 0..<600 {
            for drum in 0..<7 { system.hit(drum: drum, velocity: Float(frame % 10) / 10) }
            system.step(seconds: 1 / 60)
            #expect(system.liveCount <= 500)
        }
        #expect(system.liveCount > 400, "the newest replace the oldest")
    }

    @Test func theSameSeedGivesTheSameBursts() {
        func burst(seed: UInt64) -> [ParticleSystem.Particle] {
            var system = ParticleSystem(seed: seed)
            system.hit(drum: 2, velocity: 0.8)
            system.step(seconds: 0.02)
            system.hit(drum: 5, velocity: 0.3)
            for _ in 0..<20 { system.step(seconds: 1 / 60) }
            return system.allParticles
        }
        #expect(burst(seed: 9) == burst(seed: 9))
        #expect(burst(seed: 9) != burst(seed: 10))
    }
}

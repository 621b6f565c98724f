/// The bursts: each hit starts a strong emission from its drum for `burstSeconds`, scaled by
/// velocity; the particles fly out, slow down and fade over about a second (docs/architecture.md, What it is's
/// original app: emission jumps for 0.1 s, then falls back).
///
/// Storage is fixed at creation: at most `capacity` particles (a new one replaces the oldest)
/// and `emitterCapacity` bursts emitting at once, so a storm of hits costs bounded memory and
/// time. Positions are offsets from the drum, so a resize moves bursts with their drums.
/// Deterministic for a given seed and sequence of calls.
///
/// Thread safety: a value type, owned by the render thread. Allocates only in `init`.
public struct ParticleSystem: Sendable {
    /// One particle.
    public struct Particle: Sendable, Equatable {
        /// The drum (kit index) it flew from.
        public var drum: Int32
        /// Offset from the drum's body in columns and rows.
        public var x: Float, y: Float
        /// Velocity in columns and rows per second.
        public var vx: Float, vy: Float
        /// Seconds since it was emitted.
        public var age: Float
        /// Seconds it lives; dead once `age >= lifetime`.
        public var lifetime: Float
        /// The hit's velocity, 0…1 (brightness).
        public var strength: Float

        /// Whether it is still shown.
        public var isAlive: Bool { age < lifetime }
        /// 1 when new, falling to 0 at the end of its life.
        public var brightness: Float { isAlive ? strength * (1 - age / lifetime) : 0 }
    }

    private struct Emitter: Sendable {
        var drum: Int32
        var velocity: Float
        var remaining: Float
        /// Fractional particles owed from earlier steps.
        var owed: Float
    }

    /// How long a hit emits.
    public static let burstSeconds: Float = 0.1
    /// Particles a full-velocity hit emits over its burst.
    public static let particlesPerBurst: Float = 90
    /// Particles a hit of velocity 0 still emits, so soft hits show.
    public static let minimumParticles: Float = 6
    /// Shortest and longest life.
    public static let lifetimeRange: ClosedRange<Float> = 0.8...1.2
    /// Speed range in columns per second at full velocity (rows: half, as cells are tall).
    public static let speedRange: ClosedRange<Float> = 8...34

    /// Most particles alive at once.
    public let capacity: Int
    /// Most bursts emitting at once (a new one replaces the oldest).
    public let emitterCapacity: Int
    private var particles: [Particle]
    private var nextParticle = 0
    private var emitters: [Emitter]
    private var nextEmitter = 0
    private var random: SeededRandom

    /// Creates an empty system.
    public init(capacity: Int = 1500, emitterCapacity: Int = 32, seed: UInt64) {
        precondition(capacity > 0 && emitterCapacity > 0, "a particle system needs room")
        self.capacity = capacity
        self.emitterCapacity = emitterCapacity
        particles = Array(repeating: Particle(drum: 0, x: 0, y: 0, vx: 0, vy: 0, age: 1, lifetime: 0, strength: 0),
                          count: capacity)
        emitters = Array(repeating: Emitter(drum: 0, velocity: 0, remaining: 0, owed: 0), count: emitterCapacity)
        random = SeededRandom(seed: seed)
    }

    /// Starts a burst from drum `drum` (kit index) at `velocity` (0…1).
    public mutating func hit(drum: Int, velocity: Float) {
        let v = min(1, max(0, velocity.isNaN ? 0 : velocity))
        emitters[nextEmitter] = Emitter(drum: Int32(truncatingIfNeeded: drum), velocity: v,
                                        remaining: Self.burstSeconds, owed: 0)
        nextEmitter = (nextEmitter + 1) % emitterCapacity
    }

    /// Advances by `seconds`: emits what the bursts owe, moves, slows and ages every particle.
    public mutating func step(seconds: Float) {
        let dt = max(0, min(seconds, 0.25))
        guard dt > 0 else { return }
        let drag = 1 / (1 + 2.5 * dt)
        for i in 0..<capacity where particles[i].isAlive {
            particles[i].x += particles[i].vx * dt
            particles[i].y += particles[i].vy * dt
            particles[i].vx *= drag
            particles[i].vy *= drag
            particles[i].age += dt
        }
        let rate = Self.particlesPerBurst / Self.burstSeconds
        let floorRate = Self.minimumParticles / Self.burstSeconds
        for e in 0..<emitterCapacity where emitters[e].remaining > 0 {
            let active = min(dt, emitters[e].remaining)
            emitters[e].remaining -= active
            let v = emitters[e].velocity
            emitters[e].owed += (floorRate + (rate - floorRate) * v) * active
            while emitters[e].owed >= 1 {
                emitters[e].owed -= 1
                emit(drum: emitters[e].drum, velocity: v, age: random.unit() * active)
            }
        }
    }

    private mutating func emit(drum: Int32, velocity: Float, age: Float) {
        let angle = random.unit() * 2 * Float.pi
        let speed = random.float(in: Self.speedRange) * (0.35 + 0.65 * velocity)
        let (s, c) = Self.sinCos(angle)
        var particle = Particle(drum: drum, x: 0, y: 0, vx: c * speed, vy: s * speed * 0.5, age: 0,
                                lifetime: random.float(in: Self.lifetimeRange), strength: 0.35 + 0.65 * velocity)
        particle.x = particle.vx * age
        particle.y = particle.vy * age
        particle.age = age
        particles[nextParticle] = particle
        nextParticle = (nextParticle + 1) % capacity
    }

    /// Particles alive now.
    public var liveCount: Int {
        var count = 0
        for particle in particles where particle.isAlive { count += 1 }
        return count
    }

    /// Whether any burst is still emitting or any particle is alive.
    public var isActive: Bool {
        for e in emitters where e.remaining > 0 { return true }
        return liveCount > 0
    }

    /// Calls `body` with each live particle.
    @inlinable
    public func forEachLive(_ body: (Particle) -> Void) {
        for particle in allParticles where particle.isAlive { body(particle) }
    }

    /// Every slot, live or not (for `forEachLive`).
    public var allParticles: [Particle] { particles }

    /// Sine and cosine without Foundation (a few terms of Taylor series after range reduction;
    /// a burst needs directions, not precision).
    static func sinCos(_ angle: Float) -> (Float, Float) {
        func sine(_ x: Float) -> Float {
            // Reduce to −π…π.
            var a = x
            while a > Float.pi { a -= 2 * Float.pi }
            while a < -Float.pi { a += 2 * Float.pi }
            let a2 = a * a
            return a * (1 - a2 / 6 * (1 - a2 / 20 * (1 - a2 / 42 * (1 - a2 / 72 * (1 - a2 / 110)))))
        }
        return (sine(angle), sine(angle + Float.pi / 2))
    }
}

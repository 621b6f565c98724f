import Synchronization

/// A hit for the mixer: which drum, how hard, and when.
public struct ScheduledHit: Sendable, Equatable {
    /// Index into the kit's drums.
    public var drum: Int32
    /// 0...1.
    public var velocity: Float
    /// The output frame to start at, or `ScheduledHit.now` for the start of the next period.
    public var frame: Int64
    /// The caller's number for this hit (0: none); a started hit with a number is reported on
    /// the mixer's `started` queue.
    public var id: UInt32
    /// The kit generation `drum` indexes (0: whichever kit is playing). After a kit swap, hits
    /// resolved against the old kit are dropped and counted rather than played on the wrong drum.
    public var kitGeneration: UInt32

    /// Start at the beginning of the next render period.
    public static let now: Int64 = -1

    /// Creates a hit.
    public init(drum: Int32, velocity: Float, frame: Int64 = ScheduledHit.now, id: UInt32 = 0,
                kitGeneration: UInt32 = 0) {
        self.drum = drum
        self.velocity = velocity
        self.frame = frame
        self.id = id
        self.kitGeneration = kitGeneration
    }
}

/// A preallocated single-producer, single-consumer ring of hits: the network side pushes, the
/// audio thread pops. Neither side ever blocks, allocates or locks.
///
///   producer: writes the slot at `tail`, then publishes `tail + 1` (release)
///   consumer: reads `tail` (acquire), reads the slot at `head`, then publishes `head + 1`
///
/// Thread safety: one producer thread and one consumer thread at a time.
/// Real-time safety: `push` and `pop` are wait-free: a few atomic loads and stores.
public final class HitQueue: @unchecked Sendable {
    // @unchecked: each slot is written only by the producer before it publishes `tail`, and
    // read only by the consumer after it has seen that `tail`; `head` and `tail` are atomics.
    private let storage: UnsafeMutablePointer<ScheduledHit>
    private let mask: Int
    /// Next slot to read; written by the consumer only.
    private let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    private let tail = Atomic<Int>(0)
    /// Hits refused because the ring was full.
    private let refused = Atomic<Int>(0)

    /// Slots in the ring.
    public let capacity: Int

    /// Creates a ring of `capacity` slots (rounded up to a power of two).
    public init(capacity: Int = 1024) {
        var size = 1
        while size < capacity { size <<= 1 }
        self.capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: ScheduledHit(drum: 0, velocity: 0), count: size)
    }

    deinit { storage.deallocate() }

    /// Adds a hit; false (and counted) when the ring is full. Producer only.
    @discardableResult
    public func push(_ hit: ScheduledHit) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else {
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        storage[t & mask] = hit
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest hit, or nil. Consumer only.
    public func pop() -> ScheduledHit? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let hit = storage[h & mask]
        head.store(h + 1, ordering: .releasing)
        return hit
    }

    /// Hits refused because the ring was full, since it was made.
    public var refusedCount: Int { refused.load(ordering: .relaxed) }
}

/// A hit the mixer started: its number, the output frame of its first sample, and the monotonic
/// time (µs) at which the period holding that frame was rendered, just before it went out.
public struct StartedHit: Sendable, Equatable {
    /// The number given in `ScheduledHit.id`.
    public var id: UInt32
    /// Output frame of the first sample.
    public var frame: Int64
    /// Monotonic µs when its period was rendered.
    public var renderedMicros: Int64
}

/// The same single-producer, single-consumer ring as `HitQueue`, for started hits flowing back
/// from the audio thread (producer) to the control side (consumer).
///
/// Thread safety: one producer and one consumer. Real-time safety: wait-free.
public final class StartedQueue: @unchecked Sendable {
    // @unchecked: as `HitQueue`: slots are published by `tail` and released by `head`.
    private let storage: UnsafeMutablePointer<StartedHit>
    private let mask: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)

    /// Creates a ring of `capacity` slots (a power of two at least that large).
    public init(capacity: Int = 1024) {
        var size = 1
        while size < capacity { size <<= 1 }
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: StartedHit(id: 0, frame: 0, renderedMicros: 0), count: size)
    }

    deinit { storage.deallocate() }

    /// Adds one; false when full (the report is lost, the sound is not). Producer only.
    @discardableResult
    public func push(_ hit: StartedHit) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) <= mask else { return false }
        storage[t & mask] = hit
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest, or nil. Consumer only.
    public func pop() -> StartedHit? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let hit = storage[h & mask]
        head.store(h + 1, ordering: .releasing)
        return hit
    }
}

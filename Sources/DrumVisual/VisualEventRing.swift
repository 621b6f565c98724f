import Synchronization

/// A hit as the visual takes it: which drum (kit index), how hard, and its latencies.
public struct VisualHit: Sendable, Equatable {
    /// Index into the kit's drums, or −1 for a brain-side timing report only.
    public var drum: Int32
    /// 0…1.
    public var velocity: Float
    /// Network latency (µs), or `VisualHit.unknown`.
    public var latencyMicros: Int64
    /// Receipt → period rendered (µs), or `VisualHit.unknown`.
    public var brainMicros: Int64

    /// "Not known".
    public static let unknown = Int64.min

    /// Creates a hit.
    public init(drum: Int32, velocity: Float, latencyMicros: Int64 = VisualHit.unknown,
                brainMicros: Int64 = VisualHit.unknown) {
        self.drum = drum
        self.velocity = velocity
        self.latencyMicros = latencyMicros
        self.brainMicros = brainMicros
    }
}

/// The hand-off from the hit path to the render thread: a preallocated single-producer,
/// single-consumer ring. A push never blocks, locks or allocates; when the render thread falls
/// behind and the ring is full the hit is dropped from the visual (and counted), never delayed.
///
///   producer: writes the slot at `tail`, then publishes `tail + 1` (release)
///   consumer: reads `tail` (acquire), reads the slot at `head`, then publishes `head + 1`
///
/// Thread safety: one producer thread and one consumer thread at a time.
public final class VisualEventRing: @unchecked Sendable {
    // @unchecked: each slot is written only by the producer before it publishes `tail`, and
    // read only by the consumer after it has seen that `tail`; `head` and `tail` are atomics.
    private let storage: UnsafeMutablePointer<VisualHit>
    private let mask: Int
    /// Next slot to read; written by the consumer only.
    private let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    private let tail = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    /// Creates a ring of at least `capacity` slots (a power of two).
    public init(capacity: Int = 1024) {
        var size = 1
        while size < capacity { size <<= 1 }
        mask = size - 1
        storage = .allocate(capacity: size)
        storage.initialize(repeating: VisualHit(drum: -1, velocity: 0), count: size)
    }

    deinit { storage.deallocate() }

    /// Adds one; false (and counted) when full. Producer only; wait-free.
    @discardableResult
    public func push(_ hit: VisualHit) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) <= mask else {
            dropped.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        storage[t & mask] = hit
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest, or nil. Consumer only; wait-free.
    public func pop() -> VisualHit? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let hit = storage[h & mask]
        head.store(h + 1, ordering: .releasing)
        return hit
    }

    /// Hits dropped because the ring was full.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }
}

import Synchronization

/// A preallocated single-producer, single-consumer ring of float samples: the audio thread
/// writes what it played, a writer thread drains it to a file. The audio thread never waits:
/// when the ring is full the samples are dropped and counted.
///
/// Thread safety: one producer and one consumer. Real-time safety: `write` is wait-free.
final class SampleRing: @unchecked Sendable {
    // @unchecked: samples at [tail, tail+n) are written only by the producer before it publishes
    // `tail`; the consumer reads only below the `tail` it has seen; indices are atomics.
    private let storage: UnsafeMutablePointer<Float>
    private let capacity: Int
    private let head = Atomic<Int>(0)
    private let tail = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Copies `count` samples in, or drops them all (counted) when there is no room.
    func write(_ samples: UnsafePointer<Float>, count: Int) {
        let t = tail.load(ordering: .relaxed)
        guard capacity - (t - head.load(ordering: .acquiring)) >= count else {
            dropped.wrappingAdd(count, ordering: .relaxed)
            return
        }
        for i in 0..<count { storage[(t + i) % capacity] = samples[i] }
        tail.store(t + count, ordering: .releasing)
    }

    /// Hands every available sample to `body` in up to two contiguous runs; returns how many.
    func drain(_ body: (UnsafeBufferPointer<Float>) -> Void) -> Int {
        let h = head.load(ordering: .relaxed)
        let t = tail.load(ordering: .acquiring)
        guard t > h else { return 0 }
        let start = h % capacity
        let first = min(t - h, capacity - start)
        body(UnsafeBufferPointer(start: storage + start, count: first))
        if first < t - h { body(UnsafeBufferPointer(start: storage, count: t - h - first)) }
        head.store(t, ordering: .releasing)
        return t - h
    }

    /// Samples dropped because the writer fell behind.
    var droppedCount: Int { dropped.load(ordering: .relaxed) }
}

import Synchronization

/// A preallocated single-producer, single-consumer ring: the one hand-off between threads that
/// must never wait (network → audio thread, audio thread → control side, hit path → visual,
/// network → the brain's printer). Neither side ever blocks, allocates or locks.
///
///   producer: writes the slot at `tail`, then publishes `tail + 1` (release)
///   consumer: reads `tail` (acquire), moves the value out of the slot at `head`, then
///             publishes `head + 1`
///
/// The audio thread's rings hold plain (bitwise-copyable) values, so a push or pop there is a
/// copy and never touches a reference count. A ring of values with references (the brain's
/// printer takes hits with their names) retains them on push; they are released where the
/// consumer drops them, or when the ring is freed.
///
/// Thread safety: one producer thread and one consumer thread at a time.
/// Real-time safety: `push` and `pop` are wait-free (a few atomic loads and stores) and
/// `@inlinable`, so each client gets a specialised copy, not a generic call.
public final class SPSCRing<Element: Sendable>: @unchecked Sendable {
    // @unchecked: each slot is initialised only by the producer before it publishes `tail`, and
    // moved out only by the consumer after it has seen that `tail`; `head` and `tail` are
    // atomics. Slots outside head..<tail hold no value.
    @usableFromInline let storage: UnsafeMutablePointer<Element>
    @usableFromInline let mask: Int
    /// Next slot to read; written by the consumer only.
    @usableFromInline let head = Atomic<Int>(0)
    /// Next slot to write; written by the producer only.
    @usableFromInline let tail = Atomic<Int>(0)
    /// Values refused because the ring was full.
    @usableFromInline let refused = Atomic<Int>(0)

    /// Slots in the ring.
    public let capacity: Int

    /// Creates a ring of `capacity` slots (rounded up to a power of two), all empty.
    public init(capacity: Int = 1024) {
        var size = 1
        while size < capacity { size <<= 1 }
        self.capacity = size
        mask = size - 1
        storage = .allocate(capacity: size)
    }

    deinit {
        // Values pushed and never popped: nobody else can reach the ring now.
        for index in head.load(ordering: .acquiring)..<tail.load(ordering: .acquiring) {
            (storage + (index & mask)).deinitialize(count: 1)
        }
        storage.deallocate()
    }

    /// Adds a value; false (and counted) when the ring is full. Producer only.
    @inlinable @discardableResult
    public func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        guard t - head.load(ordering: .acquiring) < capacity else {
            refused.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        (storage + (t & mask)).initialize(to: value)
        tail.store(t + 1, ordering: .releasing)
        return true
    }

    /// Takes the oldest value, or nil. Consumer only.
    @inlinable
    public func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        guard h != tail.load(ordering: .acquiring) else { return nil }
        let value = (storage + (h & mask)).move()
        head.store(h + 1, ordering: .releasing)
        return value
    }

    /// Values refused because the ring was full, since it was made.
    public var refusedCount: Int { refused.load(ordering: .relaxed) }
}

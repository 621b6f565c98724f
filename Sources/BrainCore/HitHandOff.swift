#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SPSCRing
import Synchronization

/// The network thread's hand-off of each received hit to the thread that prints its line and
/// draws its burst: a ring, and a doorbell rung only when that thread has gone to sleep.
///
/// Why not an `AsyncStream`, which the brain used before: each `yield` took the stream's lock,
/// looked up generic metadata, and resumed the waiting task, which woke a thread of the pool (a
/// futex call) for nearly every hit. At 256 pads that was about 30 % of the network thread's
/// samples (perf), more than the brain's own decoding and counting. Here a hit is one push. A
/// consumer that took hits looks again 2 ms later, so under load it wakes at most 500 times a
/// second however many hits come; one that finds none parks, and the next hit rings for it (two
/// wake-ups per hit for a lone pad). The consumer is a thread of its own, not a task: it blocks
/// in `write` to a terminal and waits for hits to start, and must not hold a thread of Swift's
/// cooperative pool while it does.
///
///     consumer:  drain ── took any? ── yes ─► sleep 2 ms ─► drain
///                                   └─ no ──► park (parked = true, drain once more, then wait
///                                            for the bell)
///     producer:  push, then if parked: parked = false and ring the bell
///
/// A hit pushed just as the consumer parks is not missed: each side writes its own flag (the
/// ring's tail, `parked`) and then reads the other's, with a full fence between, so at least one
/// of them sees the other (the consumer drains once more after parking).
///
/// Thread safety: `send` from one producer thread (the network thread); `receive` from one
/// consumer thread; `finish` from anywhere.
public final class HitHandOff<Element: Sendable>: Sendable {
    /// How long a consumer that took hits waits before it looks again.
    public let pollMillis: Int

    private let ring: SPSCRing<Element>
    private let parked = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)
    private let bell = DispatchSemaphore(value: 0)

    /// A hand-off holding up to `capacity` hits the consumer has not taken yet, whose consumer
    /// looks again `pollMillis` after taking some, and parks when a look finds none.
    public init(capacity: Int, pollMillis: Int = 2) {
        ring = SPSCRing(capacity: capacity)
        self.pollMillis = pollMillis
    }

    /// Hits refused because the consumer was `capacity` behind (their lines are not printed).
    public var refusedCount: Int { ring.refusedCount }

    /// Hands `element` over; false when the consumer is too far behind. Producer only.
    @discardableResult
    public func send(_ element: Element) -> Bool {
        let pushed = ring.push(element)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if parked.load(ordering: .relaxed) && parked.exchange(false, ordering: .acquiringAndReleasing) {
            bell.signal()
        }
        return pushed
    }

    /// No more hits will be sent: `receive` returns once it has handed over what is left.
    public func finish() {
        finished.store(true, ordering: .sequentiallyConsistent)
        bell.signal()
    }

    /// Calls `body` with each hit in order until `finish` and the last hit, blocking the calling
    /// thread between them; one consumer only.
    public func receive(_ body: (Element) -> Void) {
        while true {
            var took = false
            while let element = ring.pop() {
                took = true
                body(element)
            }
            if finished.load(ordering: .sequentiallyConsistent) {
                // `finish` came after the last send: one more look takes anything sent before it.
                while let element = ring.pop() { body(element) }
                return
            }
            if took {
                usleep(UInt32(pollMillis * 1000))
                continue
            }
            parked.store(true, ordering: .sequentiallyConsistent)
            atomicMemoryFence(ordering: .sequentiallyConsistent)
            if let element = ring.pop() {
                parked.store(false, ordering: .relaxed)
                body(element)
                continue
            }
            // Woken by the next hit or by `finish`; a ring left over from an earlier park only
            // costs one more look.
            bell.wait()
        }
    }
}

import BrainCore
import Foundation  // Thread
import Monotonic
import SPSCRing
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The brain's hand-off of received hits to its printer: every hit arrives, in order, whether
/// the consumer is polling or parked, and `finish` ends it only after the last one.
struct HitHandOffTests {
    /// Received values, shared between the consumer task and the test.
    final class Seen: Sendable {
        let values = Mutex<[Int]>([])
        var count: Int { values.withLock { $0.count } }
    }

    /// Sends `values` from a thread of its own (as the network thread does), pausing `pause(i)`
    /// µs before value i.
    static func produce(_ handOff: HitHandOff<Int>, _ values: [Int], pause: @escaping @Sendable (Int) -> UInt32) async {
        let refused = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            Thread {
                var refused = 0
                for (i, value) in values.enumerated() {
                    let micros = pause(i)
                    if micros > 0 { usleep(micros) }
                    if !handOff.send(value) { refused += 1 }
                }
                done.resume(returning: refused)
            }.start()
        }
        #expect(refused == 0)
    }

    /// Runs `handOff`'s consumer on a thread of its own (as the brain's printer does), started
    /// at once from the calling thread (a task would first need a thread of the pool, which a
    /// busy parallel run can keep it from for seconds); the returned task ends when the consumer has.
    static func consume(_ handOff: HitHandOff<Int>, into seen: Seen) -> Task<Void, Never> {
        let done = AsyncStream.makeStream(of: Void.self)
        Thread {
            handOff.receive { value in seen.values.withLock { $0.append(value) } }
            done.continuation.finish()
        }.start()
        return Task { for await _ in done.stream {} }
    }

    /// Waits up to `seconds` for `seen` to hold `count` values.
    static func waitFor(_ count: Int, in seen: Seen, seconds: Double) async -> Bool {
        let deadline = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
        while seen.count < count && MonotonicClock.nowMicros() < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return seen.count >= count
    }

    @Test func everyHitArrivesInOrderThroughBurstsAndPauses() async {
        // Bursts with no pause, and pauses longer than a look, so that the consumer both polls
        // and parks.
        let handOff = HitHandOff<Int>(capacity: 4096, pollMillis: 2)
        let seen = Seen()
        let consumer = Self.consume(handOff, into: seen)
        let values = Array(0..<3000)
        await Self.produce(handOff, values) { i in i % 500 == 0 ? 40_000 : (i % 7 == 0 ? 300 : 0) }
        #expect(await Self.waitFor(values.count, in: seen, seconds: 30), "a hit sent was never handed over")
        handOff.finish()
        await consumer.value
        #expect(seen.values.withLock { $0 } == values)
    }

    @Test func aParkedConsumerIsWokenByEachHit() async {
        // One hit at a time, each sent only once the last was taken, mostly after the consumer's
        // look 1 ms later found nothing and it parked: those go through the doorbell. A lost
        // wake-up leaves a hit waiting, and the count short.
        let handOff = HitHandOff<Int>(capacity: 64, pollMillis: 1)
        let seen = Seen()
        let consumer = Self.consume(handOff, into: seen)
        for round in 0..<400 {
            await Self.produce(handOff, [round]) { _ in UInt32(round % 3 == 0 ? 0 : 3000) }
            #expect(await Self.waitFor(round + 1, in: seen, seconds: 10), "hit \(round) was not handed over")
            guard seen.count == round + 1 else { break }
        }
        handOff.finish()
        await consumer.value
        #expect(seen.values.withLock { $0 } == Array(0..<400))
    }

    @Test func finishHandsOverWhatIsLeftThenEnds() async {
        let handOff = HitHandOff<Int>(capacity: 64)
        for value in 0..<10 { handOff.send(value) }
        handOff.finish()
        let seen = Seen()
        handOff.receive { value in seen.values.withLock { $0.append(value) } }  // returns: finished
        #expect(seen.values.withLock { $0 } == Array(0..<10))
    }

    @Test func aFullHandOffRefusesAndCounts() {
        let handOff = HitHandOff<Int>(capacity: 4)
        let accepted = (0..<6).map { handOff.send($0) }
        #expect(accepted == [true, true, true, true, false, false])
        #expect(handOff.refusedCount == 2)
    }

    /// A value with references pushed into the ring is kept alive by it and released when it is
    /// popped and dropped, or when the ring is freed.
    @Test func aRingOfReferencesReleasesWhatItHolds() {
        final class Token: Sendable {}
        weak var popped: Token?
        weak var left1: Token?
        weak var left2: Token?
        do {
            let ring = SPSCRing<Token>(capacity: 4)
            do {
                let a = Token(), b = Token(), c = Token()
                popped = a
                left1 = b
                left2 = c
                ring.push(a)
                ring.push(b)
                ring.push(c)
            }
            #expect(popped != nil && left1 != nil && left2 != nil, "the ring keeps what it holds")
            _ = ring.pop()
            #expect(popped == nil, "a value popped and dropped is released")
            #expect(left1 != nil && left2 != nil)
        }
        #expect(left1 == nil && left2 == nil, "freeing the ring releases the values still in it")
    }
}

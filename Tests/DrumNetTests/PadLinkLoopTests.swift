#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import TestSupport
@testable import DrumNet
import Monotonic

/// The pad link's own loop (it replaced SwiftNIO on pads): its timers, its jobs from other
/// threads, its end, and links that fail, connect, and share one loop.
@Suite(.serialized)
struct PadLinkLoopTests {
    @Test func timersRunInDueOrderAndCancelledOnesNever() async throws {
        let loop = try PadLinkLoop()
        let order = Mutex<[Int]>([])
        let done = Mutex(false)
        loop.execute {
            // Scheduled out of order, one cancelled; the last one ends the test.
            for (index, delay) in [(3, 30_000), (1, 10_000), (2, 20_000), (9, 15_000)] as [(Int, Int64)] {
                let timer = loop.schedule(inMicros: delay) { order.withLock { $0.append(index) } }
                if index == 9 { timer.cancel() }
            }
            loop.schedule(inMicros: 40_000) { done.withLock { $0 = true } }
        }
        #expect(await eventually(within: 5) { done.withLock { $0 } })
        #expect(order.withLock { $0 } == [1, 2, 3])
        loop.shutdown()
    }

    @Test func jobsFromManyThreadsAllRunAndNoneAfterTheEnd() async throws {
        final class Count: Sendable { let value = Mutex(0) }
        let loop = try PadLinkLoop()
        let count = Count()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<500 { loop.execute { count.value.withLock { $0 += 1 } } } }
            }
        }
        #expect(await loop.run { count.value.withLock { $0 } } == 4000)
        loop.shutdown()
        #expect(await eventually(within: 5) { !loop.execute {} })
        #expect(await loop.run { 1 } == nil)
    }

    @Test func aHostThatDoesNotResolveAndAPortWithNoBrainAreSaidAndRetried() async throws {
        let events = EventCollector()
        let link = try PadLink(configuration: .init(padName: "p", drum: "snare",
                                                    target: .address(host: "no-such-host.invalid", port: 7770))) {
            events.add($0)
        }
        link.start()
        #expect(await eventually(within: 10) { events.all.filter { if case .connectFailed = $0 { true } else { false } }.count >= 2 })
        guard case .connectFailed(let reason, let wait)? = events.all.first else {
            Issue.record("\(events.all)")
            return
        }
        #expect(reason.hasPrefix("no-such-host.invalid:7770: "), "\(reason)")
        #expect(wait == 50_000)
        await link.stop()

        // A port nothing listens on: refused, named.
        let closed = try await startBrain(collector: HitCollector())
        let port = closed.port
        await closed.stop()
        let refused = EventCollector()
        let second = try PadLink(configuration: .init(padName: "p", drum: "snare", target: .address(host: "127.0.0.1", port: port))) {
            refused.add($0)
        }
        second.start()
        #expect(await eventually(within: 10) { !refused.all.isEmpty })
        #expect(refused.all.first == .connectFailed(reason: "127.0.0.1:\(port): Connection refused", retryInMicros: 50_000))
        await second.stop()
    }

    /// A brain that stops reading (here: a socket the kernel connects and nobody reads) gets
    /// the hits the socket takes, then 64 KiB more in the link's outbox; past that the link
    /// gives up on the connection, says why, and tries again, instead of holding every hit.
    @Test func aBrainThatStopsReadingIsLeftNotBuffered() async throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var small: Int32 = 4096  // the kernel doubles it; connections inherit it
        setsockopt(listener, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(listen(listener, 1) == 0)
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let port = Int(UInt16(bigEndian: bound.sin_port))
        let events = EventCollector()
        let link = try PadLink(configuration: .init(padName: "p", drum: "snare", target: .address(host: "127.0.0.1", port: port),
                                                    pingIntervalMicros: 60_000_000)) { events.add($0) }
        link.start()
        #expect(await eventually(within: 10) { events.all.contains(.connected(address: "127.0.0.1:\(port)")) })
        func lost() -> String? {
            for event in events.all { if case .lost(let reason) = event { return reason } }
            return nil
        }
        var sent = 0
        let deadline = MonotonicClock.nowMicros() + 30_000_000
        while lost() == nil && MonotonicClock.nowMicros() < deadline {
            for _ in 0..<5_000 { link.send(DrumHit(drum: "snare", velocity: 0.5)) }
            sent += 5_000
            _ = await link.statistics()  // the loop has taken them
        }
        let reason = lost()
        #expect(reason == "the brain stopped reading (64 KiB unsent)", "after \(sent) hits: \(events.all.suffix(3))")
        // Then it tries again: connected anew (the listener's backlog takes it) or refused.
        let lostAt = events.firstTime { if case .lost = $0 { true } else { false } } ?? 0
        #expect(await eventually(within: 10) {
            events.firstTime(where: { event in
                switch event {
                case .connected, .connectFailed: true
                default: false
                }
            }, after: lostAt) != nil
        })
        await link.stop()
    }

    @Test func manyLinksShareOneLoop() async throws {
        let collector = HitCollector()
        let brain = try await startBrain(collector: collector)
        let loop = try PadLinkLoop()
        let welcomed = Mutex(0)
        let links = try (0..<20).map { index in
            try PadLink(configuration: .init(padName: "pad-\(index)", drum: "snare",
                                             target: .address(host: "127.0.0.1", port: brain.port)), loop: loop) { event in
                if case .welcomed = event { welcomed.withLock { $0 += 1 } }
            }
        }
        for link in links { link.start() }
        #expect(await eventually(within: 10) { welcomed.withLock { $0 } == 20 })
        for (index, link) in links.enumerated() {
            link.send(DrumHit(drum: "snare", velocity: Float(index + 1) / 20))
        }
        #expect(await eventually(within: 10) { collector.all.count == 20 })
        #expect(Set(collector.all.compactMap(\.padName)) == Set((0..<20).map { "pad-\($0)" }))
        for link in links { #expect(await link.stop().sentHits == 1) }
        // The shared loop outlives its links until told to end.
        #expect(await loop.run { true } == true)
        loop.shutdown()
        await brain.stop()
    }
}

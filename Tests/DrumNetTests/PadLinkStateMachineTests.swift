import Testing
@testable import DrumNet

struct PadLinkStateMachineTests {
    @Test func connectsSaysHelloAndSendsHits() {
        var link = PadLinkStateMachine()
        #expect(link.start() == [.connect])
        let early = link.hitProduced()
        #expect(!early)  // not connected yet: dropped
        #expect(link.connectSucceeded() == [.sayHelloAndStartPinging])
        let sent = link.hitProduced()
        #expect(sent)
        #expect(link.droppedHits == 1 && link.reconnects == 0)
    }

    @Test func failuresBackOffExponentiallyToTheCap() {
        var link = PadLinkStateMachine(initialBackoffMicros: 50_000, maxBackoffMicros: 1_000_000)
        _ = link.start()
        var waits: [Int64] = []
        for _ in 0..<7 {
            guard case .retry(let wait)? = link.connectFailed().first else { Issue.record("no retry"); return }
            waits.append(wait)
            #expect(link.retryDue() == [.connect])
        }
        #expect(waits == [50_000, 100_000, 200_000, 400_000, 800_000, 1_000_000, 1_000_000])
    }

    @Test func lostConnectionRetriesSoonAndCountsTheReconnect() {
        var link = PadLinkStateMachine()
        _ = link.start()
        _ = link.connectSucceeded()
        #expect(link.connectionLost() == [.stopPinging, .retry(afterMicros: 50_000)])
        let first = link.hitProduced(), second = link.hitProduced()
        #expect(!first && !second)
        #expect(link.droppedSinceConnected == 2)
        _ = link.retryDue()
        // After a lost link the backoff starts again from the first wait.
        #expect(link.connectFailed() == [.retry(afterMicros: 100_000)])
        _ = link.retryDue()
        #expect(link.connectSucceeded() == [.sayHelloAndStartPinging])
        #expect(link.reconnects == 1 && link.droppedHits == 2)
    }

    @Test func stopIsFinalAndEventsAfterItDoNothing() {
        var link = PadLinkStateMachine()
        _ = link.start()
        _ = link.connectSucceeded()
        #expect(link.stop() == [.stopPinging, .close])
        #expect(link.connectionLost().isEmpty && link.retryDue().isEmpty && link.start().isEmpty)
        #expect(link.state == .stopped)
    }

    @Test func lateEventsFromAnOldAttemptAreIgnored() {
        var link = PadLinkStateMachine()
        #expect(link.connectSucceeded().isEmpty)
        _ = link.start()
        _ = link.connectSucceeded()
        #expect(link.connectFailed().isEmpty)
        #expect(link.retryDue().isEmpty)
    }
}

import BrainCore
import Dispatch
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A signal is caught from the moment `CaughtSignal.source` returns: the brain's stop (SIGINT,
/// SIGTERM) and kit reload (SIGHUP) rely on it, since a test or a service manager may send them
/// the moment the brain says it listens.
struct CaughtSignalTests {
    /// Sent to the process at once after `source` returns, each signal reaches its handler.
    /// Without the wait for Dispatch's handler, a signal sent then met SIG_IGN and was lost (in
    /// six runs of six, the first signal of each).
    @Test func aSignalSentAsSoonAsItIsCaughtIsNotLost() {
        let arrivals = Atomic<Int>(0)
        for (round, number) in [SIGUSR1, SIGUSR2].enumerated() {
            let source = CaughtSignal.source(number) { arrivals.add(1, ordering: .relaxed) }
            defer { source.cancel() }
            kill(getpid(), number)
            let arrived = eventually(within: 10) { arrivals.load(ordering: .relaxed) > round }
            #expect(arrived, "signal \(number): \(arrivals.load(ordering: .relaxed)) of \(round + 1) signals reached the handler")
            // The disposition is Dispatch's handler, not SIG_IGN, nor the default (ending the process).
            var action = sigaction()
            #expect(sigaction(number, nil, &action) == 0)
            let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            #expect(handler != unsafeBitCast(SIG_IGN, to: Int.self) && handler != unsafeBitCast(SIG_DFL, to: Int.self))
        }
    }
}

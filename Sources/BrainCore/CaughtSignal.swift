import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A signal taken from its default action and handed to a Dispatch source, caught from the
/// moment `CaughtSignal.source` returns. libdispatch puts its own handler in on its own thread
/// after `resume()` returns: until then the signal meets `SIG_IGN` and is lost (read back right
/// after `resume()`, SIGINT was still ignored; a test that stopped the brain the moment it said
/// it listened, on a machine loaded by the whole suite, waited 60 s for it). So `source` waits
/// until that handler is in, 2 s at most.
///
/// One source per signal for the life of the process: Dispatch puts its handler in only for a
/// signal's first source, so a second call's SIG_IGN would replace that handler for good (and
/// its wait run out). Asking for one is a programming error.
public enum CaughtSignal {
    private static let caught = Mutex<Set<Int32>>([])

    /// A resumed signal source for `number` on `queue`, calling `handler` on each arrival.
    public static func source(_ number: Int32, queue: DispatchQueue = .global(),
                              handler: @escaping @Sendable () -> Void) -> DispatchSourceSignal {
        precondition(caught.withLock { $0.insert(number).inserted }, "signal \(number) is caught already")
        // Its default action (most end the process) is off until Dispatch's handler is in.
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler(handler: handler)
        source.resume()
        var polls = 0
        while disposition(of: number) == unsafeBitCast(SIG_IGN, to: Int.self) && polls < 20_000 {
            usleep(100)
            polls += 1
        }
        return source
    }

    /// Signal `number`'s handler now, as a number (SIG_DFL and SIG_IGN are 0 and 1), or -1 when
    /// it cannot be read.
    private static func disposition(of number: Int32) -> Int {
        var action = sigaction()
        guard sigaction(number, nil, &action) == 0 else { return -1 }
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
    }
}

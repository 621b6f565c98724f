import Dispatch
import BrainCore
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT or SIGTERM (and SIGHUP, with `hangup`), caught from the moment it is made
/// (`CaughtSignal`) and kept until `wait` takes it: a signal that comes before anyone waits is
/// not lost. Their default actions (ending the process at once) are turned off, so the caller
/// can stop cleanly; Dispatch's signal sources see them on every thread.
struct StopSignal {
    private let signals: AsyncStream<Int32>
    private let sources: [DispatchSourceSignal]

    init(hangup: Bool = false) {
        let (signals, arrived) = AsyncStream.makeStream(of: Int32.self)
        self.signals = signals
        self.sources = ([SIGINT, SIGTERM] + (hangup ? [SIGHUP] : [])).map { number in
            CaughtSignal.source(number) { arrived.yield(number) }
        }
    }

    /// Returns when one of the signals has arrived (at once if one already has).
    func wait() async {
        for await _ in signals { break }
        for source in sources { source.cancel() }
    }
}

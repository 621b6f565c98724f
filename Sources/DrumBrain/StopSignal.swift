import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT or SIGTERM (and SIGHUP, with `hangup`), caught from the moment it is made (it returns
/// once Dispatch's handlers are in) and kept until `wait` takes it: a signal that comes before
/// anyone waits is not lost. Their default
/// actions (ending the process at once) are turned off, so the caller can stop cleanly;
/// Dispatch's signal sources see them on every thread.
struct StopSignal {
    private let signals: AsyncStream<Int32>
    private let sources: [DispatchSourceSignal]

    init(hangup: Bool = false) {
        let (signals, arrived) = AsyncStream.makeStream(of: Int32.self)
        var sources: [DispatchSourceSignal] = []
        let numbers = [SIGINT, SIGTERM] + (hangup ? [SIGHUP] : [])
        for number in numbers {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { arrived.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.signals = signals
        self.sources = sources
        // libdispatch puts its handler in on its own thread after `resume()` returns: until then
        // a signal meets SIG_IGN and is lost (read back right after `resume()`, SIGINT was still
        // ignored; a test that stopped the brain the moment it said it listened, on a machine
        // loaded by the whole suite, waited 60 s for it). Wait until it is in, 2 s at most.
        for number in numbers {
            var polls = 0
            while Self.isIgnored(number) && polls < 20_000 {
                usleep(100)
                polls += 1
            }
        }
    }

    /// Whether signal `number` is ignored (SIG_IGN) now.
    private static func isIgnored(_ number: Int32) -> Bool {
        var action = sigaction()
        guard sigaction(number, nil, &action) == 0 else { return false }
        return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Returns when one of the signals has arrived (at once if one already has).
    func wait() async {
        for await _ in signals { break }
        for source in sources { source.cancel() }
    }
}

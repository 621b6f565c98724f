import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT or SIGTERM (and SIGHUP, with `hangup`), caught from the moment it is made and kept
/// until `wait` takes it: a signal that comes before anyone waits is not lost. Their default
/// actions (ending the process at once) are turned off, so the caller can stop cleanly;
/// Dispatch's signal sources see them on every thread.
struct StopSignal {
    private let signals: AsyncStream<Int32>
    private let sources: [DispatchSourceSignal]

    init(hangup: Bool = false) {
        let (signals, arrived) = AsyncStream.makeStream(of: Int32.self)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] + (hangup ? [SIGHUP] : []) {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { arrived.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.signals = signals
        self.sources = sources
    }

    /// Returns when one of the signals has arrived (at once if one already has).
    func wait() async {
        for await _ in signals { break }
        for source in sources { source.cancel() }
    }
}

/// Buffered standard output, one write per line (lines stay whole when piped).
struct StandardOutput {
    /// Writes `line` and a newline in one write.
    static func line(_ line: String) {
        var out = StandardOutput()
        out.writeLine(line)
    }

    mutating func writeLine(_ line: String) {
        var text = line
        text.append("\n")
        text.withUTF8 { utf8 in _ = write(1, utf8.baseAddress, utf8.count) }  // a closed stdout ends nothing
    }
}

/// Writes one line to standard error at once.
func printError(_ line: String) {
    var text = line
    text.append("\n")
    text.withUTF8 { utf8 in _ = write(2, utf8.baseAddress, utf8.count) }  // nothing to do if stderr is gone
}

extension String {
    /// `value` with 1 decimal.
    init(format1 value: Double) {
        let scaled = Int((value * 10).rounded())
        self = (scaled < 0 ? "-" : "") + "\(abs(scaled) / 10).\(abs(scaled) % 10)"
    }

    /// `value` with 3 decimals.
    init(format3 value: Double) {
        let scaled = Int((value * 1000).rounded())
        let fraction = String(abs(scaled) % 1000)
        self = (scaled < 0 ? "-" : "") + "\(abs(scaled) / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Monotonic
import Synchronization
import Testing

/// Watches the machine while a timing test runs: a thread that sleeps 1 ms at a time and notes
/// how late it wakes, and the CPU time the hypervisor stole (`/proc/stat`). A virtual machine
/// that is descheduled stalls every process at once, the sound server and the brain as much as
/// this thread, so a long late wake-up here says the machine, not the code, lost that time.
///
/// Thread safety: `stop` from one thread; `worstMillis` from any. Watching starts in `init`.
public final class StallProbe: @unchecked Sendable {
    /// One wake-up at least this late counts as a stall.
    public static let stallMillis = 20.0

    private let state = Mutex(State())
    private var thread = pthread_t()
    private let stealAtStart: Int64?

    private struct State {
        var running = true
        var worstMicros: Int64 = 0
        var stalls = 0
        var stalledMicros: Int64 = 0
    }

    /// Starts watching.
    public init() {
        stealAtStart = Self.stealTicks()
        let box = Unmanaged.passRetained(self)
        pthread_create(&thread, nil, { argument in
            let probe = Unmanaged<StallProbe>.fromOpaque(argument!).takeRetainedValue()
            probe.watch()
            return nil
        }, box.toOpaque())
    }

    private func watch() {
        while state.withLock({ $0.running }) {
            let asked = MonotonicClock.nowMicros() + 1000
            MonotonicClock.sleep(untilMicros: asked)
            let late = MonotonicClock.nowMicros() - asked
            state.withLock {
                $0.worstMicros = max($0.worstMicros, late)
                if Double(late) >= Self.stallMillis * 1000 {
                    $0.stalls += 1
                    $0.stalledMicros += late
                }
            }
        }
    }

    /// The most a wake-up has been late so far, in ms.
    public var worstMillis: Double { Double(state.withLock { $0.worstMicros }) / 1000 }

    /// Stops the thread (idempotent) and says what it saw: the worst late wake-up, the stalls
    /// of 20 ms or more and their total, and the CPU time stolen from this VM meanwhile.
    @discardableResult
    public func stop() -> String {
        let wasRunning = state.withLock { state in
            defer { state.running = false }
            return state.running
        }
        if wasRunning { pthread_join(thread, nil) }
        let seen = state.withLock { $0 }
        var steal = ""
        if let before = stealAtStart, let after = Self.stealTicks() {
            steal = "; \((after - before) * 1000 / Int64(sysconf(Int32(_SC_CLK_TCK)))) ms of CPU stolen by the host"
        }
        return "machine: worst wake-up \((Double(seen.worstMicros) / 100).rounded() / 10) ms late; \(seen.stalls) stalls of "
            + "\(Int(Self.stallMillis)) ms or more (\(seen.stalledMicros / 1000) ms in all)\(steal)"
    }

    /// The `steal` column of /proc/stat's `cpu` line (all CPUs, in clock ticks).
    static func stealTicks() -> Int64? {
        let fields = Program.contents("/proc/stat").prefix { $0 != "\n" }.split(separator: " ")
        guard fields.first == "cpu", fields.count > 8 else { return nil }
        return Int64(fields[8])
    }
}

/// Runs a timing test up to `attempts` times, with a `StallProbe` watching each. The host of a
/// shared VM sometimes stops the whole machine for tenths of a second (a 1 ms sleep once woke
/// 541 ms late, with a third of the CPU stolen): the sound device runs dry, the recording jumps,
/// and no code could keep time through that. So an attempt that fails while the probe saw the
/// machine stall (a wake-up 20 ms or more late) is said, with what the probe saw, and run again;
/// its failures show as known issues. A failure on a machine that did not stall is a failure at
/// once. In the last attempt every failure stands except a timing check (`TimingAttempt.expect`)
/// on a machine that stalled: that one is printed as not judged.
public func whereTheMachineMayStall(attempts: Int, _ body: (TimingAttempt) throws -> Void) rethrows {
    for number in 1...attempts {
        let attempt = TimingAttempt(probe: StallProbe(), isLast: number == attempts)
        let excused = Mutex(0)
        try withKnownIssue("the machine stalled (StallProbe)", isIntermittent: true) {
            try body(attempt)
        } matching: { _ in
            guard !attempt.isLast && attempt.probe.worstMillis >= StallProbe.stallMillis else { return false }
            excused.withLock { $0 += 1 }
            return true
        }
        print("attempt \(number) of \(attempts): \(attempt.probe.stop())")
        let failures = excused.withLock { $0 }
        if failures == 0 { return }
        print("attempt \(number) of \(attempts): \(failures) failures while the machine stalled; running it again")
    }
}

/// One run of a timing test under `whereTheMachineMayStall`.
public final class TimingAttempt: Sendable {
    public let probe: StallProbe
    public let isLast: Bool
    private let unjudged = Mutex(0)

    init(probe: StallProbe, isLast: Bool) {
        self.probe = probe
        self.isLast = isLast
    }

    /// Timing checks not judged so far (failed in a last attempt on a machine that stalled).
    public var notJudged: Int { unjudged.withLock { $0 } }

    /// A check of timing, which a stalled machine can fail whatever the code does: a failure is
    /// an issue, except in the last attempt on a machine that stalled, where it is printed as
    /// not judged (earlier attempts are run again, see `whereTheMachineMayStall`).
    public func expect(_ condition: Bool, _ message: @autoclosure () -> String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        if condition { return }
        if isLast && probe.worstMillis >= StallProbe.stallMillis {
            unjudged.withLock { $0 += 1 }
            print("timing not judged, the machine stalled (worst wake-up \(probe.worstMillis) ms late): \(message())")
        } else {
            Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        }
    }
}

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
        var wakeUps = 0
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
                $0.wakeUps += 1
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

    /// How many times the thread has woken so far (none until the system first runs it).
    public var wakeUps: Int { state.withLock { $0.wakeUps } }

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

/// Runs a timing test once, with a `StallProbe` watching. The host of a shared VM sometimes
/// stops the whole machine for tenths of a second (a 1 ms sleep once woke 541 ms late, with a
/// third of the CPU stolen): the sound device runs dry, the recording jumps, hits reach the brain
/// late, and no code could keep time through that. So a timing figure (a latency, an offset, a
/// jump, an underrun the machine caused: `TimingAttempt.timing`) that fails while the probe saw
/// the machine stall (a wake-up 20 ms or more late) is printed as not judged, with what the probe
/// saw. Nothing else is excused: a functional check (`#expect`, `#require`: every strike heard or
/// played once on its drum, a count, a file's content) fails the test whatever the machine did;
/// a test whose functional checks a slow machine could fail is given longer deadlines and more
/// room instead.
///
/// The body runs once. It used to run up to three times here, and `scripts/test` runs a failed
/// suite once more, so an end-to-end test could run six times before it failed; now the only
/// rerun is `scripts/test`'s, which says so with its cause: a test runs at most twice in all.
public func whereTheMachineMayStall(_ body: (TimingAttempt) throws -> Void) rethrows {
    let attempt = TimingAttempt(probe: StallProbe())
    defer {
        print("timing test: \(attempt.probe.stop())"
              + (attempt.notJudged > 0 ? "; \(attempt.notJudged) timing checks not judged (the machine stalled)" : ""))
    }
    try body(attempt)
}

/// One run of a timing test under `whereTheMachineMayStall`: its timing checks.
public final class TimingAttempt: Sendable {
    public let probe: StallProbe
    private let unjudged = Mutex(0)

    init(probe: StallProbe) {
        self.probe = probe
    }

    /// Timing checks not judged so far (failed on a machine that stalled).
    public var notJudged: Int { unjudged.withLock { $0 } }

    /// Whether the probe has seen the machine stall so far.
    public var machineStalled: Bool { probe.worstMillis >= StallProbe.stallMillis }

    /// A check of a timing figure, which a stalled machine can fail whatever the code does: a
    /// failure is an issue, except on a machine that stalled, where it is printed as not judged.
    /// Only for timing figures (latency, offsets, jumps, underruns and late hits the machine
    /// caused, how many hits could be timed); a functional result is an `#expect`.
    public func timing(_ condition: Bool, _ message: @autoclosure () -> String,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        if condition { return }
        // A stall that just ended may not be recorded yet: the probe's thread notes it when it
        // next runs, which a loaded machine can put off. Give it that chance (up to 50 ms).
        for _ in 0..<50 where !machineStalled { usleep(1000) }
        if machineStalled {
            unjudged.withLock { $0 += 1 }
            print("timing not judged, the machine stalled (worst wake-up \(probe.worstMillis) ms late): \(message())")
        } else {
            Issue.record(Comment(rawValue: message()), sourceLocation: sourceLocation)
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import DrumAudio
import Monotonic

/// The brain's line printer: on a thread of its own, takes each routed hit from the network
/// thread, waits for the mixer's report of what became of it, and prints its line (or hands it
/// to the visual).
///
/// Every hit the mixer took is reported once (started, taken back, dropped, stale), and one the
/// audio queue refused is known on arrival, so the printer waits only for reports that will
/// come: the wait ends at the report, when the audio thread has stopped, or at a deadline that
/// only a device standing still for seconds reaches (a stopped sound server; the line then goes
/// out without its frame). A thread, not a task: it blocks in `write` to a slow terminal and
/// sleeps a millisecond at a time while a hit waits to start, which must not hold a thread of
/// Swift's cooperative pool.
///
/// Thread safety: `start` and `finish` from the control side; everything else on its thread.
public final class HitPrinter: @unchecked Sendable {
    // @unchecked: `ledger` and the sinks' state are touched only on the printer's thread; the
    // hand-off and the started queue are single-producer, single-consumer rings with this
    // thread as their consumer.

    /// Where the printer's output goes, all called on its thread.
    public struct Sinks: Sendable {
        /// A line for standard output; nil: no lines (quiet, or the visual has the screen).
        public var line: (@Sendable (String) -> Void)?
        /// A hit started (or waited for in vain): its drum, velocity and network latency, for a burst.
        public var burst: @Sendable (_ drum: Int?, _ velocity: Float, _ latencyMicros: Int64?) -> Void
        /// How long the brain took from receipt to rendering the hit's period, µs.
        public var brainTime: @Sendable (Int64) -> Void
        /// A hit that started: its drum (in the kit it was routed against), velocity and the
        /// output frame its sound starts at (for MIDI).
        public var started: (@Sendable (_ drum: Int, _ velocity: Float, _ frame: Int64) -> Void)?

        /// Sinks for lines only, or for nothing.
        public init(line: (@Sendable (String) -> Void)?,
                    burst: @escaping @Sendable (Int?, Float, Int64?) -> Void = { _, _, _ in },
                    brainTime: @escaping @Sendable (Int64) -> Void = { _ in },
                    started: (@Sendable (Int, Float, Int64) -> Void)? = nil) {
            self.line = line
            self.burst = burst
            self.brainTime = brainTime
            self.started = started
        }
    }

    /// The hits from the network thread.
    public let hits: HitHandOff<RoutedHit>
    private let started: StartedQueue
    private let audioRunning: @Sendable () -> Bool
    private let kitDrums: @Sendable () -> [String]
    private let sinks: Sinks
    private let rate: Int
    private let startWaitMicros: Int64
    private var ledger = StartLedger()
    private var thread = pthread_t()
    private var running = false

    /// A printer for hits played at `rate`, whose starts come on `started` (the mixer's), which
    /// waits up to `startWaitMicros` after a hit's arrival for its report while `audioRunning`.
    public init(capacity: Int = 4096, started: StartedQueue, rate: Int, startWaitMicros: Int64,
                audioRunning: @escaping @Sendable () -> Bool, kitDrums: @escaping @Sendable () -> [String],
                sinks: Sinks) {
        hits = HitHandOff(capacity: capacity)
        self.started = started
        self.rate = rate
        self.startWaitMicros = startWaitMicros
        self.audioRunning = audioRunning
        self.kitDrums = kitDrums
        self.sinks = sinks
    }

    /// Starts the printer's thread.
    public func start() {
        precondition(!running, "a printer starts once")
        running = true
        let me = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { argument in
            let printer = Unmanaged<HitPrinter>.fromOpaque(argument!).takeRetainedValue()
            printer.hits.receive { printer.print($0) }
            return nil
        }, me)
        precondition(created == 0, "cannot start the brain's printer thread: \(String(cString: strerror(created)))")
    }

    /// Prints what is left and ends the thread; returns when it has.
    public func finish() {
        guard running else { return }
        hits.finish()
        pthread_join(thread, nil)
        running = false
    }

    /// One hit's line and burst. Printer thread only.
    func print(_ routed: RoutedHit) {
        switch routed.disposition {
        case .felt:
            break  // a push felt through the stand, no hit: counted in the summary, not shown
        case .crosstalk:
            sinks.line?(BrainLines.crosstalk(routed, takenBack: false))
        case .unknownDrum:
            sinks.line?(BrainLines.unknown(routed, kitDrums: kitDrums()))
        case .queueFull:
            sinks.line?(BrainLines.dropped(routed, reason: "queue_full"))
        case .queued(let number):
            let report = waitForReport(number, arrivedMicros: routed.received.receivedMicros)
            switch report?.outcome {
            case .takenBack?:
                sinks.line?(BrainLines.crosstalk(routed, takenBack: true))  // never sounds: no burst
            case .dropped?:
                sinks.line?(BrainLines.dropped(routed, reason: "mixer_full"))
            case .stale?:
                sinks.line?(BrainLines.dropped(routed, reason: "kit_swapped"))
            case .unknownDrum?:
                sinks.line?(BrainLines.unknown(routed, kitDrums: kitDrums()))
            case .started?, nil:
                if let report { sinks.brainTime(report.renderedMicros.saturatingSubtract(routed.received.receivedMicros)) }
                if let report, report.outcome == .started, let drum = routed.drum {
                    sinks.started?(drum, routed.received.hit.velocity, report.frame)
                }
                // The burst goes with the sound: drawn when the hit starts (or when its start
                // was waited for in vain), never for a hit that does not sound.
                sinks.burst(routed.drum, routed.received.hit.velocity, routed.received.latencyMicros)
                sinks.line?(BrainLines.hit(routed, started: report, rate: rate))
            }
        }
    }

    /// The mixer's report for hit `number`, waiting while it may still come.
    private func waitForReport(_ number: UInt32, arrivedMicros: Int64) -> StartedHit? {
        let deadline = arrivedMicros.saturatingAdd(startWaitMicros)
        ledger.reach(number)
        while true {
            while let report = started.pop() { ledger.add(report) }
            if ledger.has(number) || MonotonicClock.nowMicros() >= deadline { break }
            if !audioRunning() {
                while let report = started.pop() { ledger.add(report) }  // its last reports
                break
            }
            usleep(1000)
        }
        return ledger.take(number)
    }
}

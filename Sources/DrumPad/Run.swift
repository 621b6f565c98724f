import Console
import PadCommandLine
import Dispatch
import DrumNet
import HitDetect
import PadSensors
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// `drumpad run`: detect hits and send them to a brain.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect hits and send them to a drumbrain.",
        discussion: """
            The source is the board's accelerometer (--device, default auto: the first one \
            `drumpad devices` lists that opens), or a sensor log CSV or evemu recording replayed \
            in real time (--replay). Without --brain the pad finds a brain through Avahi \
            (DNS-SD), the one named --brain-name if given. When the sensor is unplugged the pad \
            says so, keeps its brain link and resumes when the sensor returns; when the brain \
            goes away it reconnects. Ctrl-C or SIGTERM stops it.

            A brain started with --key-file challenges each pad: give the pad the same file \
            (--key-file) and it answers with HMAC-SHA256 of the key; the key itself never \
            crosses the network.

            Examples:
              drumpad run --drum snare
              drumpad run --drum kick --device /dev/input/event7 --axis y --brain 192.168.1.20:7770
              drumpad run --drum snare --replay Samples/logs/snare-250hz.csv --brain 127.0.0.1:7770
              drumpad run --drum kick --replay kick.evemu --brain-name studio
            """)

    @Option(help: "The drum this pad plays, as the brain's kit names it (kick, snare, hihat, ...).")
    var drum: String

    @Option(help: "Replay this sensor log CSV or evemu recording in real time instead of a sensor.")
    var replay: String?

    @Option(help: "The brain's address, HOST:PORT (skips discovery).")
    var brain: String?

    @Option(help: "Pick the brain with this name among those discovered.")
    var brainName: String?

    @Option(help: "The brain's pairing key file (the same file as drumbrain --key-file), for brains that ask for one.")
    var keyFile: String?

    @Option(help: "This pad's name, shown by the brain (default: HOST-DRUM).")
    var name: String?

    @Option(help: "Seconds to wait for the brain before starting anyway (hits then drop until it comes; default 5, and 0 with --local and no --brain or --brain-name: a practice pad starts at once).")
    var waitForBrain: Double?

    @Option(help: "Start replaying at this wall-clock time (seconds since 1970, such as $(date +%s) + 3), the log's t = 0 then, so pads started one by one play together as their logs were recorded on one clock.")
    var startAt: Double?

    @Flag(help: "Also play the drum on this board's own audio output.")
    var local = false

    @Option(help: "With --local: alsa:DEVICE, wav:FILE or null.")
    var localOutput = "alsa:default"

    @Option(help: "With --local: the kit, a kit.json or its folder (default: the bundled kit). A Hydrogen kit plays on the brain (drumbrain --kit); a pad reads no XML.")
    var kit: String?

    @OptionGroup var deviceOptions: DeviceOptions

    @OptionGroup var options: DetectorOptions

    @OptionGroup var axisOptions: AxisOptions

    func validate() throws {
        if deviceOptions.device != nil && replay != nil {
            throw ValidationError("give --device (a sensor) or --replay (a recording), not both")
        }
        guard drum.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), !drum.isEmpty else {
            throw ValidationError("--drum must be a word such as snare or hat-closed")
        }
        if let brain, Self.parseAddress(brain) == nil {
            throw ValidationError("--brain must be HOST:PORT, such as 192.168.1.20:\(BrainServer.defaultPort)")
        }
        if brain != nil && brainName != nil {
            throw ValidationError("give --brain (an address) or --brain-name (discovery), not both")
        }
        // Both become integers of µs or ns further on: NaN waited forever, 1e300 trapped.
        if let waitForBrain, !(0...86_400).contains(waitForBrain) {
            throw ValidationError("--wait-for-brain must be 0…86400 seconds, such as 5")
        }
        if let startAt, !(0...1e11).contains(startAt) {
            throw ValidationError("--start-at must be seconds since 1970, such as $(( $(date +%s) + 3 ))")
        }
    }

    static func parseAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    func run() throws {
        // Ctrl-C or SIGTERM from here on ends the run as it ends a replay or a sensor's reading,
        // during the waits for the brain and for --start-at too, which then end at once and
        // start nothing (killed instead, the pad left a --local WAV's header unfilled).
        StopRequest.install()
        let padName = name ?? "\(HostName.current(or: "pad"))-\(drum)"
        // The sensor first: a board without one is told so at once, before any network.
        var sensor: LiveSensor?
        if replay == nil {
            sensor = try deviceOptions.open(unitsPerG: axisOptions.unitsPerG) { printError("drumpad: \($0)") }
        } else if let replay {
            // A log that cannot be opened is said now, not after the wait for the brain. Opened
            // only, and only a regular file: a pipe is read once, by the replay.
            var info = stat()
            if stat(replay, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG { _ = try FileChunks(path: replay) }
            if (info.st_mode & S_IFMT) == S_IFDIR { throw DrumPadError.cannotOpen(path: replay, errno: EISDIR) }
        }
        // The local kit and output too: a kit without the drum, or an output that cannot be
        // opened, is said before the wait for the brain. Started after it.
        let playback = local ? try LocalPlayback(drum: drum, kitPath: kit, output: localOutput) : nil
        // Whatever ends the run, the output is finished (a WAV's header filled in); the stop
        // below lets the last hit ring first. One that never started (an error, or Ctrl-C,
        // before the wait's end) is closed too: a WAV of no frames.
        defer { playback?.stop() }
        let target: PadLink.Target = brain.flatMap(Self.parseAddress).map { .address(host: $0.host, port: $0.port) }
            ?? .discover(brainName: brainName)
        var finder: AvahiBrowser?
        if case .discover = target {
            do {
                finder = try AvahiBrowser { event in
                    switch event {
                    case .noDaemon:
                        printError("drumpad: no Avahi daemon is running, so no brain can be discovered; "
                                   + "start avahi-daemon, or give --brain HOST:PORT")
                    case .daemonLost: printError("drumpad: the Avahi daemon went away; discovery resumes when it returns")
                    case .found(let brain):  // names from the network, escaped
                        printError("drumpad: found brain \"\(WireText.printable(brain.name, prose: true))\" at \(WireText.printable(brain.host)):\(brain.port)")
                    case .failed(let message): printError("drumpad: discovery failed: \(message)")
                    }
                }
            } catch {
                printError("drumpad: cannot use Avahi (\(error)); give --brain HOST:PORT")
            }
        }
        var key: PairingKey?
        if let keyFile {
            do {
                let loaded = try PairingKey.load(path: keyFile)
                if let warning = loaded.warning { printError("drumpad: warning: \(warning)") }
                key = loaded.key
            } catch {
                throw ValidationError(error.description)
            }
        }
        let welcomed = DispatchSemaphore(value: 0)
        let failures = RepeatFilter(quietSeconds: 30)
        // While the brain refuses this pad, its retries would print a connect and a loss each.
        let refusals = RepeatFilter(quietSeconds: 30)
        let refused = Atomic<Bool>(false)
        let link = try PadLink(configuration: .init(padName: padName, drum: drum, target: target, key: key),
                           finder: finder) { event in
            switch event {
            case .connected(let address):
                failures.reset()
                if !refused.load(ordering: .relaxed) || refusals.shouldSay("connected to \(address)") {
                    printError("drumpad: connected to \(address)")
                }
            case .pairing(.brainNeedsKey):
                refused.store(true, ordering: .relaxed)
                if refusals.shouldSay("needs key") {
                    printError("drumpad: the brain needs a key: give --key-file with the brain's key file; "
                               + "retrying (and on, quietly)")
                }
            case .pairing(.brainAsksNoKey):
                printError("drumpad: the brain asks no key; anyone on the network can play it (--key-file unused)")
            case .welcomed(let brain, let kit):
                refused.store(false, ordering: .relaxed)
                refusals.reset()
                printError("drumpad: brain \"\(WireText.printable(brain, prose: true))\" (kit \(WireText.printable(kit, prose: true))) welcomed \"\(padName)\" playing \(drum)")
                welcomed.signal()
            case .droppedWhileDisconnected(let count):
                guard !refused.load(ordering: .relaxed) else { break }  // refused: hits drop anyway
                printError("drumpad: dropped \(count) hit\(count == 1 ? "" : "s") while disconnected")
            case .lost(let reason):
                if !refused.load(ordering: .relaxed) || refusals.shouldSay("lost \(reason)") {
                    printError("drumpad: lost the brain (\(reason)); reconnecting")
                }
            case .connectFailed(let reason, let retry):
                // A pad left on without its brain would say this every second: once per reason
                // and then every 30 s is enough.
                if failures.shouldSay(reason) {
                    printError("drumpad: cannot reach the brain: \(reason); retrying in \(retry / 1000) ms"
                               + " (and on, quietly)")
                }
            case .brainError(let text):
                if text == BrainConnection.wrongKeyMessage || text == BrainConnection.needsKeyMessage {
                    refused.store(true, ordering: .relaxed)
                    if refusals.shouldSay(text) { printError("drumpad: the brain says: \(WireText.printable(text, limit: 200, prose: true)) (retrying quietly)") }
                } else {
                    printError("drumpad: the brain says: \(WireText.printable(text, limit: 200, prose: true))")
                }
            }
        }
        link.start()
        let waitForBrain = self.waitForBrain ?? (local && brain == nil && brainName == nil ? 0 : 5)
        if !Self.wait(for: welcomed, seconds: waitForBrain), waitForBrain > 0, !StopRequest.isSet {
            printError("drumpad: no brain after \(DecimalFormatting.string(waitForBrain, decimals: 1)) s; starting anyway (hits drop until one answers)")
        }
        // With --start-at, a replay's t = 0 is due at that instant on the monotonic
        // clock, whenever this process wakes: pads started together stay on one clock to the
        // microsecond, not to their wake-ups' jitter.
        var replayOrigin: Int64?
        if let startAt {
            let wait = startAt - Self.realtimeSeconds()
            if wait >= 0 { replayOrigin = MonotonicClock.nowMicros() + Int64((wait * 1e6).rounded()) }
            if wait < 0 {
                printError("drumpad: --start-at is \(String(Int(-wait * 1000))) ms past; starting now")
            } else {
                // In slices of at most 50 ms, each to an absolute deadline (the last one the start
                // itself), so a stop is seen within one even if another thread took its signal.
                while !StopRequest.isSet {
                    let now = Self.realtimeSeconds()
                    guard now < startAt else { break }
                    let until = min(now + 0.05, startAt)
                    var deadline = timespec(tv_sec: Int(until), tv_nsec: Int((until - until.rounded(.down)) * 1e9))
                    _ = clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, nil)
                }
            }
        }
        if StopRequest.isSet {
            // Stopped while waiting: nothing was read or played. The deferred stop closes the
            // local output (a WAV of no frames).
            printError("drumpad: stopped before the \(replay == nil ? "sensor was read" : "replay began")")
            _ = Self.stop(link)
            finder?.stop()
            return
        }
        if let playback {
            playback.start()
            printError("drumpad: playing locally: \(playback.description)")
        }
        var localHits = 0
        var detector = options.makeDetector()
        var hitCount = 0
        /// Sends `hit`, found on the sample of device time `sampleTime` read at pad time `micros`,
        /// stamped with its onset's time (a detector that scans for the peak reports the hit a
        /// few samples after its onset), and plays it here when asked to.
        // The sensor's rate, measured from its first samples, for brains of protocol 2.
        var rateMeter = SampleRateMeter()
        func measure(_ time: Double) {
            if let rate = rateMeter.add(time: time) { link.setRate(Float(rate)) }
        }
        var feltCount = 0
        /// Sends what the detector made of the sample of device time `sampleTime`, read at pad
        /// time `micros`: a hit, played here too when asked; or else a push it felt through the
        /// stand (`takeFelt`), for a brain of protocol 2 to learn the stand from, never played.
        func send(_ found: Hit?, sampleTime: Double, micros: Int64) {
            let felt = found == nil
            guard let hit = found ?? detector.takeFelt() else { return }
            if felt { feltCount += 1 } else { hitCount += 1 }
            let onsetMicros = micros - Int64(((sampleTime - hit.time) * 1e6).rounded())
            link.send(DrumHit(drum: drum, velocity: Float(hit.velocity), padTimeMicros: onsetMicros,
                              strength: Float(options.detector.deviation(ofStrength: hit.strength)), felt: felt))
            if !felt, playback?.play(velocity: Float(hit.velocity)) == true { localHits += 1 }
        }
        let axis = axisOptions.axis
        let sourceText: String
        if let replay {
            var source = try PacedReplay(path: replay, axis: axis, unitsPerG: axisOptions.unitsPerG)
            // The detector sees the log's own times, as `drumpad replay` and `drumbrain replay`
            // do, so a replay in real time finds the same hits dated the same: times made from
            // the monotonic clock differ from the log's in their last bits, and a comparison
            // that lands on a whole number of sample periods (12 ms back at 250 Hz) went the
            // other way now and then (a strike dated a period apart, measured by
            // tools/bench/jitter).
            try source.run(originMicros: replayOrigin) { across, z, time, padTimeMicros in
                measure(time)
                send(detector.process(x: across.0, y: across.1, z: z, time: time), sampleTime: time, micros: padTimeMicros)
            } gap: {
                detector.markGap()
            }
            sourceText = "\(replay): \(source.samples) samples replayed"
        } else {
            guard let sensor else { return }
            if let source = sensor.source {
                printError("drumpad: reading \(source.path) \"\(source.name)\", axis \(axis.rawValue); Ctrl-C stops")
            }
            var samples = 0
            while !StopRequest.isSet {
                try sensor.read(timeoutMillis: 100) { event in
                    switch event {
                    case .gap:
                        detector.markGap()
                    case .sample(let sample):
                        samples += 1
                        let time = Double(sample.deviceMicros) / 1e6
                        measure(time)
                        let (a, b) = sample.across(axis)
                        send(detector.process(x: a, y: b, z: sample.value(axis), time: time), sampleTime: time, micros: sample.monotonicMicros)
                    }
                }
            }
            sourceText = "\(sensor.source?.path ?? deviceOptions.device ?? "sensor"): \(samples) samples read"
        }
        let stats = Self.stop(link)
        finder?.stop()
        if let playback {
            usleep(300_000)  // let the last hit ring a little before the output closes
            playback.stop()
        }
        printError("drumpad: \(sourceText); \(options.text): \(hitCount) hits, "
                   + "\(stats.sentHits) sent, \(stats.droppedHits) dropped while disconnected"
                   + (feltCount > 0 ? "; \(feltCount) pushes felt through the stand (\(stats.sentFelt) sent for the brain to learn from, none played)" : "")
                   + (stats.roundTripMicros.map { "; round trip \($0) µs" } ?? "")
                   + (local ? "; \(localHits) played locally" : ""))
        // A replay whose hits reached no brain (and played nowhere else) did not do its job: a
        // script must not take it for done.
        if replay != nil, !local, hitCount > 0, stats.sentHits == 0 {
            throw DrumPadError.usage("no hit reached a brain (\(hitCount) found, all dropped): is one running, and is --brain right?")
        }
    }
}

extension Run {
    /// Waits up to `seconds` for `semaphore`, in slices, ending early on Ctrl-C or SIGTERM
    /// (`StopRequest`). True when it was signalled.
    static func wait(for semaphore: DispatchSemaphore, seconds: Double) -> Bool {
        let deadline = MonotonicClock.nowMicros() + Int64(max(0, min(seconds, 1e9)) * 1e6)
        repeat {
            let slice = min(50_000, max(0, deadline - MonotonicClock.nowMicros()))
            if semaphore.wait(timeout: .now() + .microseconds(Int(slice))) == .success { return true }
        } while !StopRequest.isSet && MonotonicClock.nowMicros() < deadline
        return false
    }

    /// The wall clock (`CLOCK_REALTIME`) in seconds, as `--start-at` is given.
    static func realtimeSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    /// Stops the link (the last hits sent, the connection closed) and returns its statistics.
    static func stop(_ link: PadLink) -> PadLink.Statistics {
        let done = DispatchSemaphore(value: 0)
        let box = StatisticsBox()
        Task {
            box.value = await link.stop()
            done.signal()
        }
        done.wait()
        return box.value
    }
}

/// Lets each message through once, and again after `quietSeconds`; messages that alternate
/// (a connect, a refusal, a loss, each retry) are each quieted on their own.
final class RepeatFilter: Sendable {
    private let quietMicros: Int64
    // Guards when each message was last said.
    private let said = Mutex<[String: Int64]>([:])

    init(quietSeconds: Double) {
        quietMicros = Int64(quietSeconds * 1e6)
    }

    /// Whether to say `text` now (and if so, remembers when).
    func shouldSay(_ text: String) -> Bool {
        let now = MonotonicClock.nowMicros()
        return said.withLock { said in
            if let previous = said[text], now - previous < quietMicros { return false }
            if said.count > 64 { said.removeAll() }  // reasons carry addresses: keep it bounded
            said[text] = now
            return true
        }
    }

    /// Forgets what was said (after a success, the next failure is news).
    func reset() {
        said.withLock { $0.removeAll() }
    }
}

/// Carries the link's final counters out of the stopping task.
final class StatisticsBox: @unchecked Sendable {
    // @unchecked: written once by the task before it signals, read after the wait.
    var value = PadLink.Statistics()
}

/// A sensor log or evemu recording replayed at its own pace: each sample is handed over at the
/// monotonic time its `t` says, relative to the first sample, or with a start time (`--start-at`)
/// relative to t = 0, so that logs recorded on one clock and started together keep their
/// alignment (their first samples lie up to a sample period apart). Ctrl-C stops it early.
struct PacedReplay {
    let path: String
    let axis: Axis
    let unitsPerG: Double?
    private(set) var samples = 0
    /// The latest first sample that is still placed from t = 0 after a start time, s.
    static let alignedStartSeconds = 10.0

    init(path: String, axis: Axis = .z, unitsPerG: Double? = nil) throws {
        self.path = path
        self.axis = axis
        self.unitsPerG = unitsPerG
    }

    /// Calls `sample` with each value of the axis and of the other two (0 where the log has no
    /// such column, nan where a value does not parse), its time in the log (s) and the monotonic
    /// µs it is due, sleeping until then, and `gap` before a sample that follows a gap. With
    /// `originMicros` (monotonic), t = 0 is due then (the first sample at its own t after it, if
    /// that is within `alignedStartSeconds`; else the first sample is due then); without it, the
    /// first sample is due at once.
    mutating func run(originMicros: Int64? = nil, _ sample: (_ across: (Double, Double), _ z: Double, _ t: Double, _ due: Int64) -> Void,
                      gap: () -> Void) throws {
        var origin: (t: Double, micros: Int64)?
        var count = 0

        func pace(_ batch: inout SensorBatch) {
            var nextGap = 0
            for i in 0..<batch.count where !StopRequest.isSet {
                if nextGap < batch.gapsBefore.count && batch.gapsBefore[nextGap] == i {
                    gap()
                    nextGap += 1
                }
                let t = batch.time[i]
                if origin == nil {
                    if let originMicros, t >= 0, t <= Self.alignedStartSeconds {
                        origin = (0, originMicros)
                    } else {
                        origin = (t, originMicros ?? MonotonicClock.nowMicros())
                        if originMicros != nil {
                            printError("drumpad: \(path) starts at t = \(DecimalFormatting.string(t, decimals: 3)) s; "
                                       + "its first sample is taken as the start time")
                        }
                    }
                }
                let due = origin!.micros + Int64(((t - origin!.t) * 1e6).rounded())
                MonotonicClock.sleep(untilMicros: due)
                sample((batch.x[i], batch.y[i]), batch.z[i], t, due)  // read with x and y (evemu's always are)
                count += 1
            }
        }
        if EvemuRecording.isRecording(path: path) {
            var recording = try EvemuLog(path: path, axis: axis, unitsPerG: unitsPerG)
            pace(&recording.batch)
        } else {
            var files = try FileChunks(path: path)
            // x and y for the adaptive detector's lean test; where z is the axis read, a bad x
            // or y only leaves that test without them.
            var reader = SensorLogReader(fileName: path, options: .init(readXY: true, optionalXY: axis == .z))
            var batch = SensorBatch()
            try files.read(with: &reader, into: &batch, chunkBytes: FileChunks.realTimeChunkBytes) { batch, _ in
                axis.select(in: &batch)
                pace(&batch)
            }
        }
        samples = count
    }
}

import ArgumentParser
import Dispatch
import DrumNet
import HitDetect
#if canImport(Glibc)
import Glibc
#endif

/// `drumpad run`: detect hits and send them to a brain.
struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect hits and send them to a drumbrain.",
        discussion: """
            The source today is a sensor log replayed in real time (--replay); the pad's own \
            accelerometer comes with the sensor sources. Without --brain the pad finds a brain \
            through Avahi (DNS-SD), the one named --brain-name if given.

            Examples:
              drumpad run --drum snare --replay Samples/logs/snare-250hz.csv --brain 127.0.0.1:7770
              drumpad run --drum kick --replay kick.csv --brain-name studio
            """)

    @Option(help: "The drum this pad plays, as the brain's kit names it (kick, snare, hihat, ...).")
    var drum: String

    @Option(help: "Replay this sensor log CSV in real time as the sensor.")
    var replay: String

    @Option(help: "The brain's address, HOST:PORT (skips discovery).")
    var brain: String?

    @Option(help: "Pick the brain with this name among those discovered.")
    var brainName: String?

    @Option(help: "This pad's name, shown by the brain (default: HOST-DRUM).")
    var name: String?

    @Option(help: "Seconds to wait for the brain before starting anyway (hits then drop until it comes).")
    var waitForBrain: Double = 5

    @Option(help: "Start replaying at this wall-clock time (seconds since 1970, such as $(date +%s) + 3), so pads started one by one play together.")
    var startAt: Double?

    @OptionGroup var options: DetectorOptions

    func validate() throws {
        guard drum.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), !drum.isEmpty else {
            throw ValidationError("--drum must be a word such as snare or hat-closed")
        }
        if let brain, Self.parseAddress(brain) == nil {
            throw ValidationError("--brain must be HOST:PORT, such as 192.168.1.20:\(BrainServer.defaultPort)")
        }
        if brain != nil && brainName != nil {
            throw ValidationError("give --brain (an address) or --brain-name (discovery), not both")
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
        let padName = name ?? "\(HostName.current)-\(drum)"
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
                    case .found(let brain): printError("drumpad: found brain \"\(brain.name)\" at \(brain.host):\(brain.port)")
                    case .failed(let message): printError("drumpad: discovery failed: \(message)")
                    }
                }
            } catch {
                printError("drumpad: cannot use Avahi (\(error)); give --brain HOST:PORT")
            }
        }
        let welcomed = DispatchSemaphore(value: 0)
        let link = PadLink(configuration: .init(padName: padName, drum: drum, target: target),
                           finder: finder) { event in
            switch event {
            case .connected(let address): printError("drumpad: connected to \(address)")
            case .welcomed(let brain, let kit):
                printError("drumpad: brain \"\(brain)\" (kit \(kit)) welcomed \"\(padName)\" playing \(drum)")
                welcomed.signal()
            case .droppedWhileDisconnected(let count):
                printError("drumpad: dropped \(count) hit\(count == 1 ? "" : "s") while disconnected")
            case .lost(let reason): printError("drumpad: lost the brain (\(reason)); reconnecting")
            case .connectFailed(let reason, let retry):
                printError("drumpad: cannot reach the brain: \(reason); retrying in \(retry / 1000) ms")
            case .brainError(let text): printError("drumpad: the brain says: \(text)")
            }
        }
        link.start()
        if welcomed.wait(timeout: .now() + waitForBrain) == .timedOut {
            printError("drumpad: no brain after \(waitForBrain) s; starting anyway (hits drop until one answers)")
        }
        if let startAt {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let wait = startAt - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            if wait < 0 {
                printError("drumpad: --start-at is \(String(Int(-wait * 1000))) ms past; starting now")
            } else {
                var deadline = timespec(tv_sec: Int(startAt), tv_nsec: Int((startAt - startAt.rounded(.down)) * 1e9))
                while clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            }
        }
        var detector = options.makeDetector()
        var hitCount = 0
        var source = try PacedReplay(path: replay)
        try source.run { z, padTimeMicros in
            if let hit = detector.process(z: z, time: Double(padTimeMicros) / 1e6) {
                hitCount += 1
                link.send(DrumHit(drum: drum, velocity: Float(hit.velocity), padTimeMicros: padTimeMicros))
            }
        } gap: {
            detector.markGap()
        }
        let done = DispatchSemaphore(value: 0)
        let box = StatisticsBox()
        Task {
            box.value = await link.stop()
            done.signal()
        }
        done.wait()
        finder?.stop()
        let stats = box.value
        printError("drumpad: \(replay): \(source.samples) samples replayed; \(options.text): \(hitCount) hits, "
                   + "\(stats.sentHits) sent, \(stats.droppedHits) dropped while disconnected"
                   + (stats.roundTripMicros.map { "; round trip \($0) µs" } ?? ""))
    }
}

/// Carries the link's final counters out of the stopping task.
final class StatisticsBox: @unchecked Sendable {
    // @unchecked: written once by the task before it signals, read after the wait.
    var value = PadLink.Statistics()
}

/// A sensor log replayed at its own pace: each sample is handed over at the monotonic time its
/// `t` says, relative to the first sample.
struct PacedReplay {
    let path: String
    private(set) var samples = 0

    init(path: String) throws {
        self.path = path
    }

    /// Calls `sample` with each z value and the monotonic µs it is due, sleeping until then,
    /// and `gap` before a sample that follows a `# gap` line.
    mutating func run(_ sample: (Double, Int64) -> Void, gap: () -> Void) throws {
        var files = try FileChunks(path: path)
        var reader = SensorLogReader(fileName: path, options: .init(readXY: false))
        var batch = SensorBatch()
        var origin: (t: Double, micros: Int64)?
        var count = 0
        try files.read(with: &reader, into: &batch) { batch, _ in
            var nextGap = 0
            for i in 0..<batch.count {
                if nextGap < batch.gapsBefore.count && batch.gapsBefore[nextGap] == i {
                    gap()
                    nextGap += 1
                }
                let t = batch.time[i]
                if origin == nil { origin = (t, MonotonicClock.nowMicros()) }
                let due = origin!.micros + Int64(((t - origin!.t) * 1e6).rounded())
                Self.sleep(untilMicros: due)
                sample(batch.z[i], due)
                count += 1
            }
        }
        samples = count
    }

    /// Sleeps until the monotonic clock reads `micros`. The corresponding C function is
    /// `clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)`: an absolute deadline does not drift.
    static func sleep(untilMicros micros: Int64) {
        var deadline = timespec(tv_sec: Int(micros / 1_000_000), tv_nsec: Int(micros % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}

/// This machine's host name. The corresponding C function is `gethostname`.
enum HostName {
    static var current: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "pad" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

import Console
import PadCommandLine
import PadSensors
import Monotonic

/// `drumpad record`: log a sensor to a CSV (docs/architecture.md, Sensor log CSV) for tuning and plotting.
struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record an accelerometer to a sensor log CSV.",
        discussion: """
            Writes t,x,y,z (seconds; g) with the device's name, source, units per g and time \
            base as `# key: value` comments; the measured rate is added at the end. Times come \
            from the sensor's own clock (MSC_TIMESTAMP or the IIO timestamp channel) when it has \
            one, relative to the first sample. The file is written out four times a second and \
            forced to disk every second, so a power cut loses at most about a second; Ctrl-C \
            (or SIGTERM, or --seconds) flushes and closes it. An unplugged sensor leaves a \
            `# gap` and recording resumes when it returns.

            Examples:
              drumpad record --out snare.csv --seconds 30
              drumpad record --device /dev/input/event7 --out kick.csv
              drumpad replay snare.csv --sweep --labels strikes.csv
            """)

    @Option(help: "The sensor log CSV to write.")
    var out: String

    @Option(help: "Stop after this many seconds (default: until Ctrl-C).")
    var seconds: Double?

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(help: ArgumentHelp("Raw units per g, when the device does not say.", valueName: "N"))
    var unitsPerG: Double?

    func validate() throws {
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be > 0, such as 30") }
        if let unitsPerG, !(unitsPerG > 0 && unitsPerG.isFinite) {
            throw ValidationError("--units-per-g must be a number > 0, such as 8192")
        }
    }

    func run() throws {
        StopRequest.install()
        let sensor = try deviceOptions.open(unitsPerG: unitsPerG) { printError("drumpad record: \($0)") }
        guard let source = sensor.source else { return }
        let file = try SensorLogFile(path: out, metadata: source.metadata, valueDecimals: source.valueDecimals)
        printError("drumpad record: \(source.path) \"\(source.name)\" → \(out)"
                   + (seconds.map { " for \($0) s" } ?? "") + "; Ctrl-C stops")
        let start = MonotonicClock.nowMicros()
        let end = seconds.map { start + Int64($0 * 1e6) }
        var first: Int64?
        var last: Int64 = 0
        var gaps = 0
        var gapPending = false
        while !StopRequest.isSet {
            let now = MonotonicClock.nowMicros()
            if let end, now >= end { break }
            let wait = end.map { Int32(max(1, min(100, ($0 - now) / 1000))) } ?? 100
            try sensor.read(timeoutMillis: wait) { event in
                switch event {
                case .gap:
                    gapPending = true
                case .sample(let s):
                    // Taken after the end (a poll that ran late, the machine busy), or delivered
                    // well after it: not part of the --seconds asked for.
                    if let end, s.monotonicMicros > end || MonotonicClock.nowMicros() > end + 50_000 { return }
                    if first == nil { first = s.deviceMicros }
                    if gapPending && file.rows > 0 {
                        file.appendGap()
                        gaps += 1
                    }
                    gapPending = false
                    last = s.deviceMicros
                    file.append(time: Double(s.deviceMicros - first!) / 1e6, x: s.x, y: s.y, z: s.z)
                }
            }
            try file.flushIfDue()
        }
        let span = Double(last - (first ?? last)) / 1e6
        let measuredRate = file.rows > 1 && span > 0 ? Double(file.rows - 1) / span : nil
        if let measuredRate { file.appendComment("rate_hz: \(Self.rounded(measuredRate)) (measured)") }
        try file.finish()
        printError("drumpad record: \(file.rows) samples over \(Self.rounded(span)) s"
                   + (measuredRate.map { " (~\(Self.rounded($0)) Hz)" } ?? "")
                   + (gaps > 0 ? ", \(gaps) gap\(gaps == 1 ? "" : "s")" : "") + " in \(out)")
    }

    static func rounded(_ value: Double) -> String {
        String((value * 10).rounded() / 10)
    }
}

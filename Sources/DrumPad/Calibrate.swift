import Console
import PadCommandLine
import HitDetect
import PadSensors
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// `drumpad calibrate`: measures a sensor's noise and strikes and saves detector settings that
/// `drumpad run` and `drumpad replay` then use.
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the sensor's noise and strikes, and save detector settings for run and replay.",
        discussion: """
            From a device (keep the pad still for the first seconds, then strike it 5 to 10 \
            times, soft and hard) or from a recording of the same. The adaptive detector's \
            high-passed signal gives the noise floor (idle samples) and each strike's peak and \
            ringing; from them come the least peak that fires (--minimum-g), the mask that covers \
            the ringing (--mask-ms) and the peak that plays at full scale (velocity 0.95, stronger ones towards 1) \
            (--velocity-full-scale). The settings are written to ~/.config/drumpad/settings.conf \
            (or --out), which `drumpad run` and `drumpad replay` read from then on, and say so.

            Examples:
              drumpad calibrate --seconds 15
              drumpad calibrate my-pad.csv --out pad.conf && drumpad replay my-pad.csv --settings pad.conf
            """)

    @Argument(help: "A sensor log CSV or evemu recording to calibrate from (default: the device).")
    var log: String?

    @OptionGroup var deviceOptions: DeviceOptions

    @Option(help: "Seconds to read the device for.")
    var seconds: Double = 15

    @Option(help: "Where to write the settings (default: ~/.config/drumpad/settings.conf).")
    var out: String?

    @OptionGroup var axisOptions: AxisOptions

    func validate() throws {
        guard seconds > 0 else { throw ValidationError("--seconds must be > 0, such as 15") }
    }

    func run() throws {
        let (batch, source) = try samples()
        guard batch.count > 20 else {
            throw DrumPadError.usage("\(source): only \(batch.count) samples; calibrate needs a few seconds of them")
        }
        let result = Calibration(batch: batch)
        guard let proposal = result.proposal else {
            throw DrumPadError.usage("\(source): no strikes found over the noise (\(Self.text(result.noiseG)) g); "
                                     + "strike the pad 5 to 10 times while calibrating, soft and hard")
        }
        guard let path = out ?? SettingsFile.defaultPath else {
            throw DrumPadError.usage("no HOME to keep the settings in; give --out FILE")
        }
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        if !folder.isEmpty { Self.makeFolders(folder) }
        let text = """
            # drumpad settings, from `drumpad calibrate` on \(source)
            # \(batch.count) samples at ~\(Self.text(result.rateHz)) Hz; noise (p99.9 of the trigger |h'| at rest) \
            \(Self.text(result.noiseG)) g; \(result.strikes.count) strikes, peaks \
            \(Self.text(result.strikes.min() ?? 0))–\(Self.text(result.strikes.max() ?? 0)) g; \
            ringing p90 \(Self.text(result.ringingMs)) ms
            detector = adaptive
            minimum-g = \(Self.text(proposal.minimumG))
            mask-ms = \(Self.text(proposal.maskMs))
            velocity-full-scale = \(Self.text(proposal.fullScale))
            axis = \(axisOptions.axis.rawValue)

            """
        let file = fopen(path, "w")
        guard let file else { throw DrumPadError.cannotOpen(path: path, errno: errno) }
        fputs(text, file)
        guard fclose(file) == 0 else { throw DrumPadError.writeFailed(what: path, errno: errno) }
        // What the settings make of the same samples, as a check.
        var check = AdaptiveDetector(proposal.configuration)
        let again = check.detect(z: batch.z, time: batch.time, gapsBefore: batch.gapsBefore)
        printError("drumpad calibrate: \(source): noise \(Self.text(result.noiseG)) g, \(result.strikes.count) strikes "
                   + "(peaks \(Self.text(result.strikes.min() ?? 0))–\(Self.text(result.strikes.max() ?? 0)) g), "
                   + "ringing p90 \(Self.text(result.ringingMs)) ms")
        printError("drumpad calibrate: wrote \(path): --detector adaptive --minimum-g \(Self.text(proposal.minimumG)) "
                   + "--mask-ms \(Self.text(proposal.maskMs)) --velocity-full-scale \(Self.text(proposal.fullScale)); "
                   + "with them the same samples give \(again.count) hits. drumpad run and drumpad replay use "
                   + "\(out == nil ? "it from now on" : "it with --settings \(path)")")
    }

    /// The samples to calibrate from, and what they came from.
    func samples() throws -> (SensorBatch, String) {
        if let log {
            if EvemuRecording.isRecording(path: log) {
                let recording = try EvemuLog(path: log, axis: axisOptions.axis, unitsPerG: axisOptions.unitsPerG)
                return (recording.batch, log)
            }
            var files = try FileChunks(path: log)
            var reader = SensorLogReader(fileName: log, options: .init(readXY: axisOptions.axis != .z))
            var batch = SensorBatch()
            try files.read(with: &reader, into: &batch, keepBatch: true) { _, _ in }
            axisOptions.axis.select(in: &batch)
            return (batch, log)
        }
        StopRequest.install()
        let sensor = try deviceOptions.open(unitsPerG: axisOptions.unitsPerG) { printError("drumpad calibrate: \($0)") }
        let name = sensor.source.map { "\($0.path) \"\($0.name)\"" } ?? deviceOptions.device ?? "auto"
        printError("drumpad calibrate: reading \(name) for \(Self.text(seconds)) s: keep the pad still for "
                   + "3 s, then strike it 5 to 10 times, soft and hard")
        var batch = SensorBatch()
        var first: Int64?
        let end = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
        while !StopRequest.isSet && MonotonicClock.nowMicros() < end {
            try sensor.read(timeoutMillis: 100) { event in
                switch event {
                case .gap:
                    if batch.count > 0 { batch.gapsBefore.append(batch.count) }
                case .sample(let s):
                    if first == nil { first = s.deviceMicros }
                    let (a, b) = s.across(axisOptions.axis)
                    batch.append(time: Double(s.deviceMicros - first!) / 1e6, x: a, y: b, z: s.value(axisOptions.axis))
                }
            }
        }
        return (batch, name)
    }

    /// `mkdir -p folder`: each folder on the path in turn, without a shell. Failures (it exists,
    /// or cannot be made) show when the settings file is written.
    static func makeFolders(_ folder: String) {
        for slash in folder.indices where folder[slash] == "/" && slash != folder.startIndex {
            _ = mkdir(String(folder[..<slash]), 0o755)
        }
        _ = mkdir(folder, 0o755)
    }

    static func text(_ value: Double) -> String {
        DecimalFormatting.string(value, decimals: value >= 10 ? 1 : 3)
    }
}

/// What a calibration run measured, and the settings it proposes.
struct Calibration {
    var rateHz: Double
    /// p99.9 of the trigger's |h'| away from strikes, in g.
    var noiseG: Double
    /// Each strike's strength in g, as the adaptive detector measures it for velocity (how far z
    /// went from its level before the strike).
    var strikes: [Double]
    /// Each strike's peak |h'| (the trigger's units; `strikes` are in velocity's), in g.
    var strikeTriggerPeaks: [Double] = []
    /// p90 of how long a strike's |h'| stays over a fifth of its peak (and the noise), in ms.
    var ringingMs: Double

    /// Settings for the adaptive detector, or nil without strikes.
    var proposal: (minimumG: Double, maskMs: Double, fullScale: Double, configuration: AdaptiveDetector.Configuration)? {
        guard let weakest = strikeTriggerPeaks.min(), let strongish = Self.rank(strikes, 0.9) else { return nil }
        let minimumG = min(max(3 * noiseG, 0.05), weakest / 2)
        let maskMs = min(max(ringingMs * 1.25, 15), 50)  // 50 ms still lets a 20 stroke/s roll through
        let fullScale = max(strongish, minimumG * 2)
        var configuration = AdaptiveDetector.Configuration()
        configuration.minimumG = minimumG
        configuration.maskMs = maskMs
        configuration.velocity = VelocityCurve(floor: 0.1, fullScale: fullScale)
        configuration.fastRateFullScale = nil  // measured, at this sensor's rate
        return ((minimumG * 1000).rounded() / 1000, maskMs.rounded(), (fullScale * 100).rounded() / 100, configuration)
    }

    init(batch: SensorBatch) {
        let count = batch.count
        let span = (batch.time.last ?? 0) - (batch.time.first ?? 0)
        rateHz = count > 1 && span > 0 ? Double(count - 1) / span : 0
        // The adaptive detector's own trigger, |h'|, so the numbers are in its units.
        var trigger = [Double](repeating: 0, count: count)
        var shock = ShockFilter(timeConstantMs: AdaptiveDetector.Configuration().highPassMs)
        shock.prime(batch.z.first ?? 0)
        for i in 1..<max(count, 1) {
            trigger[i] = shock.filter(batch.z[i], dt: max(batch.time[i] - batch.time[i - 1], 1e-6)).trigger
        }
        var detector = AdaptiveDetector()
        let hits = detector.detect(z: batch.z, time: batch.time, gapsBefore: batch.gapsBefore)
        strikes = hits.map(\.strength)
        // Idle: more than 200 ms from any strike's onset.
        var nearStrike = [Bool](repeating: false, count: count)
        var ringing: [Double] = []
        for hit in hits {
            var i = hit.index
            while i < count && batch.time[i] - hit.time < 0.2 {
                nearStrike[i] = true
                i += 1
            }
            var j = max(0, hit.index - 1)
            while j >= 0 && hit.time - batch.time[j] < 0.05 {
                nearStrike[j] = true
                j -= 1
            }
            // The trigger's peak: |h'| within the scan (at least two samples, 4 ms).
            var peakTrigger = 0.0
            var k = hit.index
            while k < count && (k - hit.index <= 2 || batch.time[k] - hit.time <= 0.004) {
                peakTrigger = max(peakTrigger, trigger[k])
                k += 1
            }
            strikeTriggerPeaks.append(peakTrigger)
            // Ringing: the last sample within 200 ms still over a fifth of that peak.
            var last = hit.index
            k = hit.index
            while k < count && batch.time[k] - hit.time < 0.2 {
                if trigger[k] > peakTrigger / 5 { last = k }
                k += 1
            }
            ringing.append((batch.time[last] - hit.time) * 1000)
        }
        noiseG = Self.rank((0..<count).filter { !nearStrike[$0] && $0 > 0 }.map { trigger[$0] }, 0.999) ?? 0
        ringingMs = Self.rank(ringing, 0.9) ?? 0
    }

    /// The value at fraction `p` of `values` sorted (the element at index ⌊n·p⌋, at most the
    /// last), or nil when there are none.
    static func rank(_ values: [Double], _ p: Double) -> Double? {
        let sorted = values.sorted()
        return sorted.isEmpty ? nil : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}


import Console
import PadCommandLine
import PadSensors
import HitDetect

/// `drumpad replay`: run a detector over a sensor log as fast as possible.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the hit detector over a sensor log CSV (or evemu recording) and print the hits.",
        discussion: """
            Hits go to standard output as CSV (index,t,strength,velocity,struck): index is the \
            0-based data row that fired, t its time, strength the detector's value that fired \
            (the squared delta in g² for the card's detector, |Δz| in g for tvdrums, and for \
            adaptive how far z went in g from its level before the strike's onset, through the \
            scan), struck when the detector dates the strike (t, or within half a sample period \
            of it for adaptive under 500 Hz; what a live pad sends and scoring uses). \
            A summary goes \
            to standard error.

            With labels (--labels, or a hit column in the log) the hits are scored: each label \
            matched one-to-one with a hit within the tolerance, then precision, recall and F1.

            With --sweep the card's detector (or the one --detector names) runs over a grid of \
            thresholds and refractory periods (for adaptive: its --minimum-g and its --mask-ms); \
            the grid goes to standard output as CSV and the best setting to standard error.

            Examples:
              drumpad replay Samples/logs/snare-250hz.csv
              drumpad replay log.csv --threshold 0.25 --refractory 15 > hits.csv
              drumpad replay log.csv --labels strikes.csv
              drumpad replay log.csv --sweep --thresholds 0.1:1.0:0.05 --refractories 4:20:2
            """)

    @Argument(help: "The sensor log CSV (columns t and z required; x, y, hit optional), or an evemu recording (evemu-record's text).")
    var log: String

    @OptionGroup var options: DetectorOptions

    @OptionGroup var axisOptions: AxisOptions

    @Option(help: "CSV of true strike times (a t column) to score against. Default: the log's hit column, if any.")
    var labels: String?

    @Option(help: "Matching window for scoring, in ms either side (default: max(10 ms, 2.5 sample periods)).")
    var toleranceMs: Double?

    @Flag(help: "Skip malformed rows (counted and reported) instead of stopping at the first.")
    var skipBadRows = false

    @Option(name: .customLong("neighbour"), help: ArgumentHelp(
        "Cancel crosstalk from another pad on the same stand: its log (same clock), run through the same detector. Repeatable.",
        discussion: "A hit of this log within --crosstalk-window-ms after a neighbour's hit of at least 1/--crosstalk-ratio its velocity is dropped, and so is one up to twice that window after it at half that ratio, as drumbrain --crosstalk-group does live.",
        valueName: "LOG"))
    var neighbours: [String] = []

    @Option(help: "With --neighbour: how long after a louder neighbour's hit a quieter one is crosstalk, in ms.")
    var crosstalkWindowMs: Double = CrosstalkCanceller.Configuration().window * 1000

    @Option(help: "With --neighbour: a hit is crosstalk when its velocity is at most this × the neighbour's.")
    var crosstalkRatio: Double = CrosstalkCanceller.Configuration().ratio

    @Option(help: ArgumentHelp(
        "With --neighbour: the brain's --jitter-buffer-ms. A hit waits that long after its strike before it plays, and a louder neighbour's hit arriving meanwhile takes it back as crosstalk.",
        discussion: "Hits are decided in the order the brain would receive them: when the sample each fired on reached the host (the log's t_event column, for sensors that report several samples at once), so a neighbour's crosstalk can arrive before the strike that caused it. 0 (the default here) decides each hit as it arrives; the live brain and drumbrain replay choose one from the pads' hits (docs/timing.md)."))
    var jitterBufferMs: Double = 0

    @Flag(help: "Sweep a threshold × refractory grid instead of printing hits.")
    var sweep = false

    @Option(help: "Sweep thresholds: START:END:STEP or a comma list (default 0.05:2.0:0.05).")
    var thresholds: String?

    @Option(help: "Sweep refractory periods in samples: START:END:STEP or a comma list (default 2:30:2).")
    var refractories: String?

    func validate() throws {
        if let toleranceMs, !(toleranceMs >= 0) {
            throw ValidationError("--tolerance-ms must be ≥ 0, such as 10")
        }
        if !sweep && (thresholds != nil || refractories != nil) {
            throw ValidationError("--thresholds and --refractories set a sweep's grid; add --sweep")
        }
        if let problem = CrosstalkCanceller.Configuration.optionProblem(windowMs: crosstalkWindowMs, ratio: crosstalkRatio,
                                                                        jitterBufferMs: jitterBufferMs) {
            throw ValidationError(problem)
        }
        if sweep && !neighbours.isEmpty {
            throw ValidationError("--neighbour cancels crosstalk from hits; it does not apply to --sweep")
        }
    }

    func run() throws {
        let labelTimes = try labels.map { try readLabelTimes(path: $0) }
        if EvemuRecording.isRecording(path: log) {
            guard neighbours.isEmpty else {
                throw ValidationError("--neighbour needs sensor logs (CSV); \(log) is an evemu recording")
            }
            try replayRecording(labelTimes: labelTimes)
        } else if sweep {
            try runSweep(labelTimes: labelTimes)
        } else {
            // One concrete detector type per branch, so the loop is specialised for it.
            let refractory = options.refractorySamples
            switch options.detector {
            case .card:
                var d = SquaredDeltaDetector(.init(
                    threshold: options.threshold, refractorySamples: refractory, velocity: options.velocity))
                try stream(detector: &d, labelTimes: labelTimes)
            case .tvdrums:
                var d = TVDrumsDetector(.init(
                    threshold: options.threshold, blockedSamples: refractory, velocity: options.velocity))
                try stream(detector: &d, labelTimes: labelTimes)
            case .adaptive:
                var d = AdaptiveDetector(options.adaptiveConfiguration)
                try stream(detector: &d, labelTimes: labelTimes)
            }
        }
    }

    var readerOptions: SensorLogReader.Options {
        // The adaptive detector's lean test reads the other two axes too; where z is the axis
        // read, a bad x or y only leaves that test without them.
        SensorLogReader.Options(skipBadRows: skipBadRows, readXY: axisOptions.axis != .z || options.detector == .adaptive,
                                optionalXY: axisOptions.axis == .z)
    }

    /// Runs the detector over an evemu recording (read whole: recordings are small).
    func replayRecording(labelTimes: [Double]?) throws {
        let recording = try EvemuLog(path: log, axis: axisOptions.axis, unitsPerG: axisOptions.unitsPerG)
        let summary = recording.summary(fileName: log)
        if sweep {
            try sweepCells(over: recording.batch, summary: summary, scoringLabels: labelTimes)
            return
        }
        var detector = options.makeDetector()
        var hits: [Hit] = []
        detector.detect(recording.batch, into: &hits)
        var out = OutputBuffer(descriptor: 1, name: "hits to standard output")
        out.append(HitCSV.header)
        for hit in hits { HitCSV.append(hit, to: &out.bytes) }
        try out.flush()
        printError("drumpad replay: \(summary.text) (evemu recording of \"\(recording.deviceName)\", "
                   + "axis \(axisOptions.axis.rawValue)); \(options.text): \(hits.count) hit\(hits.count == 1 ? "" : "s")")
        if let labelTimes {
            try score(hitTimes: hits.map(\.time), labels: labelTimes, summary: summary, against: labels ?? "")
        }
    }

    func score(hitTimes: [Double], labels scoringLabels: [Double], summary: LogSummary, against: String) throws {
        let tolerance = toleranceMs.map { $0 / 1000 } ?? HitScore.defaultTolerance(sampleRate: summary.rate)
        let score = HitScore(hitTimes: hitTimes, labelTimes: scoringLabels, tolerance: tolerance)
        printError("score against \(against): \(Self.text(score))")
    }

    /// A hit as the crosstalk canceller takes it: which log (0 this one, neighbours from 1), its
    /// onset time and velocity, and when it would reach the brain. A live pad sends a hit once
    /// the sample it fired on has reached the host (`SensorBatch.deliveryTime` of its firing
    /// sample): after the hit's own sample for a detector that scans on from the onset, and, for
    /// a sensor that reports several samples at once, when their report arrived (the log's
    /// `t_event`). The brain decides crosstalk in the order hits arrive, so replay does too.
    typealias CrosstalkHit = CrosstalkReplay.Neighbour

    /// The hits of each --neighbour log, through a fresh copy of `template` (the same detector,
    /// its concrete type, so no sample goes through an existential), in the order a live pad
    /// would send them.
    func neighbourHits<D: HitDetector>(like template: D) throws -> [CrosstalkHit] {
        var all: [CrosstalkHit] = []
        for (number, path) in neighbours.enumerated() {
            var files = try FileChunks(path: path)
            var reader = SensorLogReader(fileName: path, options: readerOptions)
            var batch = SensorBatch()
            var detector = template
            var hits: [Hit] = []
            var firedAt: [Int] = []
            let before = all.count
            try files.read(with: &reader, into: &batch) { batch, _ in
                axisOptions.axis.select(in: &batch)
                hits.removeAll(keepingCapacity: true)
                firedAt.removeAll(keepingCapacity: true)
                detector.detect(batch, into: &hits, firedAt: &firedAt)
                for (hit, i) in zip(hits, firedAt) {
                    all.append((number + 1, hit.time, hit.velocity, batch.deliveryTime(i)))
                }
            }
            let count = all.count - before
            printError("drumpad replay: neighbour \(path): \(count) hit\(count == 1 ? "" : "s")")
        }
        return all.sorted { ($0.arrival, $0.time) < ($1.arrival, $1.time) }
    }

    /// Streams the log through the detector, writing hits as they are found.
    func stream<D: HitDetector>(detector: inout D, labelTimes: [Double]?) throws {
        var crosstalk = CrosstalkReplay(
            neighbours: try neighbourHits(like: detector),
            configuration: .init(window: crosstalkWindowMs / 1000, ratio: crosstalkRatio, hold: jitterBufferMs / 1000))
        var sounding: [Hit] = []
        var files = try FileChunks(path: log)
        var reader = SensorLogReader(fileName: log, options: readerOptions)
        var batch = SensorBatch()
        var hits: [Hit] = []
        var firedAt: [Int] = []
        var felt: [(hit: Hit, at: Int)] = []
        var feltCount = 0
        var hitTimes: [Double] = []
        var logLabels: [Double] = []
        var out = OutputBuffer(descriptor: 1, name: "hits to standard output")
        out.append(HitCSV.header)
        var progress = ProgressBar(label: "replay", worthShowing: files.sizeBytes > 16 << 20)
        let total = files.sizeBytes
        func write(_ found: [Hit]) {
            for hit in found {
                HitCSV.append(hit, to: &out.bytes)
                hitTimes.append(hit.time)
            }
        }
        do {
            let handle: (inout SensorBatch, Int) throws -> Void = { batch, bytesRead in
                axisOptions.axis.select(in: &batch)
                hits.removeAll(keepingCapacity: true)
                firedAt.removeAll(keepingCapacity: true)
                felt.removeAll(keepingCapacity: true)
                detector.detect(batch, into: &hits, firedAt: &firedAt, felt: &felt)
                feltCount += felt.count
                sounding.removeAll(keepingCapacity: true)
                for (hit, i) in zip(hits, firedAt) {
                    crosstalk.decide(hit, arrival: batch.deliveryTime(i), into: &sounding)
                }
                write(sounding)
                for i in batch.labelled { logLabels.append(batch.time[i]) }
                try out.flushIfFull()
                progress.update(done: bytesRead, total: total, detail: "\(bytesRead >> 20) of \(total >> 20) MiB")
            }
            // A regular file is parsed on two cores; a pipe is read in order.
            if let mapped = try MappedFile(path: log) {
                try ParallelLogReading.read(mapped, with: &reader, handle)
            } else {
                try files.read(with: &reader, into: &batch, handle)
            }
        } catch {
            progress.finish()
            try? out.flush()  // keep every hit found before the bad row; the error says why we stop
            throw error
        }
        progress.finish()
        sounding.removeAll()
        crosstalk.finish(into: &sounding)
        write(sounding)
        try out.flush()
        let summary = LogSummary(reader: reader)
        printError("drumpad replay: \(summary.text); \(options.text): "
                   + "\(hitTimes.count) hit\(hitTimes.count == 1 ? "" : "s")"
                   + (neighbours.isEmpty ? "" : " (\(crosstalk.cancelled) more cancelled as crosstalk from "
                      + "\(neighbours.count) neighbour\(neighbours.count == 1 ? "" : "s"): window "
                      + "\(crosstalkWindowMs) ms, ratio \(crosstalkRatio)"
                      + (jitterBufferMs > 0 ? ", jitter buffer \(jitterBufferMs) ms, \(crosstalk.takenBack) of them taken back" : "")
                      + ")")
                   + (feltCount > 0 ? "; \(feltCount) push\(feltCount == 1 ? "" : "es") felt through the stand, not hits" : ""))
        reportSkipped(reader)
        let scoringLabels = labelTimes ?? (reader.hasColumn("hit") ? logLabels : nil)
        if let scoringLabels {
            try score(hitTimes: hitTimes, labels: scoringLabels, summary: summary,
                      against: labels ?? "the hit column of \(log)")
        }
    }

    /// The detector a sweep runs: as chosen, else the card's, whose threshold and refractory
    /// the grid is made of.
    var sweepDetector: DetectorKind { options.detectorChoice ?? .card }

    /// Reads the whole log, then runs every cell of the grid over it.
    func runSweep(labelTimes: [Double]?) throws {
        var files = try FileChunks(path: log)
        var reader = SensorLogReader(fileName: log, options: readerOptions)
        var batch = SensorBatch()
        var loading = ProgressBar(label: "reading", worthShowing: files.sizeBytes > 16 << 20)
        let total = files.sizeBytes
        try files.read(with: &reader, into: &batch, keepBatch: true) { _, bytesRead in
            loading.update(done: bytesRead, total: total, detail: "\(bytesRead >> 20) of \(total >> 20) MiB")
        }
        loading.finish()
        axisOptions.axis.select(in: &batch)
        let summary = LogSummary(reader: reader)
        let scoringLabels = labelTimes
            ?? (reader.hasColumn("hit") ? batch.labelled.map { batch.time[$0] } : nil)
        try sweepCells(over: batch, summary: summary, scoringLabels: scoringLabels)
        reportSkipped(reader)
    }

    func sweepGrid() throws -> SweepGrid {
        SweepGrid(
            thresholds: try thresholds.map {
                try SweepGrid.parseValues($0, name: "--thresholds").map { value in
                    guard value >= 0 else { throw ValidationError("--thresholds: \(value) is negative; a threshold is ≥ 0") }
                    return value
                }
            } ?? SweepGrid.standard.thresholds,
            refractories: try refractories.map {
                try SweepGrid.parseValues($0, name: "--refractories").map { value in
                    guard value >= 0, value <= 1_000_000, value == value.rounded() else {
                        throw ValidationError("--refractories: \(value) is not a whole number of samples in 0…1000000")
                    }
                    return Int(value)
                }
            } ?? SweepGrid.standard.refractories)
    }

    /// Runs every cell of the grid over `batch` and prints the grid and the best setting.
    func sweepCells(over batch: SensorBatch, summary: LogSummary, scoringLabels: [Double]?) throws {
        let grid = try sweepGrid()
        let tolerance = toleranceMs.map { $0 / 1000 } ?? HitScore.defaultTolerance(sampleRate: summary.rate)
        let cellCount = grid.thresholds.count * grid.refractories.count
        var progress = ProgressBar(label: "sweep", worthShowing: batch.count * cellCount > 50_000_000)
        let cells = Sweep.run(sweepDetector, grid: grid, over: batch, velocity: options.velocity,
                              labelTimes: scoringLabels, tolerance: tolerance) { done in
            progress.update(done: done, total: cellCount, detail: "\(done)/\(cellCount) settings")
        }
        progress.finish()
        var out = OutputBuffer(descriptor: 1, name: "sweep to standard output")
        out.append("threshold,refractory,hits,true_positives,false_positives,false_negatives,"
                   + "precision,recall,f1\n")
        for cell in cells {
            out.append("\(cell.threshold),\(cell.refractory),\(cell.hits),")
            if let s = cell.score {
                out.append("\(s.truePositives),\(s.falsePositives),\(s.falseNegatives),")
                DecimalFormatting.append(s.precision, decimals: 4, to: &out.bytes)
                out.append(",")
                DecimalFormatting.append(s.recall, decimals: 4, to: &out.bytes)
                out.append(",")
                DecimalFormatting.append(s.f1, decimals: 4, to: &out.bytes)
                out.append("\n")
            } else {
                out.append(",,,,,\n")
            }
        }
        try out.flush()
        printError("drumpad replay --sweep: \(summary.text); \(sweepDetector.rawValue) detector, "
                   + "\(grid.thresholds.count) thresholds × \(grid.refractories.count) refractories")
        if let best = Sweep.best(of: cells), let score = best.score {
            // The grid's threshold and refractory are the adaptive detector's least trigger and
            // mask (ms): the suggestion names the options that set them.
            let setting = sweepDetector == .adaptive
                ? "--minimum-g \(best.threshold) --mask-ms \(best.refractory)"
                : "--threshold \(best.threshold) --refractory \(best.refractory)"
            printError("best: \(setting): " + Self.text(score))
            printError("try: drumpad replay \(log) --detector \(sweepDetector.rawValue) \(setting)")
        } else {
            printError("no labels (give --labels FILE or log a hit column), so no best setting: "
                       + "compare the hit counts with the strikes you played")
        }
    }

    func readLabelTimes(path: String) throws -> [Double] {
        var files = try FileChunks(path: path)
        var reader = SensorLogReader(fileName: path, options: .init(readXY: false, requireZ: false))
        var batch = SensorBatch()
        try files.read(with: &reader, into: &batch, keepBatch: true) { _, _ in }
        return batch.time
    }

    func reportSkipped(_ reader: SensorLogReader) {
        guard reader.skippedRowCount > 0 else { return }
        printError("skipped \(reader.skippedRowCount) bad row\(reader.skippedRowCount == 1 ? "" : "s"); "
                   + "the first: " + reader.skippedRowMessages.joined(separator: "; "))
    }

    static func text(_ score: HitScore) -> String {
        let labels = score.truePositives + score.falseNegatives
        return "\(score.truePositives) of \(labels) strikes found, \(score.falsePositives) false "
            + "hit\(score.falsePositives == 1 ? "" : "s"); precision "
            + DecimalFormatting.string(score.precision, decimals: 3) + ", recall "
            + DecimalFormatting.string(score.recall, decimals: 3) + ", F1 "
            + DecimalFormatting.string(score.f1, decimals: 3) + " (tolerance "
            + DecimalFormatting.string(score.tolerance * 1000, decimals: 1) + " ms)"
    }
}

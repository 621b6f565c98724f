import ArgumentParser
import BrainCore
import Console
import DrumAudio
import HitDetect
import PadSensors
#if canImport(Glibc)
import Glibc
#endif

/// `drumbrain replay`: a whole kit's logs through the pads' detection and the brain's decisions.
struct KitReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay several pads' sensor logs (one clock) through the pads' detection and the brain's decisions, as live.",
        discussion: """
            Each LOG is one pad (a sensor log CSV, or an evemu-record recording, whose times \
            start at its first sample), named by its file's stem; it plays the drum its \
            `# drum:` line names, else its stem, else the kit's drum its stem holds as a word \
            (groove-kick-250hz.csv plays kick). Each log goes through the detection a pad runs at its defaults, \
            and every pad's hits reach the brain's decisions in the order a live brain receives \
            them (a sensor that reports in bursts included), with the same code: crosstalk across \
            pads on a stand is learned from the playing and cancelled, and so is a slow pad's hit \
            on the stand's sway a neighbour's strike set going (learned, or having answered a few \
            strikes, or on a pad in its first hits not yet). As live, each hit starts \
            at its strike time plus one latency chosen from the pads' hits (docs/timing.md); a \
            weak hit that a neighbour's strike could still explain waits for it until then, and \
            past it at most the pads' sensor period + 1 ms. A replay starts from nothing learned, \
            so it is reproducible.

            Examples:
              drumbrain replay stand/*.csv --hits-dir /tmp/hits
              drumbrain replay snare.csv tom.csv --out kit.wav
              drumbrain replay Samples/logs/groove-*.csv --out groove.wav

            Writes DIR/STEM.hits.csv per pad with --hits-dir (t,velocity,strength,delay_ms: one \
            row per hit the brain played; delay_ms is how long the decision held it past when it \
            would have started), and the played hits rendered through the kit with --out. What \
            was cancelled \
            as crosstalk, and the couplings learned, go to standard error.
            """)

    @Argument(help: "The pads' sensor logs (CSV, or evemu recordings), recorded on one clock.")
    var logs: [String]

    @Option(help: "Write DIR/STEM.hits.csv for each pad.")
    var hitsDir: String?

    @Option(help: "Render the played hits to this WAV file (48 kHz stereo float).")
    var out: String?

    @Option(help: ArgumentHelp("Write the played hits as a Standard MIDI File (channel 10, each drum's note), timed as --out.", valueName: "FILE.mid"))
    var midiOut: String?

    @OptionGroup var midi: MIDIOptions

    @Option(help: "Write every hit, in the order the brain received it, with what became of it (pad,t,arrival,strength,outcome,hold_ms) to this CSV.")
    var decisions: String?

    @Option(help: "The kit (default: the bundled kit); its drums are the ones that play.")
    var kit: String?

    @Option(help: "The pads' detector: card, tvdrums or adaptive (default: the one drumpad run uses).")
    var detector: DetectorKind = .padDefault

    @Option(help: ArgumentHelp("As drumbrain's: drums that share a stand, instead of learning the stands.", valueName: "DRUMS"))
    var crosstalkGroup: [String] = []

    @Option(help: "As drumbrain's: the latency from strike to sound in ms (default: chosen from the pads' hits, as the live brain does; 0: each hit as it arrives).")
    var jitterBufferMs: Double?

    @Option(help: ArgumentHelp("Start from the stands kept in FILE (as drumbrain --stand-state), and keep what this replay learned there; without it a replay starts from nothing and keeps nothing.", valueName: "FILE"))
    var standState: String?

    func validate() throws {
        guard !logs.isEmpty else { throw ValidationError("give one or more pads' logs, such as stand/*.csv") }
        guard (0...200).contains(jitterBufferMs ?? 0) else { throw ValidationError("--jitter-buffer-ms must be 0…200, such as 5") }
        let stems = logs.map(Self.stem)
        guard Set(stems).count == stems.count else {
            throw ValidationError("two logs have the same name (\(stems.map(Self.shown).joined(separator: ", "))): each pad is named by its file's stem")
        }
    }

    /// Whether `path` is a CSV beside the logs that is not a sensor log: the first line that is
    /// not a comment names a `t` column and no `z` (a labels file or a hit list, as `stand/*.csv`
    /// picks up). Only the file's first 8 KiB are read; a file that cannot be read is not skipped
    /// (reading it as a log says what is wrong).
    static func isOtherCSV(_ path: String) -> Bool {
        guard path.lowercased().hasSuffix(".csv"), let file = fopen(path, "r") else { return false }
        defer { fclose(file) }
        var buffer = [UInt8](repeating: 0, count: 8192)
        let count = fread(&buffer, 1, buffer.count, file)
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        guard let header = text.split(whereSeparator: \.isNewline).first(where: {
            let line = $0.trimmingPrefix(while: { $0 == " " || $0 == "\u{FEFF}" })
            return !line.isEmpty && !line.hasPrefix("#")
        }) else { return false }
        let columns = header.split(separator: ",").map { $0.filter { !$0.isWhitespace && $0 != "\u{FEFF}" }.lowercased() }
        return columns.contains("t") && !columns.contains("z")
    }

    /// The drum a log's stem names: the stem itself, else the kit's drum the stem holds as a
    /// word between `-`, `_` or `.` (`groove-kick-250hz` plays kick; the longest such name where
    /// several fit, so `hat-closed` wins over `hat`), else the stem (a drum the kit lacks).
    static func drum(named stem: String, in drums: [String]) -> String {
        if drums.contains(stem) { return stem }
        let words = stem.split(whereSeparator: { $0 == "-" || $0 == "_" || $0 == "." }).map(String.init)
        let held = drums.filter { name in
            let parts = name.split(separator: "-").map(String.init)
            guard !parts.isEmpty, parts.count <= words.count else { return false }
            return (0...(words.count - parts.count)).contains { Array(words[$0..<($0 + parts.count)]) == parts }
        }
        let longest = held.map(\.count).max()
        let best = held.filter { $0.count == longest }
        return best.count == 1 ? best[0] : stem
    }

    /// An evemu recording through the pads' detection, as `drumpad replay` reads one (z the
    /// strike axis, times from the device's `MSC_TIMESTAMP` relative to its first sample).
    func detectRecording(_ path: String) throws -> PadLogDetection.Detected {
        let bytes = try TextFile.readBytes(path, limit: PadLogDetection.largestRecording)
        let recording = try EvemuRecording(text: String(decoding: bytes, as: UTF8.self), fileName: path)
        guard let scale = recording.unitsPerG(override: nil) else {
            throw DrumBrain.Failure(description: "\(path): the recorded device (\"\(recording.name)\") gives no resolution for "
                                    + "its axes; replay it with drumpad replay --units-per-g N, or record a CSV log")
        }
        let (batch, _) = recording.sensorBatch(axis: .z, unitsPerG: scale)
        return PadLogDetection.detect(batch, kind: detector, rateHz: nil, drum: nil)
    }

    /// `dir/snare.csv` → `snare`.
    static func stem(_ path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = file.lastIndex(of: "."), dot != file.startIndex else { return file }
        return String(file[..<dot])
    }

    /// One line on standard error: a log's path and its pad's name (its file's stem) are the
    /// user's files' names, and a newline or tab in one must not start a line of its own.
    static func report(_ message: String) {
        printError(TerminalText.line(message))
    }

    /// A CSV field: as it is, or quoted (`"` doubled) where it holds a comma, quote, line feed
    /// or carriage return (a pad named by a file's stem may).
    static func csvField(_ text: String) -> String {
        // By scalar: a comma followed by a combining mark is one Character, and still a comma.
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        var field = "\""
        for scalar in text.unicodeScalars { field.unicodeScalars.append(contentsOf: scalar == "\"" ? ["\"", "\""] : [scalar]) }
        return field + "\""
    }

    /// A path or a pad's name in a message: escaped as a name (`TerminalText.name`: a quote or
    /// backslash in it reads one way only), long paths kept whole.
    static func shown(_ text: String) -> String {
        TerminalText.name(text, limit: 4096)
    }

    func run() throws {
        // An error may quote a log's path or its text: it stays one line, as the messages do.
        do {
            try replay()
        } catch let error as ValidationError {
            throw ValidationError(TerminalText.line(error.message))
        } catch let error as ExitCode {
            throw error
        } catch {
            let text = String(describing: error), line = TerminalText.line(text)
            throw line == text ? error : DrumBrain.Failure(description: line)
        }
    }

    private func replay() throws {
        let kitPath = try kit ?? BundledKit.path()
        let loadedKit = try KitLoader.load(kitPath)
        for line in loadedKit.leftOut { Self.report("drumbrain replay: kit \(Self.shown(kitPath)): \(line)") }
        var pads: [KitReplay.Pad] = []
        var start: Double?
        let logs = self.logs.filter { path in
            guard Self.isOtherCSV(path) else { return true }
            Self.report("drumbrain replay: \(Self.shown(path)): skipped: not a sensor log (its header has no z column; a labels file or a hit list?)")
            return false
        }
        guard !logs.isEmpty else {
            throw DrumBrain.Failure(description: (self.logs.count == 1 ? "the file given is not" : "none of the \(self.logs.count) files given is")
                                    + " a sensor log (a header with t and z columns)")
        }
        for path in logs {
            let found: PadLogDetection.Detected
            do {
                found = try EvemuRecording.isRecording(path: path) ? detectRecording(path) : PadLogDetection.detect(path: path, kind: detector)
            } catch {
                // The file's fault, not the command line's: no usage after it (exit 1).
                throw DrumBrain.Failure(description: "\(error)")
            }
            let stem = Self.stem(path)
            let drum = found.drum ?? Self.drum(named: stem, in: loadedKit.drums.map(\.name))
            if loadedKit.index(of: drum) == nil {
                Self.report("drumbrain replay: \(Self.shown(path)): the kit \"\(loadedKit.displayName)\" has no drum \(Self.shown(drum)): the pad's hits are decided "
                           + "and written as any pad's, but sound nothing (a `# drum:` line in the log, or the drum's name as a word of the file's, names the pad's drum)")
            }
            Self.report("drumbrain replay: \(Self.shown(path)): \(found.samples) samples"
                       + (found.rateHz.map { " (\(DecimalFormatting.string($0, decimals: 1)) Hz)" } ?? "")
                       + ", \(found.hits.count - found.felt) hits by the \(detector.rawValue) detector"
                       + (found.felt > 0 ? " (and \(found.felt) pushes felt through the stand)" : "")
                       + ", pad \"\(Self.shown(stem))\" playing \(Self.shown(drum))")
            pads.append(.init(name: stem, drum: drum, rateHz: found.rateHz, hits: found.hits))
            if let first = found.firstTime { start = min(start ?? first, first) }
        }
        // The WAV and the MIDI file begin at the whole second the logs begin in: 0 for logs timed
        // from their start, not 1.7 billion seconds of silence for logs timed by the epoch.
        let origin = (start ?? 0).rounded(.down)
        let groups = try Serve.crosstalkGroups(crosstalkGroup)
        let stands = StandCrosstalk(model: Serve.loadStands(standState))
        var choosing = LatencyChooser.Configuration(periodMicros: LatencyChooser.defaultPeriodMicros)
        choosing.crosstalkHold = groups.isEmpty  // as live: the learned stands' weak hits wait for their cause
        // Every pad is decided, a drum the kit lacks included (its hits are written; --out and
        // --midi-out leave them silent): a replay's logs are often named pad1.csv, pad2.csv, ...
        let kitDrums = loadedKit.drums.map(\.name)
        let result = KitReplay.run(pads, drums: kitDrums + pads.map(\.drum).filter { !kitDrums.contains($0) },
                                   stands: groups.isEmpty ? stands : nil,
                                   groups: groups.isEmpty ? nil : CrosstalkGroups(groups, .init(hold: (jitterBufferMs ?? 0) / 1000)),
                                   jitterMicros: Int64((jitterBufferMs ?? 0) * 1000),
                                   latency: jitterBufferMs == nil ? LatencyChooser(choosing) : nil)
        if jitterBufferMs == nil {
            Self.report("drumbrain replay: latency from strike to sound \(DecimalFormatting.string(Double(result.latencyMicros) / 1000, decimals: 1)) ms "
                       + "at the end, chosen from the pads' hits as live (--jitter-buffer-ms sets it)")
        }
        for coupling in result.couplings {
            Self.report("drumbrain replay: \(Self.shown(coupling.source)) and \(Self.shown(coupling.receiver)) share a stand: \(Self.shown(coupling.receiver)) feels "
                       + "\(DecimalFormatting.string(coupling.coupling * 100, decimals: 1)) % of \(Self.shown(coupling.source))'s strikes, "
                       + "\(DecimalFormatting.string(coupling.lagMicros / 1000, decimals: 1)) ms later")
        }
        for (p, pad) in pads.enumerated() {
            let played = result.played.filter { $0.pad == p }
            let held = played.filter { $0.delayMs > 0 }
            let felt = pad.hits.count { $0.felt }
            Self.report("drumbrain replay: pad \(Self.shown(pad.name)): \(played.count) played, \(result.cancelled[p]) cancelled as crosstalk"
                       + (result.takenBack[p] > 0 ? " (\(result.takenBack[p]) taken back while held)" : "")
                       + (felt > 0 ? ", \(felt) pushes felt through the stand (learned from, not played)" : "")
                       + (held.isEmpty ? "" : ", \(held.count) held up to \(DecimalFormatting.string(held.map(\.delayMs).max() ?? 0, decimals: 1)) ms"))
        }
        if result.swayed > 0 {
            Self.report("drumbrain replay: \(result.swayed) of the hits cancelled were a stand's sway: no stronger than a "
                       + "neighbour's strike, past its window, could still cause")
        }
        if result.weak > 0 {
            Self.report("drumbrain replay: \(result.weak) of the hits cancelled were too weak for a stroke at their pad's rate: "
                       + "under \(DecimalFormatting.string(stands.model.configuration.leastStrokeG, decimals: 2)) g from a pad sampling at 170-500 Hz")
        }
        if result.shaken > 0 {
            let c = stands.model.configuration
            Self.report("drumbrain replay: \(result.shaken) of the hits cancelled were a shake of the whole stand: "
                       + "\(c.shakenPads) pads or more at 170 Hz or faster felt it alike within a period, "
                       + "none \(DecimalFormatting.string(c.shakeMaximumG, decimals: 1)) g or more")
        }
        if let hitsDir {
            for (p, pad) in pads.enumerated() {
                var text = "t,velocity,strength,delay_ms\n"
                for hit in result.played where hit.pad == p {
                    text += DecimalFormatting.string(hit.time, decimals: 6) + "," + DecimalFormatting.string(hit.velocity, decimals: 4)
                        + "," + DecimalFormatting.string(hit.strength, decimals: 4) + "," + DecimalFormatting.string(hit.delayMs, decimals: 3) + "\n"
                }
                try TextFile.write(text, to: "\(hitsDir)/\(pad.name).hits.csv")
            }
        }
        if let standState, groups.isEmpty {
            try TextFile.write(stands.model.stateText, to: standState)
        }
        if let decisions {
            var text = "pad,t,arrival,strength,outcome,hold_ms\n"
            for d in result.decisions {
                text += Self.csvField(pads[d.pad].name) + "," + DecimalFormatting.string(d.time, decimals: 6) + ","
                    + DecimalFormatting.string(d.arrival, decimals: 6) + "," + DecimalFormatting.string(d.strength, decimals: 4)
                    + "," + d.outcome + "," + DecimalFormatting.string(d.holdMs, decimals: 3) + "\n"
            }
            try TextFile.write(text, to: decisions)
        }
        if let out {
            let timed = result.played.map { TimedHit(time: $0.time - origin, drum: pads[$0.pad].drum, velocity: Float($0.velocity)) }
            let (samples, _) = try OfflineRender.render(kit: loadedKit, hits: timed)
            let silent = timed.count { loadedKit.index(of: $0.drum) == nil }
            try samples.withUnsafeBufferPointer { buffer in
                try SoundFile.writeWAV(out, interleaved: buffer, channels: 2, sampleRate: Int(loadedKit.sampleRate), pcm16: false)
            }
            Self.report("drumbrain replay: \(result.played.count - silent) hits rendered to \(Self.shown(out))"
                       + (silent > 0 ? " (\(silent) on drums the kit lacks left silent)" : ""))
        }
        if let midiOut {
            // Bounded as a render is: a file hours long is no kit's replay, and its times would
            // overflow the ticks.
            if let last = result.played.map(\.time).max(), !(last - origin <= OfflineRender.longestSeconds) {
                throw DrumAudioError.renderTooLong(seconds: last - origin)
            }
            let notes = loadedKit.drums.map(\.midiNote)
            let recorder = MIDIFileRecorder(path: midiOut, flushMicros: .max)
            var silent = 0
            for hit in result.played {
                guard let drum = loadedKit.index(of: pads[hit.pad].drum),
                      let note = midi.mapping.note(drum: drum, velocity: Float(hit.velocity), micros: KitReplay.micros(hit.time - origin),
                                           notes: notes)
                else {
                    silent += 1
                    continue
                }
                try recorder.add(note, nowMicros: 0)
            }
            try recorder.finish()
            Self.report("drumbrain replay: \(recorder.count) notes written to \(Self.shown(midiOut))"
                       + (silent > 0 ? " (\(silent) hits on drums with no MIDI note left out)" : ""))
        }
    }
}

extension DetectorKind: ExpressibleByArgument {
    /// `card`, `tvdrums`, `adaptive`, or `default` (the card's, by its old name), as drumpad takes it.
    public init?(argument: String) { self.init(name: argument) }
}

import Console
import ArgumentParser
import DrumAudio
import HitDetect
#if canImport(Glibc)
import Glibc
#endif

/// `drumbrain render`: a hit list to a WAV file, offline.
struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a hit list (t,drum,velocity) to a WAV file through the mixer, offline.",
        discussion: """
            Sample-exact and deterministic: a hit at t starts at frame round(t × rate), and the \
            same input always gives the same samples. The output is 48 kHz stereo, 32-bit float \
            (or 16-bit PCM with --pcm16).

            Example:
              printf 't,drum,velocity\\n0,kick,1\\n0.5,snare,0.8\\n' > hits.csv
              drumbrain render --hits hits.csv --out groove.wav
            """)

    @Option(help: "The kit: a kit.json or its folder (default: the bundled kit).")
    var kit: String?

    @Option(help: "The hit list: CSV with t (seconds), drum, and optional velocity (0…1).")
    var hits: String

    @Option(help: "The WAV file to write.")
    var out: String

    @Flag(help: "Write 16-bit PCM instead of 32-bit float.")
    var pcm16 = false

    func run() throws {
        let kitPath = try kit ?? BundledKit.path()
        let loaded = try KitLoader.load(kitPath)
        for line in loaded.leftOut { printError("drumbrain render: kit \(kitPath): \(line)") }
        let list = try OfflineRender.readHits(hits)
        let (samples, unknown) = try OfflineRender.render(kit: loaded, hits: list)
        try samples.withUnsafeBufferPointer { buffer in
            try SoundFile.writeWAV(out, interleaved: buffer, channels: 2, sampleRate: Int(loaded.sampleRate), pcm16: pcm16)
        }
        if !unknown.isEmpty {
            printError("drumbrain render: the kit \"\(loaded.displayName)\" has no \(unknown.joined(separator: ", ")); "
                       + "those hits were skipped (drums: \(loaded.drums.map(\.name).joined(separator: ", ")))")
        }
        let seconds = Double(samples.count / 2) / loaded.sampleRate
        printError("drumbrain render: \(list.count) hits with kit \"\(loaded.displayName)\" → \(out) "
                   + "(\(DecimalFormatting.string(seconds, decimals: 3)) s, \(Int(loaded.sampleRate)) Hz stereo)")
    }
}

/// `drumbrain check-kit`: load a kit and show what is in it.
struct CheckKit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-kit",
        abstract: "Load a kit, check it, and print its drums with their azimuths, MIDI notes and layers.")

    @Argument(help: "A kit.json or its folder (default: the bundled kit).")
    var path: String?

    func run() throws {
        let kitPath = try path ?? BundledKit.path()
        let kit = try KitLoader.load(kitPath)
        // Names and paths from the kit file: StandardOutput makes them safe for a terminal.
        StandardOutput.line("kit \"\(kit.displayName)\" (\(kitPath)): \(kit.drums.count) drums at \(Int(kit.sampleRate)) Hz"
                            + (kit.leftOut.isEmpty ? "" : "; \(kit.leftOut.count) left out (below)"))
        for drum in kit.drums {
            let layers = drum.layers.map { layer in
                "\(layer.source) [\(DecimalFormatting.string(layer.minVelocity, decimals: 3))…\(DecimalFormatting.string(layer.maxVelocity, decimals: 3))] "
                    + "\(DecimalFormatting.string(Double(layer.buffer.frames) / kit.sampleRate, decimals: 3)) s"
                    + (layer.buffer.channels == 2 ? " stereo" : " mono")
            }
            let note = drum.midiNote.map { "MIDI note \($0)" + (drum.note == nil ? " (General MIDI)" : "") } ?? "no MIDI note"
            StandardOutput.line("  \(drum.name): azimuth \(DecimalFormatting.string(drum.azimuth, decimals: 1))°, gain \(DecimalFormatting.string(drum.gain, decimals: 3)), "
                                + "\(note); "
                                + layers.joined(separator: "; "))
        }
        for line in kit.leftOut { StandardOutput.line("left out: \(line)") }
    }
}

/// Finds the bundled kit both in the repository and installed beside the executable.
enum BundledKit {
    /// The bundled kit's kit.json (see `BundledKitLocation`), or a usage error saying what to give.
    static func path() throws -> String {
        guard let found = BundledKitLocation.find() else {
            throw ValidationError("no --kit given and the bundled kit was not found (Samples/kit/kit.json in "
                                  + "a checkout, or PREFIX/share/drumtrigger/kit beside PREFIX/bin); give --kit PATH")
        }
        return found
    }
}

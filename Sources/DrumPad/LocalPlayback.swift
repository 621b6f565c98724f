import Console
import DrumAudio

/// `drumpad run --local`: the pad plays its own drum on its own audio output too, through the
/// same audio engine as the brain (a kit, the real-time mixer, ALSA, WAV or null).
final class LocalPlayback {
    private let engine: AudioEngine
    private let drumIndex: Int
    /// What is playing where, for the start-up line.
    let description: String

    /// Loads `kitPath` (default: the bundled kit) and opens the output (`start` starts it);
    /// throws when the kit has no drum named `drum`, or the output cannot be opened.
    init(drum: String, kitPath: String?, output: String) throws {
        guard let path = kitPath ?? BundledKitLocation.find() else {
            throw DrumPadError.usage("--local: no --kit given and the bundled kit was not found "
                                     + "(Samples/kit in a checkout, or PREFIX/share/drumtrigger/kit); give --kit PATH")
        }
        guard let target = AudioEngine.Output(output) else {
            throw DrumPadError.usage("--local-output must be alsa:DEVICE, wav:FILE or null, not \"\(output)\"")
        }
        let kit = try KitLoader.load(path, sampleRate: 48_000)
        for line in kit.leftOut { printError("drumpad: --local kit \(path): \(line)") }
        guard let index = kit.drums.firstIndex(where: { $0.name == drum }) else {
            throw DrumPadError.usage("--local: kit \"\(kit.displayName)\" (\(path)) has no drum \"\(drum)\"; it has "
                                     + kit.drums.map(\.name).joined(separator: ", "))
        }
        // A pad's board is small: a larger period than the brain's costs little here.
        engine = try AudioEngine(kit: kit, configuration: .init(output: target, periodFrames: 256, periods: 3))
        drumIndex = index
        description = "\(drum) from kit \"\(kit.displayName)\" → \(engine.outputDescription)"
    }

    /// Starts the output: its audio thread (a WAV file's time starts here).
    func start() {
        engine.start()
    }

    /// Starts the drum now. Thread safety: call from one thread (the sensor loop) only.
    func play(velocity: Float) -> Bool {
        engine.play(drum: drumIndex, velocity: velocity)
    }

    /// Stops the output (a WAV file is finished).
    func stop() {
        engine.stop()
    }
}

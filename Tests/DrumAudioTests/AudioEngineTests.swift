#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import DrumAudio

struct AudioEngineTests {
    static func kit() -> Kit {
        testKit([("kick", -30, 3_000, sine), ("snare", 40, 2_000, { Float($0 % 50) / 100 - 0.25 })])
    }

    /// Reads a raw file of float32 samples.
    static func floats(_ path: String) -> [Float] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var out: [Float] = []
        var chunk = [Float](repeating: 0, count: 65_536)
        while true {
            let got = fread(&chunk, 4, chunk.count, file)
            if got == 0 { break }
            out += chunk[..<got]
        }
        return out
    }

    /// Through ALSA for real (its `file` plugin, which needs no sound card): what reaches the
    /// device equals the offline render of the same hits, sample for sample.
    @Test func alsaFilePluginReceivesExactlyTheRender() async throws {
        let raw = "/tmp/drumtest-alsa-\(getpid()).raw"
        defer { unlink(raw) }
        let kit = Self.kit()
        let engine = try AudioEngine(kit: kit, configuration: .init(output: .alsa("file:FILE=\(raw),FORMAT=raw")))
        #expect(engine.outputDescription.hasPrefix("alsa:file:"))
        // Scheduled at exact frames before the thread starts: the timing cannot race.
        engine.queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 480))
        engine.queue.push(ScheduledHit(drum: 1, velocity: 0.5, frame: 1_000))
        engine.queue.push(ScheduledHit(drum: 0, velocity: 0.8, frame: 2_000))
        engine.start()
        while engine.status.mixer.frames < 8_192 { try await Task.sleep(for: .milliseconds(2)) }
        engine.stop()
        let played = Self.floats(raw)
        let (expected, _) = OfflineRender.render(kit: kit, hits: [
            TimedHit(time: 480 / 48_000, drum: "kick", velocity: 1),
            TimedHit(time: 1_000 / 48_000, drum: "snare", velocity: 0.5),
            TimedHit(time: 2_000 / 48_000, drum: "kick", velocity: 0.8)])
        #expect(played.count >= expected.count)
        #expect(Array(played.prefix(expected.count)) == expected)
        #expect(engine.status.mixer.hits == 3 && engine.status.outputError == nil)
    }

    @Test func aMissingAlsaDeviceSaysWhyAndWhatToTry() {
        do {
            _ = try AudioEngine(kit: Self.kit(), configuration: .init(output: .alsa("no-such-device")))
            Issue.record("opened a device that does not exist")
        } catch {
            #expect(error.description.hasPrefix("cannot open output alsa:no-such-device: "))
            #expect(error.description.contains("--output wav:FILE"))
        }
    }

    @Test func wavOutputAndRecordingHoldWhatWasPlayed() async throws {
        let live = "/tmp/drumtest-live-\(getpid()).wav", recorded = "/tmp/drumtest-rec-\(getpid()).wav"
        defer { unlink(live); unlink(recorded) }
        let engine = try AudioEngine(kit: Self.kit(), configuration: .init(output: .wav(live), record: recorded))
        engine.start()
        _ = engine.play(drum: 0, velocity: 1)
        while engine.status.mixer.frames < 4_800 { try await Task.sleep(for: .milliseconds(5)) }
        engine.stop()
        let a = try SoundFile.read(live), b = try SoundFile.read(recorded)
        #expect(a.channels == 2 && a.sampleRate == 48_000 && a.frames >= 4_800)
        #expect(a.frames == b.frames)
        #expect((0..<(a.frames * 2)).allSatisfy { a.samples[$0] == b.samples[$0] })
        #expect((0..<(a.frames * 2)).contains { a.samples[$0] != 0 })
        #expect(engine.status.droppedSamples == 0)
    }

    @Test(arguments: [("alsa:default", AudioEngine.Output.alsa("default")), ("wav:/tmp/x.wav", .wav("/tmp/x.wav")), ("null", .null)])
    func outputsParse(text: String, output: AudioEngine.Output) {
        #expect(AudioEngine.Output(text) == output && output.description == text)
    }

    @Test func badOutputsDoNotParse() {
        #expect(AudioEngine.Output("alsa:") == nil && AudioEngine.Output("speakers") == nil && AudioEngine.Output("wav:") == nil)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import DrumAudio
import Monotonic

struct AudioEngineTests {
    static func kit() -> Kit {
        testKit([("kick", -30, 3_000, sine), ("snare", 40, 2_000, { Float($0 % 50) / 100 - 0.25 })])
    }

    /// Waits until the engine has rendered `frames` frames, polling every 2 ms (a blocking wait,
    /// not Task.sleep: on a loaded 2-core machine the concurrency pool can be busy with other
    /// tests for minutes). An engine that stops short is a failure that says how far it got and
    /// its status, after `seconds` (ample: 0.2 s of audio takes 0.2 s), not a hang.
    @discardableResult
    static func waitForFrames(_ engine: AudioEngine, _ frames: Int64, within seconds: Double = 30,
                              sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let deadline = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
        while engine.status.mixer.frames < frames && MonotonicClock.nowMicros() < deadline { usleep(2_000) }
        let status = engine.status
        #expect(status.mixer.frames >= frames, "\(status.mixer.frames) of \(frames) frames rendered in \(seconds) s: \(status)",
                sourceLocation: sourceLocation)
        return status.mixer.frames >= frames
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
        let started = MonotonicClock.nowMicros()
        engine.start()
        Self.waitForFrames(engine, 8_192)
        engine.stop()
        let ran = MonotonicClock.nowMicros() - started
        let played = Self.floats(raw)
        // The plugin takes every write at once; the clock paces the engine instead, so it
        // writes about as much as the time it ran (not gigabytes at real-time priority).
        #expect(played.count / 2 <= Int(ran) * 48_000 / 1_000_000 + 4 * 1_024,
                "\(played.count / 2) frames written in \(ran) µs")
        let (expected, _) = try OfflineRender.render(kit: kit, hits: [
            TimedHit(time: 480 / 48_000, drum: "kick", velocity: 1),
            TimedHit(time: 1_000 / 48_000, drum: "snare", velocity: 0.5),
            TimedHit(time: 2_000 / 48_000, drum: "kick", velocity: 0.8)])
        #expect(played.count >= expected.count)
        #expect(Array(played.prefix(expected.count)) == expected)
        #expect(engine.status.mixer.hits == 3 && engine.status.outputError == nil)
    }

    /// ALSA's `null` takes every write at once and always has room (the clock paces the engine).
    /// A render stalled past the buffer there is not an underrun (a paced device that ran dry
    /// is: `PulseAudioTests`).
    @Test func anUnpacedDeviceNeverRunsDry() async throws {
        let engine = try AudioEngine(kit: Self.kit(), configuration: .init(output: .alsa("null")))
        engine.start()
        defer { engine.stop() }
        try #require(Self.waitForFrames(engine, 9_600))
        let frames = engine.status.mixer.frames
        engine.stallRenderOnce(micros: 50_000)  // six times the 8 ms buffer
        Self.waitForFrames(engine, frames + 9_600)
        #expect(engine.status.xruns == 0 && engine.status.outputError == nil)
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

    @Test func wavOutputAndRecordingHoldWhatWasPlayed() throws {
        let live = "/tmp/drumtest-live-\(getpid()).wav", recorded = "/tmp/drumtest-rec-\(getpid()).wav"
        defer { unlink(live); unlink(recorded) }
        let engine = try AudioEngine(kit: Self.kit(), configuration: .init(output: .wav(live), record: recorded))
        engine.start()
        _ = engine.play(drum: 0, velocity: 1)
        // A blocking wait (see waitForFrames): the engine would run (and write) all the time a
        // Task.sleep waited for the concurrency pool.
        Self.waitForFrames(engine, 4_800)
        engine.stop()
        let a = try SoundFile.read(live), b = try SoundFile.read(recorded)
        #expect(a.channels == 2 && a.sampleRate == 48_000 && a.frames >= 4_800)
        #expect(a.frames == b.frames)
        #expect((0..<(a.frames * 2)).allSatisfy { a.samples[$0] == b.samples[$0] })
        #expect((0..<(a.frames * 2)).contains { a.samples[$0] != 0 })
        #expect(engine.status.droppedSamples == 0)
    }

    /// An engine stopped before it started closes its outputs all the same: the WAV and the
    /// recording are whole files of no frames (their headers filled in), and after that a second
    /// stop and a start do nothing (no audio thread writes to a closed file).
    @Test func anEngineStoppedBeforeItStartedClosesItsOutputs() throws {
        let live = "/tmp/drumtest-unstarted-\(getpid()).wav", recorded = "/tmp/drumtest-unstarted-rec-\(getpid()).wav"
        defer { unlink(live); unlink(recorded) }
        let engine = try AudioEngine(kit: Self.kit(), configuration: .init(output: .wav(live), record: recorded))
        engine.stop()
        engine.stop()
        engine.start()
        _ = engine.play(drum: 0, velocity: 1)
        usleep(100_000)
        #expect(engine.status.mixer.frames == 0)
        for path in [live, recorded] {
            #expect(try SoundFile.read(path).frames == 0)
            let (riff, bytes) = riffSize(ofWAV: path)
            #expect(bytes > 44 && riff == bytes - 8, "\(path): RIFF size \(riff) in \(bytes) bytes")
        }
    }

    @Test(arguments: [("alsa:default", AudioEngine.Output.alsa("default")), ("wav:/tmp/x.wav", .wav("/tmp/x.wav")), ("null", .null)])
    func outputsParse(text: String, output: AudioEngine.Output) {
        #expect(AudioEngine.Output(text) == output && output.description == text)
    }

    @Test func badOutputsDoNotParse() {
        #expect(AudioEngine.Output("alsa:") == nil && AudioEngine.Output("speakers") == nil && AudioEngine.Output("wav:") == nil)
    }
}

struct JitterBufferTests {
    /// Hits timed 10 ms apart on the monotonic clock start 480 frames apart at 48 kHz, whatever
    /// the period boundaries: the jitter buffer keeps the spacing they were played with.
    @Test func hitsKeepTheirOwnSpacing() async throws {
        let kit = testKit([("kick", 0, 100, { _ in 0.5 })])
        let engine = try AudioEngine(kit: kit, configuration: .init(output: .null, periodFrames: 128))
        engine.start()
        defer { engine.stop() }
        let deadline = MonotonicClock.nowMicros() + 30_000_000
        while engine.frame(atMicros: 0) == nil && MonotonicClock.nowMicros() < deadline { usleep(5_000) }
        try #require(engine.frame(atMicros: 0) != nil, "the audio thread did not start its clock within 30 s: \(engine.status)")
        try await Task.sleep(for: .milliseconds(300))  // the clock's window fills
        let base = MonotonicClock.nowMicros()
        for k in 0..<20 {
            #expect(engine.play(drum: 0, velocity: 1, atMicros: base + Int64(k) * 10_000 + Int64(k % 3) * 37,
                                delayMicros: 50_000, id: UInt32(k + 1)))
        }
        try await Task.sleep(for: .milliseconds(400))
        var frames: [Int64] = []
        while let started = engine.mixer.started.pop() { frames.append(started.frame) }
        #expect(frames.count == 20)
        for k in 1..<frames.count {
            let expected = 480 + Int64((k % 3) * 37 - ((k - 1) % 3) * 37) * 48 / 1000
            #expect(abs(frames[k] - frames[k - 1] - expected) <= 1, "gap \(k): \(frames[k] - frames[k - 1])")
        }
        // Not snapped to period starts.
        #expect(frames.contains { $0 % 128 != 0 })
    }
}

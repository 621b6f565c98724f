#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import DrumAudio
import Monotonic

@Suite(.serialized, .enabled(if: pulseAvailable, "needs pulseaudio, pulseaudio-utils, libasound2-plugins and liblo-tools"))
struct PulseAudioTests {
    /// Energy onsets (5 ms frames jumping 8× over the 15 ms before) in the left channel.
    static func onsets(_ buffer: AudioBuffer) -> [Int] {
        let frame = 240
        var energies: [Double] = []
        var i = 0
        while i + frame <= buffer.frames {
            var e = 0.0
            for k in i..<(i + frame) { e += Double(buffer[k, 0] * buffer[k, 0]) }
            energies.append(e / Double(frame))
            i += frame
        }
        var found: [Int] = []
        for k in 3..<max(3, energies.count) {
            let before = (energies[k - 3] + energies[k - 2] + energies[k - 1]) / 3
            if energies[k] > 1e-5 && energies[k] > 8 * (before + 1e-12) && (found.last.map { k - $0 > 10 } ?? true) {
                found.append(k)
            }
        }
        return found.map { $0 * frame }
    }

    /// Hits sent to a running brain over TCP are heard from a PulseAudio null sink behind ALSA's
    /// pulse plugin: each one once, as far apart as they were sent, on the side its azimuth says.
    @Test func everyHitIsHeardOnceThroughPulseAudio() throws {
        let pulse = try PulseSandbox()
        let recording = pulse.folder + "/heard.wav"
        let recorder = BackgroundProcess(pulse.env(["parecord", "--device=drumtest.monitor", "--file-format=wav", "--latency-msec=20",
                                                     "--rate=48000", "--channels=2", recording]))!
        let port = freePort()
        usleep(300_000)  // parecord connected and recording
        let brain = BackgroundProcess(pulse.env([Program.productsFolder + "/drumbrain", "--port", "\(port)",
                                                 "--output", "alsa:pulse", "--period", "1024", "--periods", "4",
                                                 "--quiet"]))!
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        // ALSA's pulse plugin on this project's VM holds a new stream for up to about 2 s before
        // sound flows (measured: the mixer had rendered 0.1 s of audio 2 s after start); hits sent
        // in that window start late. Wait it out, as a drummer would before the first stroke.
        usleep(3_000_000)
        // The hihat sits at −45°: left louder than right.
        var sent: [Int64] = []
        for _ in 0..<5 {
            sent.append(MonotonicClock.nowMicros())
            #expect(Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "s", "hihat"]).status == 0)
            usleep(300_000)
        }
        usleep(800_000)
        brain.stop(signal: SIGINT)
        usleep(200_000)
        recorder.stop(signal: SIGINT)
        #expect(brain.output.contains("audio: 5 sounds started"))
        let heard = try SoundFile.read(recording)
        let found = Self.onsets(heard)
        #expect(found.count == 5, "onsets at \(found) in \(heard.frames) frames (\(heard.channels) ch, \(heard.sampleRate) Hz)")
        guard found.count == 5 else { return }
        for k in 1..<5 {
            let heardGap = Double(found[k] - found[k - 1]) / 48, sentGap = Double(sent[k] - sent[k - 1]) / 1000
            // A hit with no pad time plays in the next period rendered after it arrives, and
            // through the pulse plugin which frame that is varies with how full the buffer is:
            // measured, one hit was rendered 1.9 ms after it arrived and the next 17.2 ms after,
            // 16 periods later for 14.4 periods sent. So up to two periods (42.7 ms), plus the
            // onsets' 5 ms frames. The pad-timed path is held to a millisecond end to end.
            #expect(abs(heardGap - sentGap) < 48, "gap \(k): heard \(heardGap) ms, sent \(sentGap) ms")
        }
        var left = 0.0, right = 0.0
        for frame in found[0]..<min(heard.frames, found[0] + 4_800) {
            left += Double(heard[frame, 0] * heard[frame, 0])
            right += Double(heard[frame, 1] * heard[frame, 1])
        }
        // cos²(π/8) ≈ 0.854 of the energy on the left for −45°.
        #expect(abs(left / (left + right) - 0.854) < 0.02)
    }

    /// A brain stopped for 1.5 s (SIGSTOP, as a swapping or overloaded machine stalls it) lets
    /// the device run dry: it says so when it happens, and plays on.
    @Test func aStalledBrainSaysItsDeviceRanDryAndPlaysOn() throws {
        // Half a second was not always enough: the pulse plugin once rode it out (0 underruns,
        // in a fresh run of every test). 1.5 s is well past the 85 ms buffer and the server's own.
        try stopPlayAndCount(device: "pulse", stoppedMicros: 1_500_000, port: freePort())
    }

    /// A device that never reports running dry (ALSA's pulse plugin with `handle_underrun false`,
    /// as the plugin sometimes behaves on its own when the whole process stalls): the brain
    /// stopped past its buffer still counts the underrun, once, and plays on.
    @Test func aStallIsCountedEvenWhenTheDeviceDoesNotSaySo() throws {
        try stopPlayAndCount(device: "quietpulse", stoppedMicros: 1_000_000, port: freePort(),
                             asoundrc: "pcm.quietpulse {\n  type pulse\n  handle_underrun false\n}\n")
    }

    /// A hit that reaches the brain while the sound server stands still starts only when the
    /// server moves again: its line still says where it started (the brain once gave up after
    /// 200 ms and printed it without its frame, which a stalled CI machine did to 1 hit in 88).
    @Test func aHitWhoseStartIsHeldUpStillSaysItsFrame() throws {
        let pulse = try PulseSandbox()
        let port = freePort()
        let brain = BackgroundProcess(pulse.env([Program.productsFolder + "/drumbrain", "--port", "\(port)",
                                                 "--output", "alsa:pulse", "--period", "1024", "--periods", "4"]))!
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        usleep(3_000_000)  // the pulse plugin's hold on a new stream (see above)
        kill(pulse.daemonPID, SIGSTOP)
        #expect(Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "s", "snare"]).status == 0)
        usleep(1_000_000)
        kill(pulse.daemonPID, SIGCONT)
        #expect(brain.waitForOutput("hit drum=snare", within: 10), "\(brain.output)")
        brain.stop(signal: SIGINT)
        #expect(brain.output.contains("hit drum=snare velocity=1.000 pad=- frame="), "\(brain.output)")
        #expect(brain.output.contains("audio: 1 sounds started"), "\(brain.output)")
    }

    /// Starts a brain on ALSA's `device` (defined by `asoundrc` in a private home if given),
    /// stops it whole for `stoppedMicros`, and checks that it says the device ran dry, counts
    /// that once, and plays the next hit.
    func stopPlayAndCount(device: String, stoppedMicros: UInt32, port: Int, asoundrc: String? = nil) throws {
        let pulse = try PulseSandbox()
        var environment: [String] = []
        if let asoundrc {
            let home = pulse.folder + "/home"
            mkdir(home, 0o700)
            #expect(FileManager.default.createFile(atPath: home + "/.asoundrc", contents: Data(asoundrc.utf8)))
            environment.append("HOME=\(home)")
        }
        let brain = BackgroundProcess(pulse.env(environment + [Program.productsFolder + "/drumbrain", "--port", "\(port)",
                                                 "--output", "alsa:\(device)", "--period", "1024", "--periods", "4"]))!
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        usleep(3_000_000)  // the pulse plugin's hold on a new stream (see above)
        kill(brain.pid, SIGSTOP)
        usleep(stoppedMicros)
        kill(brain.pid, SIGCONT)
        #expect(brain.waitForOutput("underrun near frame", within: 10), "\(brain.output)")
        usleep(3_000_000)  // the plugin holds the restarted stream as it holds a new one
        #expect(Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "s", "snare"]).status == 0)
        #expect(brain.waitForOutput("hit drum=snare", within: 10), "\(brain.output)")
        usleep(300_000)
        brain.stop(signal: SIGINT)
        #expect(brain.output.contains(" pad=- frame="), "the hit did not start: \(brain.output)")
        #expect(brain.output.contains("audio: 1 sounds started, 1 underruns"), "\(brain.output)")
    }
}

/// Issue 10's forced underrun: the render thread stalled past the device buffer, through a real
/// paced device (ALSA's pulse plugin into a PulseAudio null sink).
@Suite(.enabled(if: pulseAvailable, "needs pulseaudio, pulseaudio-utils and libasound2-plugins"))
struct UnderrunTests {
    @Test func aStalledRenderIsCountedAndRecoveredAndPlayingGoesOn() throws {
        let pulse = try PulseSandbox()
        // The pulse plugin reads the server's address from this process' environment.
        setenv("PULSE_SERVER", "unix:\(pulse.folder)/native", 1)
        setenv("PULSE_RUNTIME_PATH", pulse.folder, 1)
        defer { unsetenv("PULSE_SERVER"); unsetenv("PULSE_RUNTIME_PATH") }
        let engine = try AudioEngine(kit: AudioEngineTests.kit(), configuration: .init(
            output: .alsa("pulse"), periodFrames: 1024, periods: 4))
        engine.start()
        defer { engine.stop() }
        // Sound flows (the plugin holds a new stream for up to ~2 s on this VM).
        #expect(eventually(within: 10) { engine.status.mixer.frames > 48_000 })
        let before = engine.status
        #expect(before.xruns == 0 && before.outputError == nil)
        let probe = MonotonicClock.nowMicros()
        let mappedBefore = try #require(engine.frame(atMicros: probe))
        // Stalled for 0.4 s: the device's 85 ms buffer runs dry.
        engine.stallRenderOnce(micros: 400_000)
        #expect(eventually(within: 10) { engine.status.xruns > before.xruns }, "no underrun counted")
        // The time the device stood still is no longer counted as frames: a moment before the
        // stall maps to an earlier frame at once (a few periods on, not a window of 64 later),
        // by at least the 0.4 s less the 85 ms the buffer held (the pulse plugin may hold the
        // restarted stream longer).
        let recovering = engine.status.mixer.frames
        #expect(eventually(within: 5) { engine.status.mixer.frames > recovering + 8 * 1024 })
        let shift = try mappedBefore - #require(engine.frame(atMicros: probe))
        #expect(shift > 14_000, "time→frame moved by \(shift) frames after the underrun")
        // Recovered: frames keep flowing and a hit still plays.
        let after = engine.status.mixer.frames
        #expect(eventually(within: 5) { engine.status.mixer.frames > after + 48_000 })
        #expect(engine.play(drum: 0, velocity: 1))
        #expect(eventually(within: 5) { engine.status.mixer.hits == 1 })
        #expect(engine.status.outputError == nil)
        print("forced underrun: \(engine.status.xruns) counted, the clock re-timed by \(shift) frames, playing on")
        if engine.status.outputError == nil && engine.status.mixer.hits == 1 {
            FaultTable.record("render thread stalled (test build)", load: "0.4 s stall on ALSA's pulse device, 85 ms buffer",
                              result: "survived; \(engine.status.xruns) underrun counted, recovered, the next hit played")
        }
    }
}

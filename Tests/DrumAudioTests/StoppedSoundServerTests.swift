#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Stopping the brain never waits on a sound server that has stopped: the audio thread waits
/// for room in poll() beside a wake-up that stop rings, and the device is dropped, not drained.
/// (Before, `drumbrain` hung in `snd_pcm_writei` or `snd_pcm_drain` until the server moved again.)
@Suite(.serialized, .enabled(if: pulseAvailable, "needs pulseaudio, pulseaudio-utils and libasound2-plugins"))
struct StoppedSoundServerTests {
    @Test func theBrainStopsWhileItsSoundServerStandsStill() throws {
        let pulse = try PulseSandbox()
        let port = freePort()
        let brain = BackgroundProcess(pulse.env([Program.productsFolder + "/drumbrain", "--port", "\(port)",
                                                 "--output", "alsa:pulse", "--quiet"]))!
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        usleep(2_000_000)  // sound flowing (the pulse plugin holds a new stream for up to 2 s)
        kill(pulse.daemonPID, SIGSTOP)
        defer { kill(pulse.daemonPID, SIGCONT) }
        usleep(500_000)  // the device's buffer has run out of room: the audio thread waits
        // A functional deadline: the brain either stops or hangs for as long as the server stands
        // still; 20 s is room for a slow machine, not a figure.
        let status = brain.stop(signal: SIGINT, within: 20)
        #expect(status == 0, "\(brain.output)")
        #expect(brain.output.contains("audio: "), "\(brain.output)")
        // ALSA's pulse plugin waits for the server even to drop the stream: left to close later.
        #expect(brain.output.contains("the sound device did not close within 2 s"), "\(brain.output)")
    }
}

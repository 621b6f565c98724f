#if canImport(Glibc)
import Glibc
#endif
import Testing  // for the source location stop() takes by default

/// Whether a private PulseAudio with ALSA's pulse plugin can be started here.
public let pulseAvailable = toolAvailable("pulseaudio") && toolAvailable("parecord") && toolAvailable("oscsend")
    && access("/usr/share/alsa/alsa.conf.d/pulse.conf", R_OK) == 0

/// A private PulseAudio with a null sink (`drumtest`), its socket in a temp folder; everything
/// started with `env` gets its address.
public final class PulseSandbox {
    /// The daemon's runtime folder (its socket is `native` there).
    public let folder: String
    let daemon: BackgroundProcess
    /// The daemon's process, to stop and continue it as a stalled sound server.
    public var daemonPID: pid_t { daemon.pid }

    /// Starts the daemon and waits until its sink is there.
    public init() throws {
        folder = "/tmp/drumtest-pulse-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o700)
        daemon = BackgroundProcess(["env", "PULSE_RUNTIME_PATH=\(folder)", "PULSE_STATE_PATH=\(folder)",
                                    "pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1",
                                    // Real-time scheduling where allowed (root, rtprio): a sound
                                    // server that a busy machine preempts drops out mid-groove.
                                    "--high-priority=yes", "--realtime=yes",
                                    "--disallow-exit", "--log-target=stderr",
                                    "-L", "module-null-sink sink_name=drumtest rate=48000",
                                    "-L", "module-native-protocol-unix auth-anonymous=1 socket=\(folder)/native",
                                    "-L", "module-always-sink"])!
        let folder = self.folder
        // 30 s: each look runs pactl, and `eventually` counts that time (it used to count only
        // its sleeps, so 10 s there was up to a minute on a loaded machine).
        guard eventually(within: 30, {
            Program.runTool("env", ["PULSE_SERVER=unix:\(folder)/native", "pactl", "list", "short", "sinks"])
                .stdout.contains("drumtest")
        }) else {
            throw SandboxFailure(message: "pulseaudio did not start: \(daemon.output)")
        }
    }

    /// `command` with this PulseAudio's address in its environment.
    public func env(_ command: [String]) -> [String] {
        ["env", "PULSE_SERVER=unix:\(folder)/native", "PULSE_RUNTIME_PATH=\(folder)"] + command
    }

    deinit { daemon.stop(signal: SIGTERM) }
}

/// A sandbox that could not be started.
public struct SandboxFailure: Error { public let message: String }


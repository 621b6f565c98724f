#if canImport(Glibc)
import Glibc
#endif

/// Whether this machine can run the private Avahi of docs/architecture.md, Real parts in tests (root, network namespaces,
/// dbus-daemon, avahi-daemon).
public let avahiSandboxAvailable: Bool = getuid() == 0 && toolAvailable("avahi-daemon")
    && toolAvailable("dbus-daemon") && toolAvailable("ip") && toolAvailable("avahi-browse")

/// A private Avahi daemon in its own network namespace, started for one test and stopped after.
public final class AvahiSandbox {
    public let folder: String
    public let script = Program.repositoryRoot + "/scripts/avahi-sandbox"

    public init() throws {
        folder = "/tmp/drumtest-avahi-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let run = Program.runTool(script, ["start", folder])
        guard run.status == 0 else { throw SandboxError(message: run.stderr) }
    }

    /// Arguments that run `command` inside the namespace with the private bus.
    public func inside(_ command: [String]) -> [String] { [script, "run", folder] + command }

    public func restartDaemon() { _ = Program.runTool(script, ["restart", folder]) }
    public func killDaemon() { _ = Program.runTool(script, ["kill-daemon", folder]) }
    public func startDaemon() { _ = Program.runTool(script, ["start-daemon", folder]) }

    deinit { _ = Program.runTool(script, ["stop", folder]) }
}

public struct SandboxError: Error { public let message: String }


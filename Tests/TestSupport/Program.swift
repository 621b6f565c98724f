#if canImport(Glibc)
import Glibc
#endif
import Monotonic
import Testing

/// What a finished program did.
public struct ProgramRun: Sendable {
    /// Exit status (or -1 when it could not run).
    public var status: Int32
    /// Everything it wrote to standard output.
    public var stdout: String
    /// Everything it wrote to standard error.
    public var stderr: String
}

/// Runs this package's executables and system tools from tests, as a user would.
public enum Program {
    /// The repository's root folder (for `Samples/`).
    public static let repositoryRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }  // Tests/TestSupport/x
        return path
    }()

    /// The folder holding the built products: the test bundle lives beside them.
    public static let productsFolder: String = {
        // The programs tests start never read the user's drumpad settings (drumpad calibrate's
        // ~/.config/drumpad/settings.conf): a calibrated machine must test like any other.
        setenv("XDG_CONFIG_HOME", "/nonexistent/drumpad-tests", 1)
        // Nor the stands a brain learned and kept (drumbrain --stand-state): each test's brain
        // starts from nothing, whatever ran before it; the tests of the state file name theirs.
        // Under /dev/null, which no one can make a folder in: a brain run as root made
        // /nonexistent/…/stands, and the brains of later tests started from what it learned
        // (a live racktom strike cancelled as crosstalk in LiveAndReplayTests).
        setenv("XDG_STATE_HOME", "/dev/null/drumbrain-tests", 1)
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(count > 0, "cannot read /proc/self/exe")
        var path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while !path.isEmpty {
            path = String(path[..<path.lastIndex(of: "/")!])
            if access(path + "/drumpad", X_OK) == 0 { return path }
        }
        preconditionFailure("drumpad not found beside the test bundle")
    }()

    /// Runs this package's executable `name` with `arguments` in the repository root and waits.
    public static func run(_ name: String, _ arguments: [String]) -> ProgramRun {
        runTool(productsFolder + "/" + name, arguments)
    }

    /// Runs any program (found on PATH when `path` has no slash) in the repository root and waits.
    public static func runTool(_ path: String, _ arguments: [String]) -> ProgramRun {
        let scratch = "/tmp/drumpad-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let command = ([path] + arguments).map(shellQuoted).joined(separator: " ")
        let status = system("cd \(shellQuoted(repositoryRoot)) && \(command) > \(scratch).out 2> \(scratch).err")
        defer { unlink(scratch + ".out"); unlink(scratch + ".err") }
        return ProgramRun(status: status == -1 ? -1 : (status >> 8) & 0xff,
                          stdout: contents(scratch + ".out"), stderr: contents(scratch + ".err"))
    }

    /// A file's contents as text ("" when missing).
    public static func contents(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = fread(&chunk, 1, chunk.count, file)
            if got == 0 { break }
            bytes += chunk[..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` to a new temporary file and returns its path.
    public static func temporaryFile(_ text: String, suffix: String = ".csv") -> String {
        let path = "/tmp/drumpad-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))\(suffix)"
        let file = fopen(path, "w")!
        _ = text.withCString { fputs($0, file) }
        fclose(file)
        return path
    }

    public static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

/// A program running in the background while a test talks to it.
public final class BackgroundProcess: @unchecked Sendable {
    // @unchecked: `pid` is set once in init; `stop()` is called by the one test that owns it.
    /// The process id.
    public let pid: pid_t
    /// Where its standard output and error go.
    public let outputPath: String

    /// Starts `arguments[0]` (searched on PATH) with standard output and error to a file.
    public init?(_ arguments: [String]) {
        outputPath = "/tmp/drumtest-bg-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        // The child must not inherit this thread's blocked signals (Dispatch's threads block
        // some), or it would never see the SIGTERM that stops it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        guard posix_spawnp(&child, arguments[0], &actions, &attributes, &argv, environ) == 0 else {
            return nil
        }
        pid = child
    }

    /// Everything it has written so far.
    public var output: String { Program.contents(outputPath) }

    /// Whether it has exited (it is not reaped: `wait` and `stop` still read its status).
    public var hasExited: Bool {
        var info = siginfo_t()
        return waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info._sifields._sigchld.si_pid == pid
    }

    /// Waits until its output contains `text` (true), or it exits or `seconds` pass without
    /// (false). A loaded machine may take seconds to start a program, so the default is generous;
    /// a program that fails to start is seen at once.
    public func waitForOutput(_ text: String, within seconds: Double = 30) -> Bool {
        eventually(within: seconds) { output.contains(text) || hasExited } && output.contains(text)
    }

    /// Waits up to `seconds` for it to exit by itself; returns its exit status (or 128 + signal).
    /// One still running then is a failure that shows the end of its output; it is killed, and
    /// -1 returned.
    @discardableResult
    public func wait(within seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        reap(within: seconds, sourceLocation: sourceLocation, doing: "exit by itself")
    }

    /// Sends `signal` and waits (up to `seconds`) for it to exit; returns its exit status (or
    /// 128 + signal). One still running then is a failure that shows the end of its output; it
    /// is killed, and -1 returned.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, within seconds: Double = 60,
                     sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        kill(pid, signal)
        return reap(within: seconds, sourceLocation: sourceLocation, doing: "stop on signal \(signal)")
    }

    private func reap(within seconds: Double, sourceLocation: SourceLocation, doing: String) -> Int32 {
        var status: Int32 = 0
        let deadline = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { break }
            if reaped < 0 && errno != EINTR { break }  // reaped before: status 0, as waitpid left it
            if MonotonicClock.nowMicros() >= deadline {
                Issue.record("\(pid) did not \(doing) within \(seconds) s; its output ends: \(String(output.suffix(2_000)))",
                             sourceLocation: sourceLocation)
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return -1
            }
            usleep(10_000)
        }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    deinit {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, WNOHANG)
        unlink(outputPath)
    }
}

/// Whether a program is on PATH (for tests that need a system tool).
public func toolAvailable(_ name: String) -> Bool {
    Program.runTool("sh", ["-c", "command -v \(name)"]).status == 0
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass on the monotonic clock (the
/// time `condition` itself takes counts); returns whether it held.
public func eventually(within seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
    while MonotonicClock.nowMicros() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// Polls an async `condition` every 10 ms until it holds or `seconds` pass on the monotonic
/// clock; returns whether it held.
public func eventually(within seconds: Double, _ condition: () async -> Bool) async -> Bool {
    let deadline = MonotonicClock.nowMicros() + Int64(seconds * 1e6)
    while MonotonicClock.nowMicros() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

extension String {
    /// How many times `part` occurs.
    public func components(_ part: String) -> Int { split(separator: part, omittingEmptySubsequences: false).count - 1 }
}

/// A WAV file's RIFF size and its length in bytes (up to 4 KiB read; -1 where it is shorter
/// than 8): the size is the length less 8 once the writer filled the header in (libsndfile's
/// placeholder at opening says 8), which libsndfile itself does not check when reading.
public func riffSize(ofWAV path: String) -> (riff: Int, bytes: Int) {
    guard let file = fopen(path, "rb") else { return (-1, 0) }
    defer { fclose(file) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    bytes.removeSubrange(fread(&bytes, 1, bytes.count, file)...)
    return (bytes.count >= 8 ? bytes[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) } : -1, bytes.count)
}

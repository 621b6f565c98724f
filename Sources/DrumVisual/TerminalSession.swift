import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The terminal the visual draws on: its size, the alternate screen, echo off, and putting all
/// of that back on every way out: a normal stop, a thrown error (the caller's `defer`), `exit`
/// (an `atexit` handler), SIGINT, SIGTERM or SIGQUIT arriving before the caller's own handling
/// takes over, a crash (SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT), and Ctrl-Z (SIGTSTP
/// leaves the screen; SIGCONT comes back to it). SIGWINCH raises a flag the render thread takes.
///
/// The restore path is async-signal-safe: `write` of bytes prepared in advance, `tcsetattr`,
/// `dup2`, `sigaction` and `raise`, guarded by an atomic so it runs once.
///
/// Thread safety: `enter` and `leave` from the control side, once each per session; the flags
/// from any thread or signal handler.
public enum TerminalSession {
    /// Enters the alternate screen, hides the cursor and clears; leaving reverses it.
    static let enterBytes = Array("\u{1B}[?1049h\u{1B}[?25l\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
    /// Resets the attributes, shows the cursor and leaves the alternate screen.
    static let leaveBytes = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l".utf8)

    /// The terminal's columns and rows. The corresponding C call is `ioctl(fd, TIOCGWINSZ)`.
    public static func size(of fd: Int32) -> (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Whether `fd` is a terminal. The corresponding C function is `isatty`.
    public static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// Takes the "the window changed size, or the screen must be redrawn" flag (SIGWINCH,
    /// SIGCONT), clearing it.
    public static func takeRedrawRequest() -> Bool {
        TerminalState.redraw.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// Starts a session on `fd`: saves its modes, turns echo off (keys typed do not smear the
    /// picture; Ctrl-C still signals), enters the alternate screen, and arms the restore.
    /// `stderrSaved` is a descriptor of the original standard error to put back on the way out
    /// (see `StandardErrorCapture`), or −1.
    public static func enter(fd: Int32, stderrSaved: Int32 = -1) {
        // Every global the handlers read is set before a handler is installed.
        TerminalState.prepare(fd: fd, stderrSaved: stderrSaved)
        setEcho(false)
        writeAll(fd, enterBytes)
        TerminalState.armed.store(true, ordering: .releasing)
        TerminalState.redraw.store(true, ordering: .releasing)
        install(resizeHandler, for: [SIGWINCH, SIGCONT])
        install(fatalHandler, for: TerminalState.fatalSignals)
        install(suspendHandler, for: [SIGTSTP])
        TerminalState.installed = true
        if !TerminalState.atexitInstalled {
            TerminalState.atexitInstalled = true
            atexit { TerminalSession.restoreNow() }
        }
    }

    /// Ends the session: leaves the alternate screen, restores the modes and standard error, and
    /// puts back the signal handlers that were there before. Safe to call more than once.
    public static func leave() {
        restoreNow()
        guard TerminalState.installed else { return }
        TerminalState.installed = false
        // Handlers set since (such as the caller's SIGINT handling) stay as they are.
        let ours = [unsafeBitCast(resizeHandler, to: Int.self), unsafeBitCast(fatalHandler, to: Int.self),
                    unsafeBitCast(suspendHandler, to: Int.self)]
        for signal in [SIGWINCH, SIGCONT, SIGTSTP] + TerminalState.fatalSignals {
            var current = sigaction()
            _ = sigaction(signal, nil, &current)
            guard let handler = current.__sigaction_handler.sa_handler,
                  ours.contains(unsafeBitCast(handler, to: Int.self)) else { continue }
            _ = sigaction(signal, &TerminalState.previous[Int(signal)], nil)  // back as it was
        }
    }

    /// The restore itself: async-signal-safe, runs once per `enter`.
    static func restoreNow() {
        guard TerminalState.armed.exchange(false, ordering: .acquiringAndReleasing) else { return }
        restoreScreen()
        if TerminalState.stderrSaved >= 0 { _ = dup2(TerminalState.stderrSaved, 2) }
    }

    /// Leaves the alternate screen and restores the modes. Async-signal-safe.
    static func restoreScreen() {
        _ = write(TerminalState.fd, TerminalState.leaveBuffer, leaveBytes.count)  // nothing more to do if it fails
        setEcho(true)
    }

    /// Echo off while drawing, on again after. The corresponding C functions are `tcgetattr` and
    /// `tcsetattr`.
    static func setEcho(_ on: Bool) {
        guard TerminalState.haveModes else { return }
        if on {
            _ = tcsetattr(TerminalState.fd, TCSANOW, &TerminalState.savedModes)  // best effort on the way out
        } else {
            var modes = TerminalState.savedModes
            modes.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(TerminalState.fd, TCSANOW, &modes)  // drawing works with echo on too
        }
    }

    private static func install(
        _ handler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void,
        for signals: [Int32]
    ) {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_sigaction = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART | SA_SIGINFO
            _ = sigaction(signal, &action, &TerminalState.previous[Int(signal)])  // valid signals only
        }
    }

    private static func install(_ handler: @convention(c) (Int32) -> Void, for signals: [Int32]) {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = handler
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            _ = sigaction(signal, &action, &TerminalState.previous[Int(signal)])  // valid signals only
        }
    }

    /// Writes all of `bytes`, retrying after signals and partial writes; false if the terminal
    /// is gone.
    @discardableResult
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 { offset += n; continue }
                if n < 0 && errno == EINTR { continue }
                if n < 0 && errno == EAGAIN {
                    var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&poller, 1, 100)  // then try again
                    continue
                }
                return false
            }
            return true
        }
    }
}

/// SIGWINCH and SIGCONT: ask the render thread to measure and redraw.
private let resizeHandler: @convention(c) (Int32) -> Void = { signal in
    if signal == SIGCONT, TerminalState.suspended.exchange(false, ordering: .acquiringAndReleasing) {
        // Back from Ctrl-Z: take the screen again.
        TerminalSession.setEcho(false)
        _ = write(TerminalState.fd, TerminalState.enterBuffer, TerminalSession.enterBytes.count)  // redrawn next frame
        TerminalState.armed.store(true, ordering: .releasing)
    }
    TerminalState.redraw.store(true, ordering: .releasing)
}

/// A signal that ends the process: restore the terminal, then let the signal do what it did
/// before (Swift's crash report, or the default action).
private let fatalHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = {
    signal, info, _ in
    TerminalSession.restoreNow()
    _ = sigaction(signal, &TerminalState.previous[Int(signal)], nil)
    // A fault (sent by the kernel: si_code > 0) happens again when the handler returns; a signal
    // sent by kill or raise is sent again, pending until the handler returns.
    if (info?.pointee.si_code ?? 0) <= 0 { _ = raise(signal) }
}

/// Ctrl-Z: give the screen back, then stop as usual; SIGCONT takes it again.
private let suspendHandler: @convention(c) (Int32) -> Void = { _ in
    // Standard error stays captured: a stopped process writes nothing.
    if TerminalState.armed.exchange(false, ordering: .acquiringAndReleasing) {
        TerminalSession.restoreScreen()
        TerminalState.suspended.store(true, ordering: .releasing)
    }
    var stop = sigaction()
    stop.__sigaction_handler.sa_handler = SIG_DFL
    var suspend = sigaction()
    _ = sigaction(SIGTSTP, &stop, &suspend)
    _ = raise(SIGTSTP)  // pending until unblocked: the handler returns, the process stops
    var unblock = sigset_t()
    sigemptyset(&unblock)
    sigaddset(&unblock, SIGTSTP)
    _ = pthread_sigmask(SIG_UNBLOCK, &unblock, nil)  // stops here; resumes on SIGCONT
    _ = sigaction(SIGTSTP, &suspend, nil)  // this handler again for the next Ctrl-Z
}

/// What the signal handlers read, set before any of them is installed.
enum TerminalState {
    // nonisolated(unsafe): written only by `prepare` on the control side before the handlers
    // that read them are installed (and while no session is armed); read-only afterwards.
    nonisolated(unsafe) static var fd: Int32 = 1
    nonisolated(unsafe) static var stderrSaved: Int32 = -1
    nonisolated(unsafe) static var savedModes = termios()
    nonisolated(unsafe) static var haveModes = false
    nonisolated(unsafe) static var atexitInstalled = false
    nonisolated(unsafe) static var installed = false
    /// The actions in place before `enter`, by signal number.
    nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = {
        let p = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        p.initialize(repeating: sigaction(), count: 65)
        return p
    }()
    nonisolated(unsafe) static let leaveBuffer: UnsafeMutablePointer<UInt8> = copy(TerminalSession.leaveBytes)
    nonisolated(unsafe) static let enterBuffer: UnsafeMutablePointer<UInt8> = copy(TerminalSession.enterBytes)
    /// Whether a restore is still owed.
    static let armed = Atomic<Bool>(false)
    /// Set by SIGWINCH and SIGCONT.
    static let redraw = Atomic<Bool>(false)
    /// Between Ctrl-Z and SIGCONT.
    static let suspended = Atomic<Bool>(false)
    static let fatalSignals = [SIGINT, SIGTERM, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE]

    static func prepare(fd: Int32, stderrSaved: Int32) {
        self.fd = fd
        self.stderrSaved = stderrSaved
        haveModes = tcgetattr(fd, &savedModes) == 0
        // Touch every lazily made global now, never first in a handler.
        _ = previous
        _ = leaveBuffer
        _ = enterBuffer
        _ = armed.load(ordering: .relaxed)
        _ = redraw.load(ordering: .relaxed)
        _ = suspended.load(ordering: .relaxed)
        _ = fatalSignals
    }

    private static func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<UInt8> {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        p.initialize(from: bytes, count: bytes.count)
        return p
    }
}

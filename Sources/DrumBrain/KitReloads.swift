import BrainCore
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The kit reloads SIGHUP asks for (where it does not stop the brain), caught from the start of
/// the brain's run: SIGHUP's default action ends the process, and systemd counts that a clean
/// exit, so a `systemctl reload` while the brain still loaded its kit (seconds for a large one)
/// ended it for good. A reload asked for before the brain can do one is done once it can
/// (`ready`); several asked for meanwhile are one.
struct KitReloads {
    private let requests = Requests()
    private let source: DispatchSourceSignal

    init() {
        let requests = self.requests
        source = CaughtSignal.source(SIGHUP) { requests.arrive() }
    }

    /// From now on each SIGHUP runs `reload` (on a Dispatch thread); one that came before runs
    /// it now, on a Dispatch thread too.
    func ready(_ reload: @escaping @Sendable () -> Void) {
        if requests.ready(reload) { DispatchQueue.global().async(execute: reload) }
    }

    /// No more reloads.
    func cancel() { source.cancel() }

    private final class Requests: Sendable {
        private let state = Mutex<(reload: (@Sendable () -> Void)?, asked: Bool)>((nil, false))

        func arrive() {
            let reload = state.withLock { state in
                if state.reload == nil { state.asked = true }
                return state.reload
            }
            reload?()
        }

        /// Sets the reload; returns whether one was asked for before.
        func ready(_ reload: @escaping @Sendable () -> Void) -> Bool {
            state.withLock { state in
                state.reload = reload
                defer { state.asked = false }
                return state.asked
            }
        }
    }
}

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
/// (`ready`); several asked for meanwhile are one. Reloads run one at a time, on a queue of
/// their own, and `cancel` waits for one under way: a stopping brain does not swap a kit into
/// an engine it has stopped.
struct KitReloads {
    private let requests = Requests()
    private let source: DispatchSourceSignal

    init() {
        let requests = self.requests
        source = CaughtSignal.source(SIGHUP) { requests.arrive() }
    }

    /// From now on each SIGHUP runs `reload` (on the reloads' queue); one that came before runs
    /// it now, on that queue too.
    func ready(_ reload: @escaping @Sendable () -> Void) {
        requests.ready(reload)
    }

    /// No more reloads; returns once one under way has finished.
    func cancel() {
        source.cancel()
        requests.cancel()
    }

    private final class Requests: Sendable {
        private let state = Mutex<(reload: (@Sendable () -> Void)?, asked: Bool, cancelled: Bool)>((nil, false, false))
        private let queue = DispatchQueue(label: "drumbrain.kit-reloads")

        /// A SIGHUP: a reload queued, or remembered until `ready`.
        func arrive() {
            let ready = state.withLock { state in
                if state.reload == nil { state.asked = true }
                return state.reload != nil && !state.cancelled
            }
            if ready { queue.async { self.runCurrent() } }
        }

        /// Sets the reload, and queues one that was asked for before.
        func ready(_ reload: @escaping @Sendable () -> Void) {
            let asked = state.withLock { state in
                state.reload = reload
                defer { state.asked = false }
                return state.asked && !state.cancelled
            }
            if asked { queue.async { self.runCurrent() } }
        }

        /// No reload starts from now on; waits for one under way.
        func cancel() {
            state.withLock { $0.cancelled = true }
            queue.sync {}
        }

        /// On the queue: the reload, unless cancelled meanwhile.
        private func runCurrent() {
            guard let reload = state.withLock({ $0.cancelled ? nil : $0.reload }) else { return }
            reload()
        }
    }
}

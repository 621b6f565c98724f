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
/// (`ready`). Reloads run one at a time, on a queue of their own; SIGHUPs that come while one
/// waits to start are one. A reload swaps its kit in through the `commit` it is handed, which
/// does nothing once the brain is stopping: `cancel` waits for a swap under way, never for a
/// load.
struct KitReloads {
    private let requests = Requests()
    private let source: DispatchSourceSignal

    init() {
        let requests = self.requests
        source = CaughtSignal.source(SIGHUP) { requests.arrive() }
    }

    /// A reload's way to put its loaded kit in place: runs `swap` unless the brain is stopping,
    /// and returns whether it ran (`cancel` waits for a `swap` under way).
    typealias Commit = (_ swap: () -> Void) -> Bool

    /// From now on each SIGHUP runs `reload` (on the reloads' queue); one that came before runs
    /// it now, on that queue too.
    func ready(_ reload: @escaping @Sendable (Commit) -> Void) {
        let requests = self.requests
        requests.ready { reload(requests.commit) }
    }

    /// No more reloads: none starts, none swaps its kit in; returns once a swap under way is done.
    /// A load under way goes on, and its kit is dropped.
    func cancel() {
        source.cancel()
        requests.cancel()
    }

    private final class Requests: Sendable {
        private let state = Mutex<(reload: (@Sendable () -> Void)?, asked: Bool, queued: Bool, cancelled: Bool)>((nil, false, false, false))
        /// Whether swaps are over (the brain stopping); held while one runs.
        private let swaps = Mutex(false)
        private let queue = DispatchQueue(label: "drumbrain.kit-reloads")

        /// A SIGHUP: a reload queued (unless one already waits to start), or remembered until
        /// `ready`.
        func arrive() {
            let queue = state.withLock { state -> Bool in
                guard state.reload != nil else {
                    state.asked = true
                    return false
                }
                guard !state.cancelled, !state.queued else { return false }
                state.queued = true
                return true
            }
            if queue { schedule() }
        }

        /// Sets the reload, and queues one that was asked for before.
        func ready(_ reload: @escaping @Sendable () -> Void) {
            let asked = state.withLock { state -> Bool in
                state.reload = reload
                defer { state.asked = false }
                guard state.asked, !state.cancelled, !state.queued else { return false }
                state.queued = true
                return true
            }
            if asked { schedule() }
        }

        func commit(_ swap: () -> Void) -> Bool {
            swaps.withLock { over in
                guard !over else { return false }
                swap()
                return true
            }
        }

        func cancel() {
            state.withLock { $0.cancelled = true }
            swaps.withLock { $0 = true }
        }

        /// The reload on the queue, unless cancelled meanwhile; a SIGHUP from its start on
        /// queues another (the kit file may have changed after the load began).
        private func schedule() {
            queue.async {
                guard let reload = self.state.withLock({ state -> (@Sendable () -> Void)? in
                    state.queued = false
                    return state.cancelled ? nil : state.reload
                }) else { return }
                reload()
            }
        }
    }
}

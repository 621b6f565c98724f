import CAvahiClient

/// An avahi-client connection on Avahi's threaded poll that survives the daemon: created with
/// `AVAHI_CLIENT_NO_FAIL`, so it waits for a daemon that is not running yet, and recreated when a
/// running daemon goes away (its objects die with it; owners rebuild theirs on `running`).
///
/// Avahi calls back on its own thread with its lock held. Owners' handlers run there, must only
/// touch Avahi through the client they are given, and must never take Avahi's lock themselves
/// (`withAvahiLock` is for other threads).
final class AvahiSession: @unchecked Sendable {
    // @unchecked: `client` is read and written only on Avahi's thread (in callbacks) or by other
    // threads holding Avahi's threaded-poll lock (`withAvahiLock`).

    /// What happened to the connection to the daemon.
    enum State {
        /// Connected; (re)create browsers and entry groups on this client.
        case running(OpaquePointer)
        /// The host name is being registered or collided; entry groups must be reset.
        case registering(OpaquePointer)
        /// No daemon (yet); the client waits for one.
        case waitingForDaemon
        /// The daemon went away; every object of the old client is gone.
        case disconnected
        /// A failure other than losing the daemon.
        case failed(code: Int32)
    }

    private let poll: OpaquePointer
    private var client: OpaquePointer?
    private let onState: (State) -> Void

    /// Starts Avahi's thread and a client on it. `onState` runs on Avahi's thread.
    init(onState: @escaping (State) -> Void) throws(DrumNetError) {
        guard let poll = avahi_threaded_poll_new() else {
            throw .avahi(operation: "avahi_threaded_poll_new", code: Int32(AVAHI_ERR_NO_MEMORY))
        }
        self.poll = poll
        self.onState = onState
        // Before the thread starts, nothing else can touch the client.
        try makeClient()
        let started = avahi_threaded_poll_start(poll)
        guard started >= 0 else {
            avahi_client_free(client)
            avahi_threaded_poll_free(poll)
            throw .avahi(operation: "avahi_threaded_poll_start", code: started)
        }
    }

    /// Creates the client; on Avahi's thread or before it starts.
    private func makeClient() throws(DrumNetError) {
        var error: Int32 = 0
        let me = Unmanaged.passUnretained(self).toOpaque()
        // The callback can run inside avahi_client_new, before it returns.
        let created = avahi_client_new(avahi_threaded_poll_get(poll), AVAHI_CLIENT_NO_FAIL,
                                       { client, state, me in
            guard let client, let me else { return }
            Unmanaged<AvahiSession>.fromOpaque(me).takeUnretainedValue().clientChanged(client, state)
        }, me, &error)
        guard let created else { throw .avahi(operation: "avahi_client_new", code: error) }
        client = created
    }

    private func clientChanged(_ changed: OpaquePointer, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            onState(.running(changed))
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION:
            onState(.registering(changed))
        case AVAHI_CLIENT_CONNECTING:
            onState(.waitingForDaemon)
        case AVAHI_CLIENT_FAILURE:
            let code = avahi_client_errno(changed)
            guard code == AVAHI_ERR_DISCONNECTED else {
                onState(.failed(code: code))
                return
            }
            onState(.disconnected)
            // Free the dead client and wait for the daemon with a new one, as PulseAudio does.
            avahi_client_free(changed)
            client = nil
            try? makeClient()  // on failure (no memory) there is nothing better to do than stay quiet
        default:
            break
        }
    }

    /// Runs `body` with Avahi's lock held, from any thread but Avahi's own.
    func withAvahiLock<T>(_ body: (OpaquePointer?) -> T) -> T {
        avahi_threaded_poll_lock(poll)
        defer { avahi_threaded_poll_unlock(poll) }
        return body(client)
    }

    /// Stops Avahi's thread and frees the client and everything made from it.
    func stop() {
        avahi_threaded_poll_stop(poll)
        if let client { avahi_client_free(client) }
        client = nil
        avahi_threaded_poll_free(poll)
    }
}

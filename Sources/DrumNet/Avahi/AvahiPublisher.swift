import CAvahiClient
import Synchronization

/// Publishes the brain as a DNS-SD service (`_drumbrain._tcp`, docs/architecture.md, Discovery) through Avahi,
/// renames it when another service has its name, republishes when the daemon restarts, and
/// withdraws it on `stop()`.
///
/// Thread safety: create, `setTXT` and stop from any thread but Avahi's own; events arrive on
/// Avahi's thread (a failed `setTXT`'s on its caller's) and must be handed off at once.
public final class AvahiPublisher: Sendable {
    /// The DNS-SD service type of brains.
    public static let serviceType = "_drumbrain._tcp"

    /// What happened to the service.
    public enum Event: Sendable, Equatable {
        /// The service is published under this name.
        case published(name: String)
        /// Another service had the name; publishing under the new one.
        case renamed(from: String, to: String)
        /// No Avahi daemon is running; waiting for one (pads need --brain HOST:PORT meanwhile).
        case noDaemon
        /// The daemon went away; the service is republished when it returns.
        case daemonLost
        /// Publishing failed, with Avahi's message.
        case failed(String)
    }

    private let core: PublisherCore
    /// The connection to the daemon; nil once stopped. Locks are taken in this order: this one,
    /// then Avahi's threaded-poll lock, then `core.state` (Avahi's thread takes its own lock,
    /// then `core.state`, and never this one).
    private let session: Mutex<AvahiSession?>

    /// Starts publishing `name` on `port` with TXT records (`proto=1`, `kit=...`).
    public init(name: String, port: Int, txt: [String],
                onEvent: @escaping @Sendable (Event) -> Void) throws(DrumNetError) {
        let core = PublisherCore(name: name, port: port, txt: txt, onEvent: onEvent)
        self.core = core
        let made = try AvahiSession { change in core.sessionChanged(change) }
        session = Mutex(made)
    }

    /// The name the service is published under now (it changes after a collision).
    public var name: String { core.state.withLock { $0.name } }

    /// Replaces the TXT records (a kit reloaded: `kit=...`): announced at once where the service
    /// is registered, else used when it is (after the daemon returns, or a collision). A
    /// failure is reported through `onEvent` on the calling thread, after the locks are let go.
    /// Not from an `onEvent` handler (Avahi's thread holds its lock there).
    public func setTXT(_ txt: [String]) {
        let failure = session.withLock { session -> String? in
            guard let session else { return nil }
            return session.withAvahiLock { _ in core.setTXT(txt) }
        }
        if let failure { core.onEvent(.failed(failure)) }
    }

    /// Withdraws the service and disconnects from the daemon.
    public func stop() {
        guard let session = session.withLock({ s -> AvahiSession? in defer { s = nil }; return s }) else { return }
        session.withAvahiLock { _ in core.removeGroup() }
        session.stop()
    }
}

/// The publisher's state and Avahi callbacks; its methods run on Avahi's thread with its lock
/// held, except `removeGroup` and `setTXT`, which the caller runs under that lock.
final class PublisherCore: Sendable {
    struct State: Sendable {
        var name: String
        var txt: [String]
        var group: SendablePointer?
        var saidNoDaemon = false
    }

    /// The service's name, TXT records and entry group; guards them against
    /// `AvahiPublisher.name` readers.
    let state: Mutex<State>
    let port: Int
    let onEvent: @Sendable (AvahiPublisher.Event) -> Void

    init(name: String, port: Int, txt: [String], onEvent: @escaping @Sendable (AvahiPublisher.Event) -> Void) {
        state = Mutex(State(name: name, txt: txt))
        self.port = port
        self.onEvent = onEvent
    }

    /// Avahi's string list of `txt`, in order; the caller frees it.
    private static func stringList(_ txt: [String]) -> UnsafeMutablePointer<AvahiStringList>? {
        var list: UnsafeMutablePointer<AvahiStringList>? = nil
        for record in txt.reversed() { list = avahi_string_list_add(list, record) }
        return list
    }

    /// New TXT records; the caller holds Avahi's lock. A registered service's are updated in
    /// place (announced to the network); one not registered yet takes them when it is. Returns
    /// what failed, for the caller to report once the locks are let go.
    func setTXT(_ txt: [String]) -> String? {
        let (group, name) = state.withLock { s -> (OpaquePointer?, String) in
            s.txt = txt
            return (s.group?.pointer, s.name)
        }
        guard let group, avahi_entry_group_is_empty(group) == 0 else { return nil }
        let list = Self.stringList(txt)
        defer { avahi_string_list_free(list) }
        let result = avahi_entry_group_update_service_txt_strlst(
            group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name,
            AvahiPublisher.serviceType, nil, list)
        return result < 0 ? "updating the TXT records of \(name): \(DrumNetError.avahiMessage(result))" : nil
    }

    func sessionChanged(_ change: AvahiSession.State) {
        switch change {
        case .running(let client):
            state.withLock { $0.saidNoDaemon = false }
            publish(client: client)
        case .registering:
            if let group = state.withLock({ $0.group?.pointer }) { avahi_entry_group_reset(group) }
        case .waitingForDaemon:
            let first = state.withLock { s -> Bool in defer { s.saidNoDaemon = true }; return !s.saidNoDaemon }
            if first { onEvent(.noDaemon) }
        case .disconnected:
            state.withLock { $0.group = nil }  // freed with its client
            onEvent(.daemonLost)
        case .failed(let code):
            onEvent(.failed(DrumNetError.avahiMessage(code)))
        }
    }

    private func publish(client: OpaquePointer) {
        var group = state.withLock { $0.group?.pointer }
        if group == nil {
            // The group's context is this object, which outlives every group (see `removeGroup`).
            group = avahi_entry_group_new(client, { group, groupState, me in
                guard let group, let me else { return }
                Unmanaged<PublisherCore>.fromOpaque(me).takeUnretainedValue().groupChanged(group, groupState)
            }, Unmanaged.passUnretained(self).toOpaque())
            guard let group else {
                onEvent(.failed("avahi_entry_group_new: \(DrumNetError.avahiMessage(avahi_client_errno(client)))"))
                return
            }
            state.withLock { $0.group = SendablePointer(group) }
        }
        register(group: group!)
    }

    private func register(group: OpaquePointer) {
        guard avahi_entry_group_is_empty(group) != 0 else { return }
        let (name, txt) = state.withLock { ($0.name, $0.txt) }
        let list = Self.stringList(txt)
        defer { avahi_string_list_free(list) }
        var result = avahi_entry_group_add_service_strlst(
            group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0), name,
            AvahiPublisher.serviceType, nil, nil, UInt16(port), list)
        if result == AVAHI_ERR_COLLISION {
            rename()
            register(group: group)
            return
        }
        if result >= 0 { result = avahi_entry_group_commit(group) }
        if result < 0 { onEvent(.failed("publishing \(name): \(DrumNetError.avahiMessage(result))")) }
    }

    private func rename() {
        let (old, new) = state.withLock { s -> (String, String) in
            let old = s.name
            guard let alternative = avahi_alternative_service_name(old) else { return (old, old) }
            s.name = String(cString: alternative)
            avahi_free(alternative)
            return (old, s.name)
        }
        onEvent(.renamed(from: old, to: new))
    }

    private func groupChanged(_ group: OpaquePointer, _ groupState: AvahiEntryGroupState) {
        switch groupState {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            onEvent(.published(name: state.withLock { $0.name }))
        case AVAHI_ENTRY_GROUP_COLLISION:
            rename()
            avahi_entry_group_reset(group)
            register(group: group)
        case AVAHI_ENTRY_GROUP_FAILURE:
            onEvent(.failed(DrumNetError.avahiMessage(avahi_client_errno(avahi_entry_group_get_client(group)))))
        default:
            break
        }
    }

    /// Withdraws and frees the entry group; the caller holds Avahi's lock.
    func removeGroup() {
        guard let group = state.withLock({ s -> OpaquePointer? in defer { s.group = nil }; return s.group?.pointer })
        else { return }
        avahi_entry_group_reset(group)
        avahi_entry_group_free(group)
    }
}

/// A C pointer carried inside a Mutex.
struct SendablePointer: @unchecked Sendable {
    // @unchecked: the pointer is only dereferenced on Avahi's thread or with its lock held.
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

import CAvahiClient
import Synchronization
import Monotonic

/// Finds brains (`_drumbrain._tcp`) through Avahi: browses continuously, resolves each brain to
/// an IPv4 address and port, and keeps the table current as brains come and go and as the
/// daemon restarts.
///
/// Thread safety: `find` may be called from any task; Avahi's callbacks hand their results to
/// the table at once.
public final class AvahiBrowser: BrainFinder, Sendable {
    /// What the browser reports besides its table.
    public enum Event: Sendable, Equatable {
        /// No Avahi daemon is running; discovery waits for one (use --brain HOST:PORT meanwhile).
        case noDaemon
        /// The daemon went away; browsing resumes when it returns.
        case daemonLost
        /// A brain appeared.
        case found(BrainService)
        /// Browsing failed, with Avahi's message.
        case failed(String)
    }

    private let core: BrowserCore
    private let session: Mutex<AvahiSession?>
    /// How long `find` waits for a brain to appear.
    public let timeoutSeconds: Double

    /// Starts browsing.
    public init(timeoutSeconds: Double = 5, onEvent: @escaping @Sendable (Event) -> Void = { _ in })
        throws(DrumNetError) {
        let core = BrowserCore(onEvent: onEvent)
        self.core = core
        self.timeoutSeconds = timeoutSeconds
        let made = try AvahiSession { change in core.sessionChanged(change) }
        session = Mutex(made)
    }

    /// The brains known now, by name.
    public var services: [BrainService] { core.state.withLock { Array($0.services.values) } }

    /// The brain named `name` (or, with nil, the only or first-named brain), waiting up to the
    /// timeout for one to appear.
    public func find(name: String?) async -> BrainService? {
        let deadline = MonotonicClock.nowMicros() + Int64(timeoutSeconds * 1e6)
        while true {
            let known = services.sorted { $0.name < $1.name }
            if let match = name.map({ wanted in known.first { $0.name == wanted } }) ?? known.first {
                return match
            }
            if MonotonicClock.nowMicros() >= deadline { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Stops browsing and disconnects from the daemon.
    public func stop() {
        guard let session = session.withLock({ s -> AvahiSession? in defer { s = nil }; return s }) else { return }
        session.withAvahiLock { _ in core.removeBrowser() }
        session.stop()
    }
}

/// The browser's table and Avahi callbacks (on Avahi's thread, its lock held).
final class BrowserCore: Sendable {
    struct State: Sendable {
        var services: [String: BrainService] = [:]
        var browser: SendablePointer?
        var saidNoDaemon = false
    }

    /// The table of brains and the service browser; guards them against `find` callers.
    let state = Mutex(State())
    let onEvent: @Sendable (AvahiBrowser.Event) -> Void

    init(onEvent: @escaping @Sendable (AvahiBrowser.Event) -> Void) {
        self.onEvent = onEvent
    }

    func sessionChanged(_ change: AvahiSession.State) {
        switch change {
        case .running(let client):
            state.withLock { $0.saidNoDaemon = false }
            guard state.withLock({ $0.browser == nil }) else { return }
            // The browser's context is this object, which outlives every browser.
            let browser = avahi_service_browser_new(
                client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                AvahiPublisher.serviceType, nil, AvahiLookupFlags(0),
                { browser, interface, proto, event, name, type, domain, _, me in
                    guard let me else { return }
                    Unmanaged<BrowserCore>.fromOpaque(me).takeUnretainedValue().browsed(
                        browser, interface, proto, event, name, type, domain)
                }, Unmanaged.passUnretained(self).toOpaque())
            guard let browser else {
                onEvent(.failed("avahi_service_browser_new: \(DrumNetError.avahiMessage(avahi_client_errno(client)))"))
                return
            }
            state.withLock { $0.browser = SendablePointer(browser) }
        case .registering:
            break
        case .waitingForDaemon:
            let first = state.withLock { s -> Bool in defer { s.saidNoDaemon = true }; return !s.saidNoDaemon }
            if first { onEvent(.noDaemon) }
        case .disconnected:
            state.withLock {
                $0.browser = nil  // freed with its client
                $0.services = [:]
            }
            onEvent(.daemonLost)
        case .failed(let code):
            onEvent(.failed(DrumNetError.avahiMessage(code)))
        }
    }

    private func browsed(_ browser: OpaquePointer?, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
                         _ event: AvahiBrowserEvent, _ name: UnsafePointer<CChar>?,
                         _ type: UnsafePointer<CChar>?, _ domain: UnsafePointer<CChar>?) {
        guard let browser, let name else { return }
        switch event {
        case AVAHI_BROWSER_NEW:
            // Resolve to an IPv4 address: link-local IPv6 would need the interface scope too.
            let client = avahi_service_browser_get_client(browser)
            let resolver = avahi_service_resolver_new(
                client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_INET),
                AvahiLookupFlags(0),
                { resolver, _, _, event, name, _, _, _, address, port, txt, _, me in
                    guard let me else { return }
                    Unmanaged<BrowserCore>.fromOpaque(me).takeUnretainedValue().resolved(
                        resolver, event, name, address, port, txt)
                }, Unmanaged.passUnretained(self).toOpaque())
            if resolver == nil {
                onEvent(.failed("resolving \(String(cString: name)): \(DrumNetError.avahiMessage(avahi_client_errno(client)))"))
            }
        case AVAHI_BROWSER_REMOVE:
            let gone = String(cString: name)
            state.withLock { _ = $0.services.removeValue(forKey: gone) }
        case AVAHI_BROWSER_FAILURE:
            onEvent(.failed(DrumNetError.avahiMessage(avahi_client_errno(avahi_service_browser_get_client(browser)))))
        default:
            break
        }
    }

    private func resolved(_ resolver: OpaquePointer?, _ event: AvahiResolverEvent,
                          _ name: UnsafePointer<CChar>?, _ address: UnsafePointer<AvahiAddress>?,
                          _ port: UInt16, _ txt: UnsafeMutablePointer<AvahiStringList>?) {
        defer { avahi_service_resolver_free(resolver) }
        guard event == AVAHI_RESOLVER_FOUND, let name, let address else { return }
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        avahi_address_snprint(&text, text.count, address)
        var records: [String: String] = [:]
        var item = txt
        while let current = item {
            let size = Int(avahi_string_list_get_size(current))
            if let bytes = avahi_string_list_get_text(current) {
                let entry = String(decoding: UnsafeBufferPointer(start: bytes, count: size), as: UTF8.self)
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                records[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
            }
            item = avahi_string_list_get_next(current)
        }
        let service = BrainService(name: String(cString: name),
                                   host: String(nulTerminated: text),
                                   port: Int(port), txt: records)
        // A brain resolves once per interface; keep the first address and report it once.
        let isNew = state.withLock { s -> Bool in
            guard s.services[service.name] == nil else { return false }
            s.services[service.name] = service
            return true
        }
        if isNew { onEvent(.found(service)) }
    }

    /// Frees the service browser; the caller holds Avahi's lock.
    func removeBrowser() {
        if let browser = state.withLock({ s -> OpaquePointer? in defer { s.browser = nil }; return s.browser?.pointer }) {
            avahi_service_browser_free(browser)
        }
    }
}

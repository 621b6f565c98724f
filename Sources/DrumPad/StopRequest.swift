#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Set by SIGINT and SIGTERM so that read loops finish their work (flush, close, say goodbye)
/// instead of dying mid-write.
enum StopRequest {
    private static let flag = Atomic<Bool>(false)

    /// Whether a stop was asked for.
    static var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Installs the handlers. Without `SA_RESTART`, so a `poll` in progress returns `EINTR` and
    /// the loop sees the flag at once.
    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in StopRequest.flag.store(true, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }
}

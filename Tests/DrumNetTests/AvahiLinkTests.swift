import CAvahiClient
import Testing
@testable import DrumNet

/// The avahi-client module links and answers (a broken toolchain set-up shows here first).
struct AvahiLinkTests {
    @Test func avahiErrorsCarryAvahisOwnMessage() {
        let error = DrumNetError.avahi(operation: "avahi_client_new", code: Int32(AVAHI_ERR_NO_DAEMON))
        #expect(error.description == "avahi_client_new: Daemon not running (avahi error -26)")
    }
}

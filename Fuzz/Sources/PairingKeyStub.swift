// The wire harness builds DrumNet's codec and BrainConnection with swiftc alone, without
// swift-crypto, which PairingKey needs for HMAC-SHA256. The connections it fuzzes have no key, so
// this stand-in is never asked to check an answer; it has only what those sources name.
public struct PairingKey: Sendable {
    public static let minimumBytes = 16
    public static let howToMake = "make one with `head -c 32 /dev/urandom | base64 > drum.key`"

    public func accepts(_ answer: [UInt8], nonce: [UInt8], padName: String) -> Bool {
        preconditionFailure("the wire harness fuzzes keyless connections only")
    }
}

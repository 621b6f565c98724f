#if canImport(Glibc)
import Glibc
#endif

/// The shared key that pairs pads with a brain (`--key-file`, docs/protocol.md "Pairing").
///
/// The brain sends `/drum/challenge b nonce`; the pad answers `/drum/auth b hmac` with
/// HMAC-SHA256(key, nonce ‖ pad name in UTF-8). The key itself never crosses the wire, and its
/// description never shows its bytes, so it cannot leak into a log by accident.
///
/// Thread safety: an immutable value.
public struct PairingKey: Sendable, CustomStringConvertible, CustomReflectable {
    /// The fewest bytes a key may have.
    public static let minimumBytes = 16
    /// Bytes in a challenge's nonce.
    public static let nonceBytes = 32
    /// How to make a good key, for messages.
    public static let howToMake = "make one with `head -c 32 /dev/urandom | base64 > drum.key`"

    /// The key's bytes.
    private let bytes: [UInt8]

    /// A key of these bytes; at least `minimumBytes` of them (API misuse otherwise).
    public init(bytes: [UInt8]) {
        precondition(bytes.count >= Self.minimumBytes, "a pairing key has at least 16 bytes")
        self.bytes = bytes
    }

    /// Never the key's bytes.
    public var description: String { "PairingKey(\(bytes.count) bytes, not shown)" }

    /// Never the key's bytes, for `dump` and debuggers too.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// The answer to a challenge: HMAC-SHA256(key, nonce ‖ padName UTF-8).
    public func answer(nonce: [UInt8], padName: String) -> [UInt8] {
        SHA256.hmac(key: bytes, message: Self.message(nonce, padName))
    }

    /// Whether `answer` is the right one, compared in constant time.
    public func accepts(_ answer: [UInt8], nonce: [UInt8], padName: String) -> Bool {
        SHA256.constantTimeEqual(answer, SHA256.hmac(key: bytes, message: Self.message(nonce, padName)))
    }

    /// A fresh random nonce for one challenge.
    public static func makeNonce() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<nonceBytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func message(_ nonce: [UInt8], _ padName: String) -> [UInt8] {
        nonce + Array(padName.utf8)
    }
}

extension PairingKey {
    /// A key read from a file, and a warning to print when the file is readable by others.
    public struct Loaded: Sendable {
        /// The key.
        public var key: PairingKey
        /// Set when group or others may read the file; says the fix (`chmod 600`).
        public var warning: String?
    }

    /// Reads a key file whole, trailing newlines stripped. Errors name the file and the fix,
    /// never the key's bytes.
    public static func load(path: String) throws(DrumNetError) -> Loaded {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .keyFile(path: path, problem: "cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }  // read-only: nothing to lose if close fails
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw .keyFile(path: path, problem: "cannot stat: \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw .keyFile(path: path, problem: "not a regular file") }
        guard status.st_size <= 65536 else { throw .keyFile(path: path, problem: "over 64 KiB; a key is a short file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .keyFile(path: path, problem: "read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= 65536 else { throw .keyFile(path: path, problem: "over 64 KiB; a key is a short file") }
        }
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count >= minimumBytes else {
            throw .keyFile(path: path, problem: "holds \(bytes.count) bytes, fewer than \(minimumBytes)")
        }
        let warning = status.st_mode & (S_IRWXG | S_IRWXO) != 0
            ? "\(path): group or others may read this key file; `chmod 600 \(path)`" : nil
        return Loaded(key: PairingKey(bytes: bytes), warning: warning)
    }
}

#if canImport(Glibc)
import Glibc
#endif

extension String {
    /// The text of a C buffer up to its first NUL (all of it when it has none), as UTF-8.
    public init(nulTerminated buffer: some Sequence<CChar>) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// This machine's name, for a pad's or a brain's default name.
public enum HostName {
    /// The host name (`gethostname`), or `fallback` when it cannot be read.
    public static func current(or fallback: String) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return fallback }
        return String(nulTerminated: buffer)
    }
}

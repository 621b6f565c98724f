import Console
#if canImport(Glibc)
import Glibc
#endif

/// The C library's text for an errno. The corresponding C function is `strerror`.
enum SystemErrorText {
    static func text(_ code: Int32) -> String {
        guard let message = strerror(code) else { return "errno \(code)" }
        return String(cString: message)
    }
}

/// Small files (sysfs attributes) and folder listings, read and written whole.
public enum SystemFiles {
    /// A device's name from its `name` file (`readText`), made safe to print and to write into
    /// a log's metadata: a device names itself, and a name is untrusted text
    /// (`TerminalText.name`: no control character, newline or tab; at most 128 characters).
    public static func readName(_ path: String) -> String? {
        readText(path).map { TerminalText.name($0) }
    }

    /// The contents of a small text file without its trailing newline, or nil if it cannot be read.
    public static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: buffer[0..<n])
        }
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }

    /// Writes `text` to an existing file (a sysfs attribute); returns errno on failure, else 0.
    @discardableResult
    public static func writeText(_ text: String, to path: String) -> Int32 {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)  // as `echo N > attr` does; sysfs ignores O_TRUNC
        guard fd >= 0 else { return errno }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        return n == bytes.count ? 0 : (n < 0 ? errno : EIO)
    }

    /// The names in a folder (without `.` and `..`), sorted naturally (`event2` before `event10`),
    /// or an empty list when it cannot be read.
    public static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted(by: naturalOrder)
    }

    /// Whether `path` exists.
    public static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// `event2` < `event10`: digit runs compare as numbers.
    static func naturalOrder(_ a: String, _ b: String) -> Bool {
        let (aStem, aNumber) = split(a)
        let (bStem, bNumber) = split(b)
        if aStem != bStem { return aStem < bStem }
        return (aNumber ?? -1) < (bNumber ?? -1)
    }

    private static func split(_ name: String) -> (String, Int?) {
        let digits = name.reversed().prefix { $0.isASCII && $0.isNumber }
        return (String(name.dropLast(digits.count)), Int(String(digits.reversed())))
    }
}

/// `8192` for a whole number, `0.5` otherwise: how drumpad prints rates, scales and ranges.
public func plainNumber(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
}

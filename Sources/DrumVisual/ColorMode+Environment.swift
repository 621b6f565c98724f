#if canImport(Glibc)
import Glibc
#endif

extension ColorMode {
    /// The mode for this process's environment (`select(environment:)` on `environ`).
    public static var forCurrentEnvironment: ColorMode { select(environment: currentEnvironment()) }

    /// This process's environment variables. The corresponding C global is `environ`.
    static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Where the bundled kit is, for the brain and for a pad's `--local` playback.
public enum BundledKitLocation {
    /// `Samples/kit/kit.json` from the working folder (a checkout), else beside the executable:
    /// `PREFIX/share/drumtrigger/kit/kit.json` for `PREFIX/bin/PROGRAM`, or a checkout's
    /// `Samples/kit` above `.build/…/PROGRAM`; nil when none is readable.
    public static func find() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let executable = count > 0
            ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
        var folder = executable.contains("/") ? String(executable[..<executable.lastIndex(of: "/")!]) : "."
        var candidates = ["Samples/kit/kit.json"]
        for _ in 0..<6 {
            candidates.append(folder + "/share/drumtrigger/kit/kit.json")
            candidates.append(folder + "/Samples/kit/kit.json")
            folder += "/.."
        }
        return candidates.first { access($0, R_OK) == 0 }
    }
}

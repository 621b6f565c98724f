#if canImport(Glibc)
import Glibc
#endif

/// Runs a built executable of this package as a user would, capturing its output.
struct ProgramRun {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Program {
    /// The repository's root folder (for `Samples/`).
    static let repositoryRoot: String = {
        var path = #filePath
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
        return path
    }()

    /// The folder holding the built products: the test bundle lives beside them.
    static let productsFolder: String = {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(count > 0, "cannot read /proc/self/exe")
        var path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while !path.isEmpty {
            path = String(path[..<path.lastIndex(of: "/")!])
            if access(path + "/drumpad", X_OK) == 0 { return path }
        }
        preconditionFailure("drumpad not found beside the test bundle")
    }()

    /// Runs `name` with `arguments` in the repository root and waits for it.
    static func run(_ name: String, _ arguments: [String]) -> ProgramRun {
        let scratch = "/tmp/drumpad-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let command = ([productsFolder + "/" + name] + arguments).map(shellQuoted).joined(separator: " ")
        let status = system("cd \(shellQuoted(repositoryRoot)) && \(command) > \(scratch).out 2> \(scratch).err")
        defer { unlink(scratch + ".out"); unlink(scratch + ".err") }
        return ProgramRun(status: status == -1 ? -1 : (status >> 8) & 0xff,
                          stdout: contents(scratch + ".out"), stderr: contents(scratch + ".err"))
    }

    /// A file's contents as text ("" when missing).
    static func contents(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = fread(&chunk, 1, chunk.count, file)
            if got == 0 { break }
            bytes += chunk[..<got]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` to a new temporary file and returns its path.
    static func temporaryFile(_ text: String, suffix: String = ".csv") -> String {
        let path = "/tmp/drumpad-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))\(suffix)"
        let file = fopen(path, "w")!
        _ = text.withCString { fputs($0, file) }
        fclose(file)
        return path
    }

    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

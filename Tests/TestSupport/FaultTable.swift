#if canImport(Glibc)
import Glibc
#endif

/// The fault tests' table (issue 10): each fault test that passes adds a row (case, load,
/// result) to `.build/fault-table.md`, which `scripts/test` empties before the tests and prints
/// after them, beside the abuse tests' table.
public enum FaultTable {
    /// The table's file.
    public static let path = Program.repositoryRoot + "/.build/fault-table.md"

    /// Appends a row (a test calls this only when its checks held).
    public static func record(_ name: String, load: String, result: String) {
        let fresh = access(path, F_OK) != 0
        guard let file = fopen(path, "a") else { return }  // no table is no reason to fail a test
        defer { fclose(file) }
        if fresh { fputs("| fault | load | result |\n|---|---|---|\n", file) }
        fputs("| \(name) | \(load) | \(result) |\n", file)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
struct ProgressBar {
    let label: String
    let enabled: Bool
    private var shownPermille = -1

    /// A bar for `label`; `worthShowing` says whether the work is long enough to bother.
    init(label: String, worthShowing: Bool) {
        self.label = label
        enabled = worthShowing && isatty(2) == 1
    }

    /// Shows `done` of `total`, redrawing only when the shown figure changes.
    mutating func update(done: Int, total: Int, detail: String = "") {
        guard enabled, total > 0 else { return }
        let permille = min(1000, done * 1000 / total)
        guard permille / 5 != shownPermille / 5 else { return }
        shownPermille = permille
        let width = 30
        let filled = permille * width / 1000
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = permille / 10
        let text = "\r\(label) [\(bar)] \(percent)% \(detail)\u{1B}[K"
        text.withCString { _ = write(2, $0, strlen($0)) }  // progress is best-effort
    }

    /// Removes the bar.
    func finish() {
        guard enabled else { return }
        "\r\u{1B}[K".withCString { _ = write(2, $0, strlen($0)) }  // progress is best-effort
    }
}

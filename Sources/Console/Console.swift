#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error at once (diagnostics and summaries), in one write so that
/// lines from several threads stay whole; made safe for a terminal first (`TerminalText.safe`).
///
/// Thread safety: any thread.
public func printError(_ line: String) {
    var text = TerminalText.safe(line)
    text.append("\n")
    text.withUTF8 { utf8 in _ = write(2, utf8.baseAddress, utf8.count) }  // nothing to do if stderr is gone
}

/// Standard output, one write per line (lines stay whole when piped).
///
/// Thread safety: any thread.
public enum StandardOutput {
    /// Writes `line` (made safe for a terminal, `TerminalText.safe`) and a newline in one write.
    /// A closed standard output ends nothing.
    public static func line(_ line: String) {
        var text = TerminalText.safe(line)
        text.append("\n")
        text.withUTF8 { utf8 in _ = write(1, utf8.baseAddress, utf8.count) }
    }
}

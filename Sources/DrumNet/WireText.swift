import Console

/// Text from the wire (drum and pad names, brain and kit names, error messages), made safe to
/// print: no byte a client sends reaches a terminal or a log line raw.
///
/// A name goes into `key=value` lines (`hit drum=snare pad=pad-1`), into prose, and onto the
/// terminal visual. So every character that could end a line, start a terminal escape sequence,
/// reorder the text on screen or start a new field is written as an escape instead: C0 controls,
/// DEL and C1 controls as `\xNN`, the space as `\x20`, the backslash as `\\`, and Unicode's line
/// and paragraph separators and bidirectional controls as `\u{NNNN}`. Names longer than `limit`
/// characters are cut there and end in `…`. A name that needs none of this is printed unchanged.
///
/// Thread safety: pure.
public enum WireText {
    /// The longest name printed whole, in Unicode scalars.
    public static let defaultLimit = 64

    /// `text` escaped for printing and cut to `limit` scalars (see the type's summary). With
    /// `prose`, spaces stay spaces: for a message quoted whole, such as a peer's `/drum/error`
    /// text, where no field follows it on the line.
    public static func printable(_ text: String, limit: Int = defaultLimit, prose: Bool = false) -> String {
        precondition(limit > 0, "a limit must leave something to print")
        return TerminalText.escaping(text, limit: limit) { escape($0, prose: prose) }
    }

    /// The escape for `scalar`, or nil when it prints as itself: a terminal's escapes for a line
    /// (`TerminalText`, newline and tab included), and the space and backslash besides.
    static func escape(_ scalar: Unicode.Scalar, prose: Bool = false) -> String? {
        switch scalar.value {
        case 0x20:
            return prose ? nil : "\\x20"
        case 0x5C:
            return "\\\\"
        default:
            return TerminalText.escape(scalar, keepingLines: false)
        }
    }
}

/// Text made safe for a terminal or a log, at the last step before it is written: every line
/// `printError` and `StandardOutput` write goes through `safe`, so no character from a file, a
/// device or the network that was quoted into a message (a sensor log's bad field, a kit's name,
/// a device's name) can start a terminal escape sequence, move the cursor, ring the bell,
/// reorder the text on screen or forge a line.
///
/// C0 controls but the newline and tab, DEL and C1 controls are written as `\xNN`, Unicode's line
/// and paragraph separators and bidirectional controls as `\u{NNNN}`; everything else is
/// unchanged, and text that needs none of it comes back as it was (the common case, checked
/// first). `line` escapes the newline and tab too (one line of a message), and `name` a single
/// name's (a device's, a kit's) backslash and double quote as well, and cuts it to a length. Names
/// from the wire have their own escaping (`WireText`: spaces too, for `key=value` lines).
///
/// Thread safety: pure.
public enum TerminalText {
    /// `text` with every character that could act on a terminal escaped; newlines and tabs kept.
    public static func safe(_ text: String) -> String {
        escaped(text, keepingLines: true, limit: .max)
    }

    /// One line of a message: `safe`, with newlines and tabs escaped too, so that it stays one
    /// line (a message that quotes a file's text, made by a module that cannot know where it
    /// ends up).
    public static func line(_ text: String) -> String {
        escaped(text, keepingLines: false, limit: .max)
    }

    /// A name quoted into messages and files: `safe`, with newlines and tabs escaped too (a name
    /// cannot forge a line), and the backslash and double quote as `\\` and `\"` (a quoted name
    /// reads one way only), cut to `limit` characters (Unicode scalars) and then ending in `…`.
    public static func name(_ text: String, limit: Int = 128) -> String {
        precondition(limit > 0, "a limit must leave something to print")
        return escaping(text, limit: limit) { scalar in
            switch scalar {
            case "\\": return "\\\\"
            case "\"": return "\\\""
            default: return escape(scalar, keepingLines: false)
            }
        }
    }

    private static func escaped(_ text: String, keepingLines: Bool, limit: Int) -> String {
        escaping(text, limit: limit) { escape($0, keepingLines: keepingLines) }
    }

    /// `text` with each scalar `escape` gives an escape for replaced by it, cut to `limit`
    /// scalars and then ending in `…`; `text` itself when nothing needs doing (checked first).
    /// The one loop behind this type's escaping and `WireText`'s.
    public static func escaping(_ text: String, limit: Int, _ escape: (Unicode.Scalar) -> String?) -> String {
        var count = 0
        var clean = true
        for scalar in text.unicodeScalars {
            count += 1
            if count > limit || escape(scalar) != nil { clean = false; break }
        }
        if clean { return text }
        var out = ""
        // At most 4 bytes a scalar up to the limit (`limit` may be .max: no product to trap), and
        // a few more for the escapes.
        let room = limit > Int.max / 4 ? Int.max : limit * 4
        out.reserveCapacity(min(text.utf8.count, room) + 16)
        count = 0
        for scalar in text.unicodeScalars {
            count += 1
            if count > limit {
                out += "…"
                break
            }
            if let escaped = escape(scalar) { out += escaped } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }

    /// The escape for `scalar`, or nil when it prints as itself.
    public static func escape(_ scalar: Unicode.Scalar, keepingLines: Bool) -> String? {
        let value = scalar.value
        switch value {
        case 0x0A, 0x09:
            return keepingLines ? nil : "\\x" + hex(value, digits: 2)
        case 0x00...0x1F, 0x7F...0x9F:
            return "\\x" + hex(value, digits: 2)
        case 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C:
            return "\\u{" + hex(value, digits: 4) + "}"
        default:
            return nil
        }
    }

    /// `value` in upper-case hexadecimal, at least `digits` long.
    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

/// The help a command prints for `--help`, laid out as swift-argument-parser's (which help2man
/// reads for the man pages): OVERVIEW, the discussion, USAGE, ARGUMENTS, OPTIONS, SUBCOMMANDS.

/// Columns of the help: text wraps at `width`, and each entry's help starts at `helpColumn`.
let width = 80
let helpColumn = 26

/// The help of the last command of `path`.
func helpText(_ path: [any ParsableCommand.Type]) -> String {
    let command = path.last!
    let configuration = command.configuration
    var out = ""
    if !configuration.abstract.isEmpty {
        out += wrap("OVERVIEW: " + configuration.abstract, indent: 0) + "\n"
    }
    if !configuration.discussion.isEmpty {
        out += "\n"
        for line in configuration.discussion.split(separator: "\n", omittingEmptySubsequences: false) {
            // Indented lines are examples, to be typed as they are: never broken.
            out += (line.first == " " ? String(line) : wrap(String(line), indent: 0)) + "\n"
        }
    }
    out += "\n" + wrap("USAGE: " + usageLine(path), indent: 2, firstLineUsed: 0) + "\n"
    if !configuration.subcommands.isEmpty {
        out += "\nOPTIONS:\n"
        if path.count == 1 && !configuration.version.isEmpty { out += entry("--version", "Show the version.") }
        out += entry("-h, --help", "Show help information.")
        out += "\nSUBCOMMANDS:\n"
        for sub in configuration.subcommands { out += entry(sub.name, sub.configuration.abstract) }
        out += "\n  See '\(path.map { $0.name }.joined(separator: " ")) help <subcommand>' for detailed help.\n"
        return out
    }
    let all = slots(of: command.init())
    let positionals = all.filter { $0.kind == .positional }
    if !positionals.isEmpty {
        out += "\nARGUMENTS:\n"
        for slot in positionals { out += entry(slot.usage, describe(slot)) }
    }
    out += "\nOPTIONS:\n"
    for slot in all where slot.kind != .positional {
        out += entry(slot.usage, describe(slot))
    }
    out += entry("-h, --help", "Show help information.")
    return out
}

/// `drumpad run --drum <drum> [--replay <replay>] ...`; `short`: only what is required, then
/// `[<options>]`.
func usageLine(_ path: [any ParsableCommand.Type], short: Bool = false) -> String {
    let names = path.map { $0.name }.joined(separator: " ")
    let command = path.last!
    guard command.configuration.subcommands.isEmpty else { return names + " <subcommand>" }
    var parts = [names]
    let all = slots(of: command.init())
    for slot in all where !short || slot.isRequired {
        var text = slot.usage
        if slot.kind == .repeatedOption { text += " ..." }
        parts.append(slot.isRequired ? text : "[\(text)]")
    }
    if short && all.contains(where: { !$0.isRequired }) { parts.append("[<options>]") }
    return parts.joined(separator: " ")
}

/// A slot's help, its values and its default.
private func describe(_ slot: Slot) -> String {
    var text = slot.help.abstract
    var notes: [String] = []
    if !slot.values.isEmpty { notes.append("values: " + slot.values.joined(separator: ", ")) }
    if let defaultText = slot.defaultText, slot.kind == .option { notes.append("default: " + defaultText) }
    if !notes.isEmpty { text += (text.isEmpty ? "" : " ") + "(" + notes.joined(separator: "; ") + ")" }
    if !slot.help.discussion.isEmpty { text += "\n" + slot.help.discussion }
    return text
}

/// One entry: `label` at column 2, its help from `helpColumn` (on the next line when the label
/// reaches it), each paragraph wrapped.
private func entry(_ label: String, _ help: String) -> String {
    var out = "  " + label
    let paragraphs = help.split(separator: "\n", omittingEmptySubsequences: false)
    for (number, paragraph) in paragraphs.enumerated() {
        if number == 0 && out.count < helpColumn - 1 {
            out += String(repeating: " ", count: helpColumn - out.count)
        } else {
            out += "\n" + String(repeating: " ", count: helpColumn)
        }
        out += wrap(String(paragraph), indent: helpColumn, firstLineUsed: helpColumn)
    }
    return out + "\n"
}

/// `text` broken at spaces into lines of at most `width` columns; lines after the first are
/// indented by `indent`. `firstLineUsed`: columns already taken on the first line (default
/// `indent`).
func wrap(_ text: String, indent: Int, firstLineUsed: Int? = nil) -> String {
    var out = ""
    var column = firstLineUsed ?? indent
    var lineHasWord = false
    if firstLineUsed == nil { out += String(repeating: " ", count: indent) }
    for word in text.split(separator: " ") {
        if lineHasWord && column + 1 + word.count > width {
            out += "\n" + String(repeating: " ", count: indent)
            column = indent
            lineHasWord = false
        }
        if lineHasWord {
            out += " "
            column += 1
        }
        out += word
        column += word.count
        lineHasWord = true
    }
    return out
}

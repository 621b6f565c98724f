import Console
#if canImport(Glibc)
import Glibc
#endif

/// One option, flag or positional argument of a command, as the parser and the help see it.
final class Slot: @unchecked Sendable {
    // @unchecked: `name` is filled in once, while parsing, on the thread that parses.
    enum Kind { case option, repeatedOption, flag, positional }

    let kind: Kind
    /// The long name without dashes; nil until the parser names it after its property.
    var name: String?
    let help: ArgumentHelp
    let isRequired: Bool
    /// How the default shows in help, for options that have one.
    let defaultText: String?
    /// The values it takes, when they are a fixed set.
    let values: [String]
    /// Takes one value's text; false when the text is not a value of the slot's type.
    let take: (String) -> Bool
    var given = false

    init(kind: Kind, name: String?, help: ArgumentHelp, isRequired: Bool, defaultText: String?,
         values: [String], take: @escaping (String) -> Bool) {
        self.kind = kind
        self.name = name
        self.help = help
        self.isRequired = isRequired
        self.defaultText = defaultText
        self.values = values
        self.take = take
    }

    /// `--drum <drum>`, `--local`, `<log>`.
    var usage: String {
        let value = "<\(help.valueName ?? name ?? "value")>"
        switch kind {
        case .option, .repeatedOption: return "--\(name ?? "") \(value)"
        case .flag: return "--\(name ?? "")"
        case .positional: return value
        }
    }
}

/// What a command line asked for instead of running a command.
enum Request: Error {
    /// `--help`, `-h` or `help`: the help of this command (its path of names).
    case help([any ParsableCommand.Type])
    /// A usage error, with the command it concerns.
    case usage(String, [any ParsableCommand.Type])
}

/// The slots of `value`'s wrappers, in declaration order, option groups' in place.
func slots(of value: Any) -> [Slot] {
    var found: [Slot] = []
    for child in Mirror(reflecting: value).children {
        let property = child.label.map { $0.hasPrefix("_") ? String($0.dropFirst()) : $0 } ?? ""
        if let named = child.value as? any SlotHolder {
            let slot = named.slot
            if slot.name == nil { slot.name = kebab(property) }
            found.append(slot)
        } else if let group = child.value as? any GroupHolder {
            found += slots(of: group.groupValue)
        }
    }
    return found
}

protocol SlotHolder { var slot: Slot { get } }
extension Option: SlotHolder {}
extension Flag: SlotHolder {}
extension Argument: SlotHolder {}

protocol GroupHolder { var groupValue: Any { get } }
extension OptionGroup: GroupHolder {
    var groupValue: Any { box.value! }
}

/// Fills `command`'s slots from `arguments`; throws `Request` for help and usage errors.
func fill(_ command: Any, from arguments: [String], path: [any ParsableCommand.Type]) throws(Request) {
    let all = slots(of: command)
    var byName: [String: Slot] = [:]
    for slot in all where slot.kind != .positional { byName[slot.name ?? ""] = slot }
    var positionals = all.filter { $0.kind == .positional }[...]
    var index = 0
    var onlyPositionals = false
    func value(_ text: String, for slot: Slot) throws(Request) {
        guard slot.take(text) else {
            var message = "the value '\(text)' is not one for \(slot.usage)"
            if !slot.values.isEmpty { message += "; give one of: \(slot.values.joined(separator: ", "))" }
            throw .usage(message, path)
        }
        slot.given = true
    }
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        if !onlyPositionals && (argument == "--help" || argument == "-h") { throw .help(path) }
        if !onlyPositionals && argument == "--" {
            onlyPositionals = true
            continue
        }
        if !onlyPositionals && argument.hasPrefix("--") {
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            guard let slot = byName[name] else {
                throw .usage("unknown option '--\(name)'", path)
            }
            if slot.kind == .flag {
                guard inline == nil else { throw .usage("--\(name) takes no value", path) }
                _ = slot.take("")
                slot.given = true
                continue
            }
            if let inline {
                try value(inline, for: slot)
            } else {
                guard index < arguments.count else { throw .usage("missing value for \(slot.usage)", path) }
                try value(arguments[index], for: slot)
                index += 1
            }
            continue
        }
        if !onlyPositionals && argument.hasPrefix("-") && argument.count > 1 && Double(argument) == nil {
            throw .usage("unknown option '\(argument)'", path)
        }
        guard let slot = positionals.popFirst() else {
            throw .usage("unexpected argument '\(argument)'", path)
        }
        try value(argument, for: slot)
    }
    for slot in all where slot.isRequired && !slot.given {
        throw .usage("missing expected argument '\(slot.usage)'", path)
    }
}

extension ParsableCommand {
    /// Parses `CommandLine.arguments` (or `arguments`, without the program's name), validates and
    /// runs the command it names, and exits: 0 when it ran, 64 on a usage error, 1 on any other
    /// error (each said on standard error as `Error: ...`).
    public static func main(_ arguments: [String]? = nil) -> Never {
        let given = arguments ?? Array(CommandLine.arguments.dropFirst())
        var path: [any ParsableCommand.Type] = [Self.self]
        var rest = given[...]
        // Subcommands by name; `help [COMMAND]` as `COMMAND --help`.
        while let first = rest.first {
            let current = path.last!
            if first == "help" && !current.configuration.subcommands.isEmpty {
                rest = rest.dropFirst()
                var helpPath = path
                for name in rest {
                    guard let sub = helpPath.last!.configuration.subcommands.first(where: { $0.name == name }) else { break }
                    helpPath.append(sub)
                }
                report(.help(helpPath))
            }
            guard let sub = current.configuration.subcommands.first(where: { $0.name == first }) else { break }
            path.append(sub)
            rest = rest.dropFirst()
        }
        let command = path.last!
        if rest.first == "--version" && !Self.configuration.version.isEmpty && path.count == 1 {
            printOut(Self.configuration.version + "\n")
            Glibc.exit(0)
        }
        if !command.configuration.subcommands.isEmpty {
            // A command that only groups others: its help, or which one is not known.
            if let first = rest.first, first != "--help", first != "-h" {
                report(.usage("unknown command '\(first)'", path))
            }
            report(.help(path))
        }
        var instance = command.init()
        do throws(Request) {
            try fill(instance, from: Array(rest), path: path)
        } catch {
            report(error)
        }
        do {
            try validateGroups(of: instance)
            try instance.validate()
        } catch let error as ValidationError {
            report(.usage(error.message, path))
        } catch {
            exit(withError: error)
        }
        do {
            try instance.run()
        } catch let error as ValidationError {
            report(.usage(error.message, path))
        } catch {
            exit(withError: error)
        }
        Glibc.exit(0)
    }

    /// Says `error` on standard error as `Error: ...` and exits with status 1 (64 for a
    /// `ValidationError`). On one line (`TerminalText.line`): it may quote a file's name or a
    /// field, and a name holding a line break would otherwise print a second, forged `Error:`.
    public static func exit(withError error: any Error) -> Never {
        if let validation = error as? ValidationError { report(.usage(validation.message, [Self.self])) }
        printErr("Error: \(TerminalText.line(String(describing: error)))\n")
        Glibc.exit(1)
    }
}

/// Runs each option group's own `validate()`.
private func validateGroups(of value: Any) throws {
    for child in Mirror(reflecting: value).children {
        if let group = child.value as? any GroupHolder {
            try validateGroups(of: group.groupValue)
            try validateGroup(group)
        }
    }
}

private func validateGroup(_ group: any GroupHolder) throws {
    guard var arguments = group.groupValue as? any ParsableArguments else { return }
    try arguments.validate()
}

/// Prints what `request` asks for and exits.
private func report(_ request: Request) -> Never {
    switch request {
    case .help(let path):
        printOut(helpText(path))
        exit(0)
    case .usage(let message, let path):
        let names = path.map { $0.name }.joined(separator: " ")
        printErr("Error: \(TerminalText.line(message))\nUsage: \(usageLine(path, short: true))\n  See '\(names) --help' for more information.\n")
        exit(64)
    }
}

/// `text` (ending in a newline) on standard output, in one write.
func printOut(_ text: String) {
    StandardOutput.line(String(text.dropLast()))
}

/// `text` (ending in a newline) on standard error, in one write.
func printErr(_ text: String) {
    printError(String(text.dropLast()))
}

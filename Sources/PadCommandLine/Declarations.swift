/// The declarations a command writes: the part of swift-argument-parser's API that `drumpad`
/// uses, with the same spelling (`@Option`, `@Flag`, `@Argument`, `@OptionGroup`,
/// `ParsableCommand`, `ValidationError`), so a command reads as it would with the package.
///
/// Why not swift-argument-parser itself: it imports FoundationEssentials and Swift's regex
/// modules, about 4 MB of a board's 10 MB static binary (docs/deployment.md#build). The brain,
/// which has room, keeps the package.
///
/// How values arrive: each wrapper keeps its value in a small box (a class). The parser finds
/// the wrappers of a command by reflection (`Mirror`), in declaration order, and fills their
/// boxes before `validate()` and `run()` read them.

/// A value an option or argument can take from its text.
public protocol ExpressibleByArgument {
    /// The value for `argument`, or nil when it is not one.
    init?(argument: String)
    /// The values it can take, for help and errors; empty when any text of its form goes.
    static var allValueStrings: [String] { get }
    /// How a default shows in help.
    var defaultValueDescription: String { get }
}

extension ExpressibleByArgument {
    public static var allValueStrings: [String] { [] }
    public var defaultValueDescription: String { "\(self)" }
}

extension ExpressibleByArgument where Self: RawRepresentable, RawValue == String {
    public init?(argument: String) { self.init(rawValue: argument) }
    public var defaultValueDescription: String { rawValue }
}

extension ExpressibleByArgument where Self: CaseIterable, Self: RawRepresentable, RawValue == String {
    public static var allValueStrings: [String] { allCases.map(\.rawValue) }
}

extension String: ExpressibleByArgument {
    public init?(argument: String) { self = argument }
}

extension Double: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

extension Int: ExpressibleByArgument {
    public init?(argument: String) { self.init(argument) }
}

/// An option's name: its property's name in kebab case (`waitForBrain` → `--wait-for-brain`),
/// or one given.
public struct NameSpecification: Sendable {
    let long: String?

    /// The property's name in kebab case.
    public static var long: NameSpecification { NameSpecification(long: nil) }
    /// `--name`.
    public static func customLong(_ name: String) -> NameSpecification { NameSpecification(long: name) }
}

/// An option's help: one line, more below it, and the name of its value in the usage.
public struct ArgumentHelp: Sendable, ExpressibleByStringLiteral {
    /// The line shown beside the option.
    public var abstract: String
    /// Shown below the abstract.
    public var discussion: String
    /// `<N>` instead of `<units-per-g>`.
    public var valueName: String?

    public init(_ abstract: String = "", discussion: String = "", valueName: String? = nil) {
        self.abstract = abstract
        self.discussion = discussion
        self.valueName = valueName
    }

    public init(stringLiteral value: String) { self.init(value) }
}

/// A command's name, help and subcommands.
public struct CommandConfiguration: Sendable {
    /// The name typed (default: the type's name in kebab case).
    public var commandName: String?
    /// One line: what it does.
    public var abstract: String
    /// Paragraphs and examples below the overview.
    public var discussion: String
    /// What `--version` prints (the root command's).
    public var version: String
    /// The commands under this one.
    public var subcommands: [any ParsableCommand.Type]

    public init(commandName: String? = nil, abstract: String = "", discussion: String = "",
                version: String = "", subcommands: [any ParsableCommand.Type] = []) {
        self.commandName = commandName
        self.abstract = abstract
        self.discussion = discussion
        self.version = version
        self.subcommands = subcommands
    }
}

/// A command's usage is wrong: said as `Error: message` with the usage, exit status 64.
public struct ValidationError: Error, CustomStringConvertible {
    /// What is wrong and how to put it right.
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Options shared by commands (`@OptionGroup`), and every command's base.
public protocol ParsableArguments: SendableMetatype {
    init()
    /// Checks the values together, after parsing; throws `ValidationError`.
    mutating func validate() throws
}

extension ParsableArguments {
    public mutating func validate() throws {}
}

/// A command: its configuration, its options and what it runs.
public protocol ParsableCommand: ParsableArguments {
    static var configuration: CommandConfiguration { get }
    mutating func run() throws
}

extension ParsableCommand {
    public static var configuration: CommandConfiguration { CommandConfiguration() }
    public mutating func run() throws {
        throw ValidationError("give a command: \(Self.configuration.subcommands.map { $0.name }.joined(separator: ", "))")
    }
    static var name: String { configuration.commandName ?? kebab(String(describing: self)) }
}

/// Where a wrapper keeps its value until the parser fills it.
final class Box<Value>: @unchecked Sendable {
    // @unchecked: written only while parsing, on the thread that parses, before the command
    // that holds it runs; read-only after.
    var value: Value?
    init(_ value: Value?) { self.value = value }

    /// A slot's `take`: parses its text as `Parsed` and stores it (through `store`, for
    /// optionals); false when the text is not one.
    func taker<Parsed: ExpressibleByArgument>(_ store: @escaping (Parsed) -> Value) -> (String) -> Bool {
        { text in
            guard let parsed = Parsed(argument: text) else { return false }
            self.value = store(parsed)
            return true
        }
    }
}

/// An option with a value: `--name VALUE` or `--name=VALUE`; given twice, the last wins (so a
/// settings file's options, put first, yield to the command line's). An array takes each one.
@propertyWrapper
public struct Option<Value> {
    let box: Box<Value>
    let slot: Slot

    public var wrappedValue: Value {
        guard let value = box.value else { fatalError("--\(slot.name ?? "?") read before parsing") }
        return value
    }

    public init(wrappedValue: Value, name: NameSpecification = .long, help: ArgumentHelp = "")
    where Value: ExpressibleByArgument {
        let box = Box<Value>(wrappedValue)
        self.box = box
        slot = Slot(kind: .option, name: name.long, help: help, isRequired: false,
                    defaultText: wrappedValue.defaultValueDescription, values: Value.allValueStrings,
                    take: box.taker { (value: Value) in value })
    }

    public init(name: NameSpecification = .long, help: ArgumentHelp = "") where Value: ExpressibleByArgument {
        let box = Box<Value>(nil)
        self.box = box
        slot = Slot(kind: .option, name: name.long, help: help, isRequired: true, defaultText: nil,
                    values: Value.allValueStrings, take: box.taker { (value: Value) in value })
    }

    public init<Wrapped: ExpressibleByArgument>(name: NameSpecification = .long, help: ArgumentHelp = "")
    where Value == Wrapped? {
        let box = Box<Value>(.some(nil))
        self.box = box
        slot = Slot(kind: .option, name: name.long, help: help, isRequired: false, defaultText: nil,
                    values: Wrapped.allValueStrings, take: box.taker { (value: Wrapped) in .some(value) })
    }

    public init<Element: ExpressibleByArgument>(wrappedValue: [Element], name: NameSpecification = .long,
                                                help: ArgumentHelp = "")
    where Value == [Element] {
        let box = Box<Value>(wrappedValue)
        self.box = box
        var given = false
        slot = Slot(kind: .repeatedOption, name: name.long, help: help, isRequired: false, defaultText: nil,
                    values: Element.allValueStrings) { text in
            guard let value = Element(argument: text) else { return false }
            if !given { box.value = [] }  // the first given replaces the default
            given = true
            box.value!.append(value)
            return true
        }
    }
}

/// An option without a value: true when given.
@propertyWrapper
public struct Flag {
    let box: Box<Bool>
    let slot: Slot

    public var wrappedValue: Bool { box.value ?? false }

    public init(wrappedValue: Bool, name: NameSpecification = .long, help: ArgumentHelp = "") {
        let box = Box<Bool>(wrappedValue)
        self.box = box
        slot = Slot(kind: .flag, name: name.long, help: help, isRequired: false, defaultText: nil, values: []) { _ in
            box.value = true
            return true
        }
    }
}

/// A positional argument, in declaration order.
@propertyWrapper
public struct Argument<Value> {
    let box: Box<Value>
    let slot: Slot

    public var wrappedValue: Value {
        guard let value = box.value else { fatalError("<\(slot.name ?? "?")> read before parsing") }
        return value
    }

    public init(help: ArgumentHelp = "") where Value: ExpressibleByArgument {
        let box = Box<Value>(nil)
        self.box = box
        slot = Slot(kind: .positional, name: nil, help: help, isRequired: true, defaultText: nil,
                    values: Value.allValueStrings, take: box.taker { (value: Value) in value })
    }

    public init<Wrapped: ExpressibleByArgument>(help: ArgumentHelp = "") where Value == Wrapped? {
        let box = Box<Value>(.some(nil))
        self.box = box
        slot = Slot(kind: .positional, name: nil, help: help, isRequired: false, defaultText: nil,
                    values: Wrapped.allValueStrings, take: box.taker { (value: Wrapped) in .some(value) })
    }
}

/// Options declared together elsewhere (`ParsableArguments`), parsed as the command's own.
@propertyWrapper
public struct OptionGroup<Value: ParsableArguments> {
    let box: Box<Value>

    public var wrappedValue: Value {
        get { box.value! }
        nonmutating set { box.value = newValue }
    }

    public init() { box = Box(Value()) }
}

// A command's values are filled before it runs and only read after: they cross threads as
// their values do.
extension Option: @unchecked Sendable where Value: Sendable {}
extension Argument: @unchecked Sendable where Value: Sendable {}
extension OptionGroup: @unchecked Sendable where Value: Sendable {}
extension Flag: @unchecked Sendable {}

/// `waitForBrain` → `wait-for-brain`.
func kebab(_ name: String) -> String {
    var out = ""
    for character in name {
        if character.isUppercase {
            if !out.isEmpty { out.append("-") }
            out += character.lowercased()
        } else {
            out.append(character)
        }
    }
    return out
}

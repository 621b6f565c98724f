import Testing
@testable import PadCommandLine

/// The pad's own command-line parser: what swift-argument-parser did for `drumpad`, judged on a
/// command of its own and on the help's layout (help2man reads it for the man pages).
struct PadCommandLineTests {
    enum Colour: String, CaseIterable, ExpressibleByArgument { case red, green }

    struct Shared: ParsableArguments {
        @Option(help: "Raw units per g.") var unitsPerG: Double?
    }

    struct Sample: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sample", abstract: "A sample command whose help is long enough to wrap at eighty columns, as help does.",
            discussion: "A paragraph.\n\nExamples:\n  sample file.csv --rate 200 --neighbour a.csv --neighbour b.csv --colour green --fast")
        @Argument(help: "A log.") var log: String
        @Option(help: "Samples per second.") var rate: Double = 100
        @Option(name: .customLong("neighbour"), help: ArgumentHelp("Another log.", valueName: "LOG"))
        var neighbours: [String] = []
        @Option(help: "A colour.") var colour: Colour?
        @Option(help: "A count.") var count: Int = 3
        @Flag(help: "Go fast.") var fast = false
        @OptionGroup var shared: Shared
    }

    struct Root: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "root", abstract: "The root.",
                                                        version: "root 1", subcommands: [Sample.self])
    }

    func parse(_ arguments: [String]) throws(Request) -> Sample {
        let sample = Sample()
        try fill(sample, from: arguments, path: [Root.self, Sample.self])
        return sample
    }

    func usageError(_ arguments: [String]) -> String? {
        do throws(Request) {
            _ = try parse(arguments)
            return nil
        } catch {
            if case .usage(let message, _) = error { return message }
            return nil
        }
    }

    @Test func optionsFlagsArgumentsAndGroupsAreFilled() throws {
        let sample = try parse(["log.csv", "--rate", "250", "--neighbour", "a.csv", "--neighbour=b.csv",
                                "--colour", "green", "--fast", "--units-per-g", "8192", "--count=-2"])
        #expect(sample.log == "log.csv")
        #expect(sample.rate == 250)
        #expect(sample.neighbours == ["a.csv", "b.csv"])
        #expect(sample.colour == .green)
        #expect(sample.fast)
        #expect(sample.shared.unitsPerG == 8192)
        #expect(sample.count == -2)
    }

    @Test func defaultsStandWhenNotGivenAndTheLastOptionWins() throws {
        let plain = try parse(["log.csv"])
        #expect(plain.rate == 100 && plain.neighbours.isEmpty && plain.colour == nil && !plain.fast)
        #expect(plain.shared.unitsPerG == nil && plain.count == 3)
        // A settings file's options go first; the command line's, later, win.
        let twice = try parse(["--rate", "200", "log.csv", "--rate", "1600"])
        #expect(twice.rate == 1600)
        // A negative number is a value, and after -- everything is positional.
        #expect(try parse(["--count", "-5", "--", "-odd.csv"]).count == -5)
        #expect(try parse(["--", "-odd.csv"]).log == "-odd.csv")
    }

    @Test func usageErrorsSayWhatIsWrong() {
        #expect(usageError([]) == "missing expected argument '<log>'")
        #expect(usageError(["log.csv", "--bogus"]) == "unknown option '--bogus'")
        #expect(usageError(["log.csv", "-x"]) == "unknown option '-x'")
        #expect(usageError(["log.csv", "--rate"]) == "missing value for --rate <rate>")
        #expect(usageError(["log.csv", "--rate", "fast"]) == "the value 'fast' is not one for --rate <rate>")
        #expect(usageError(["log.csv", "--colour", "blue"])
                == "the value 'blue' is not one for --colour <colour>; give one of: red, green")
        #expect(usageError(["log.csv", "--fast=yes"]) == "--fast takes no value")
        #expect(usageError(["log.csv", "more.csv"]) == "unexpected argument 'more.csv'")
        #expect(usageError(["log.csv", "--count", "1.5"]) == "the value '1.5' is not one for --count <count>")
    }

    @Test func helpIsAskedForAnywhere() {
        for arguments in [["--help"], ["log.csv", "-h"], ["--rate", "5", "--help"]] {
            do throws(Request) {
                _ = try parse(arguments)
                Issue.record("\(arguments) parsed")
            } catch {
                guard case .help(let path) = error else { Issue.record("\(arguments): \(error)"); continue }
                #expect(path.count == 2)
            }
        }
    }

    @Test func helpIsLaidOutAsHelp2manReadsIt() {
        let help = helpText([Root.self, Sample.self])
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(help.hasPrefix("OVERVIEW: A sample command"))
        for heading in ["USAGE: root sample <log>", "ARGUMENTS:", "OPTIONS:"] {
            #expect(lines.contains { $0.hasPrefix(heading) }, "\(heading)")
        }
        // Every line fits 80 columns but an example, which is never broken.
        for line in lines where line.count > 80 {
            #expect(line.hasPrefix("  sample file.csv"), "\(line)")
        }
        #expect(help.contains("  --rate <rate>           Samples per second. (default: 100.0)"))
        #expect(help.contains("  --neighbour <LOG>       Another log."))
        #expect(help.contains("  --colour <colour>       A colour. (values: red, green)"))
        #expect(help.contains("  --units-per-g <units-per-g>\n                          Raw units per g."))
        #expect(help.contains("  --fast                  Go fast.\n"))
        #expect(help.hasSuffix("  -h, --help              Show help information.\n"))
        let root = helpText([Root.self])
        #expect(root.contains("SUBCOMMANDS:\n  sample                  A sample command whose help is long enough to wrap at\n"))
        #expect(root.contains("  --version               Show the version."))
        #expect(usageLine([Root.self, Sample.self], short: true) == "root sample <log> [<options>]")
    }
}

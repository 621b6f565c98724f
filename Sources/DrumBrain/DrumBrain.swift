import ArgumentParser
import Console
import CALSA
import CSndFile
import HydrogenKit

/// `drumbrain`: the brain of the drum trigger network.
@main
struct DrumBrain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drumbrain",
        abstract: "Play drum hits from the network's pads through the speakers.",
        discussion: """
            With no subcommand, runs the brain: listens for pads (and any OSC client) on TCP.
            Its options (--kit, --output, --port, --name, --midi-out, ...) are the serve \
            subcommand's: see 'drumbrain serve --help'.
            Try it with liblo's oscsend:
              drumbrain --port 7770 &
              oscsend osc.tcp://127.0.0.1:7770 /drum/hit s snare
            """,
        version: "drumbrain 0.1.0 (\(LinkedLibraries.summary))",
        subcommands: [Serve.self, KitReplayCommand.self, Render.self, CheckKit.self],
        defaultSubcommand: Serve.self)

    /// ArgumentParser's own entry, with Hydrogen kits readable first (the brain reads every kit
    /// form; a pad's board build reads kit.json only).
    static func main() async {
        HydrogenKitLoader.register()
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: terminalSafe(error))  // a validation error may quote a file's name
        }
        do {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: terminalSafe(error))
        }
    }

    /// A failed run's error as ArgumentParser will print it, made safe for a terminal
    /// (`TerminalText.safe`): its message may quote a file's or a device's text (a kit's name, a
    /// sensor log's bad field). Exits and validation errors keep their kind (exit status, usage).
    static func terminalSafe(_ error: any Error) -> any Error {
        switch error {
        case is ExitCode, is CleanExit:
            return error
        case let validation as ValidationError:
            return ValidationError(TerminalText.safe(validation.message))
        default:
            let text = String(describing: error)
            let safe = TerminalText.safe(text)
            return safe == text ? error : Failure(description: safe)
        }
    }

    /// An error's message, made safe.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }
}

/// Versions of the C libraries the brain runs on, for bug reports (`drumbrain --version`).
enum LinkedLibraries {
    /// alsa-lib's version. The corresponding C function is `snd_asoundlib_version`.
    static var alsa: String { "alsa-lib " + String(cString: snd_asoundlib_version()) }

    /// libsndfile's version. The corresponding C function is `sf_version_string`.
    static var sndfile: String { String(cString: sf_version_string()) }

    /// Both, as one line.
    static var summary: String { "\(alsa), \(sndfile)" }
}

import Console
import PadCommandLine
import CEvdev

/// `drumpad`: the pad side of the drum trigger network.
@main
struct DrumPad: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drumpad",
        abstract: "Detect drumstick hits on an accelerometer and send them to a drumbrain.",
        discussion: """
            See the accelerometers, record one, and play:
              drumpad devices
              drumpad record --out snare.csv --seconds 30
              drumpad run --drum snare

            Tune the detector offline on a logged sensor CSV:
              drumpad replay Samples/logs/snare-250hz.csv
              drumpad replay my.csv --threshold 0.3 --refractory 12 > hits.csv
              drumpad replay my.csv --labels strikes.csv --sweep > sweep.csv
            """,
        version: "drumpad 0.1.0 (\(linkedLibrarySummary()))",
        subcommands: [Devices.self, Record.self, Calibrate.self, Run.self, Replay.self])

    /// Runs the command line, with the detector settings of `drumpad calibrate` (the settings
    /// file) put before the options of `run` and `replay`.
    static func main() {
        do {
            let (arguments, file, settings) = try SettingsFile.apply(to: Array(CommandLine.arguments.dropFirst()))
            if let file {
                printError("drumpad: settings from \(file): \(settings.joined(separator: " ")) "
                           + "(options given here win; --no-settings ignores the file)")
            }
            main(arguments)
        } catch {
            exit(withError: error)
        }
    }
}

/// Names the C libraries this executable is linked with, after checking each one answers.
///
/// libevdev has no version call, so this creates and frees a device context, which fails only
/// when the library is missing or broken.
func linkedLibrarySummary() -> String {
    guard let device = libevdev_new() else { return "libevdev: libevdev_new failed" }
    libevdev_free(device)
    return "libevdev linked"
}

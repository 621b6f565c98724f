#if canImport(Glibc)
import Glibc
#endif

/// Detector settings saved by `drumpad calibrate` and read by `drumpad run` and `drumpad replay`.
///
/// The file holds `name = value` lines, each an option of those commands without its dashes
/// (`threshold = 0.3`), and `#` comments:
/// ```
/// # drumpad settings: calibrated on /dev/input/event5 "DualSense Motion Sensors", 2026-11-21
/// detector = adaptive
/// mask-ms = 35
/// ```
/// The settings go before the command line's own options, so an option given there wins.
enum SettingsFile {
    /// The file used when no `--settings` is given: `$XDG_CONFIG_HOME/drumpad/settings.conf`
    /// (`~/.config/drumpad/settings.conf`).
    static var defaultPath: String? {
        if let config = getenv("XDG_CONFIG_HOME").map({ String(cString: $0) }), !config.isEmpty {
            return "\(config)/drumpad/settings.conf"
        }
        guard let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty else { return nil }
        return "\(home)/.config/drumpad/settings.conf"
    }

    /// The options in the text of a settings file, as arguments (`["--threshold", "0.3"]`).
    static func arguments(text: String, path: String) throws -> [String] {
        var arguments: [String] = []
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let trimmed = line.trimmingCharacters(in: " \t\r")
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t") }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
                  parts[0].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
                throw DrumPadError.usage("\(path):\(number + 1): a setting is NAME = VALUE, such as threshold = 0.3 "
                                         + "(found \"\(trimmed)\")")
            }
            arguments += ["--\(parts[0])", parts[1]]
        }
        return arguments
    }

    /// `arguments` (the command line without the program name) with the settings of the file
    /// that applies put in front of the options of `run` and `replay`, and `--settings FILE`
    /// taken out; the file used, if any, and the settings it gave.
    static func apply(to arguments: [String]) throws -> (arguments: [String], file: String?, settings: [String]) {
        guard let command = arguments.first, command == "run" || command == "replay" else { return (arguments, nil, []) }
        var rest = Array(arguments.dropFirst())
        var path: String?
        var explicit = false
        if let at = rest.firstIndex(of: "--settings") {
            guard at + 1 < rest.count else { throw DrumPadError.usage("--settings needs a file") }
            path = rest[at + 1]
            explicit = true
            rest.removeSubrange(at...(at + 1))
        } else if rest.contains("--no-settings") {
            rest.removeAll { $0 == "--no-settings" }
            return ([command] + rest, nil, [])
        } else {
            path = defaultPath
        }
        guard let path else { return ([command] + rest, nil, []) }
        guard access(path, F_OK) == 0 else {
            if explicit { throw DrumPadError.cannotOpen(path: path, errno: ENOENT) }
            return ([command] + rest, nil, [])
        }
        let bytes = try FileChunks.readAll(path: path)
        let settings = yielding(try self.arguments(text: String(decoding: bytes, as: UTF8.self), path: path), to: rest)
        return ([command] + settings + rest, path, settings)
    }

    /// The file's `settings` less those of another detector than the one the command line
    /// (`rest`) picks: its `--detector`, or the settings it gives (`--threshold` or `--refractory`
    /// pick the card's, `--minimum-g` or `--mask-ms` the adaptive one). An option given there
    /// wins, and a setting of a detector not in force is refused (`DetectorOptions.validate`):
    /// after calibrating (detector = adaptive, minimum-g, mask-ms), `--detector card` was refused.
    static func yielding(_ settings: [String], to rest: [String]) -> [String] {
        let options = rest.prefix { $0 != "--" }  // after `--`, arguments, not options
        func given(_ name: String) -> Bool { options.contains { $0 == name || $0.hasPrefix(name + "=") } }
        var chosen: String?
        for (i, argument) in options.enumerated() {
            if argument == "--detector", i + 1 < options.count { chosen = options[options.startIndex + i + 1] }
            if argument.hasPrefix("--detector=") { chosen = String(argument.dropFirst("--detector=".count)) }
        }
        let fileDetector = settings.indices.first { $0 % 2 == 0 && settings[$0] == "--detector" && $0 + 1 < settings.count }
            .map { settings[$0 + 1] }
        // The calibrated full scale is the adaptive detector's strength (how far z went), not
        // the card's jump: it goes with the adaptive settings.
        let card = ["--threshold", "--refractory"], adaptiveOnly = ["--minimum-g", "--mask-ms"]
        let adaptive = adaptiveOnly + ["--velocity-full-scale"]
        let dropped: Set<String>
        if let chosen {
            dropped = Set(["--detector"] + (chosen == "adaptive" ? card : adaptive))
        } else if card.contains(where: given) {
            // The file's detector stays unless it is the adaptive one (tvdrums takes a threshold too).
            dropped = Set(fileDetector == "adaptive" ? ["--detector"] + adaptive : [])
        } else if adaptiveOnly.contains(where: given) {
            dropped = Set(fileDetector.map { $0 == "adaptive" } ?? true ? card : ["--detector"] + card)
        } else {
            return settings
        }
        var kept: [String] = []
        var i = 0
        while i < settings.count {  // NAME VALUE pairs (`arguments(text:path:)`)
            if !dropped.contains(settings[i]) { kept += settings[i..<min(i + 2, settings.count)] }
            i += 2
        }
        return kept
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        let start = firstIndex { !characters.contains($0) } ?? endIndex
        let end = lastIndex { !characters.contains($0) }.map { index(after: $0) } ?? start
        return String(self[start..<Swift.max(start, end)])
    }
}

import Console

/// Everything that can go wrong loading kits, reading and writing audio files, and opening
/// outputs. Messages name the file, the drum and the path tried, and the fix where there is one.
public enum DrumAudioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The kit file cannot be read or is not valid JSON.
    case unreadableKit(path: String, reason: String)
    /// A kit field is missing or wrong.
    case badKit(path: String, detail: String)
    /// A drum's sample file does not exist.
    case sampleNotFound(kit: String, drum: String, sample: String, lookedIn: String)
    /// libsndfile could not read a sample; carries its own message.
    case unreadableSample(kit: String, drum: String, path: String, reason: String)
    /// An audio file could not be opened or written; carries libsndfile's message.
    case soundFile(path: String, reason: String)
    /// libsamplerate failed; carries its own message.
    case resampling(path: String, reason: String)
    /// A hits CSV is malformed.
    case badHits(path: String, line: Int, detail: String)
    /// An offline render would run longer than `OfflineRender.longestSeconds`.
    case renderTooLong(seconds: Double)
    /// An output cannot be opened; carries the reason and what to try.
    case output(name: String, reason: String, hint: String)

    /// One line: the paths and details it quotes may come from a kit file (a sample's name), so
    /// every control character and newline in them is escaped (`TerminalText.line`).
    public var description: String { TerminalText.line(text) }

    private var text: String {
        switch self {
        case .unreadableKit(let path, let reason):
            return "\(path): cannot read the kit: \(reason)"
        case .badKit(let path, let detail):
            return "\(path): \(detail)"
        case .sampleNotFound(let kit, let drum, let sample, let folder):
            return "\(kit): drum \"\(drum)\": sample \"\(sample)\" not found (looked in \(folder))"
        case .unreadableSample(let kit, let drum, let path, let reason):
            return "\(kit): drum \"\(drum)\": cannot read \(path): \(reason)"
        case .soundFile(let path, let reason):
            return "\(path): \(reason)"
        case .resampling(let path, let reason):
            return "\(path): resampling failed: \(reason)"
        case .renderTooLong(let seconds):
            let shown = seconds.magnitude < 1e15 ? String(Int(seconds.rounded(.up))) : "\(seconds)"  // NaN, 1e300: no trap
            return "the render would run \(shown) s, from its start to its last hit; at most "
                + "\(Int(OfflineRender.longestSeconds)) s (one hour) is rendered, held in memory: split the hits, "
                + "or move their times nearer 0"
        case .badHits(let path, let line, let detail):
            return line > 0 ? "\(path):\(line): \(detail)" : "\(path): \(detail)"  // line 0: the file as a whole
        case .output(let name, let reason, let hint):
            return "cannot open output \(name): \(reason); \(hint)"
        }
    }
}

/// What the brain learned of its stands, kept across restarts in a small text file (the XDG
/// state folder by default: `drumbrain --stand-state`).
///
///     # drumbrain stands v1
///     pair<TAB>SOURCE<TAB>RECEIVER<TAB>ESTIMATE|-<TAB>RESPONSES<TAB>RESPONSE_RATE<TAB>UPPER<TAB>LAG_US
///
/// Pad names come from the network: each byte outside `A–Z a–z 0–9 . _ -` is written as `%XX`,
/// so a name can neither break a line nor a field. A line that does not parse, or whose values
/// are out of range, is skipped and counted, never trusted.
extension StandModel {
    /// The file's first line.
    public static let stateHeader = "# drumbrain stands v1"

    /// The learned pairs as the state file's text.
    public var stateText: String {
        var text = Self.stateHeader + "\n"
        for key in pairs.keys.sorted(by: { ($0.source, $0.receiver) < ($1.source, $1.receiver) }) {
            guard let pair = pairs[key], pair.estimate != nil || pair.upper < priorCoupling(key) || restored.contains(key)
            else { continue }
            let fields = ["pair", Self.encode(padKeys[key.source]), Self.encode(padKeys[key.receiver]),
                          pair.estimate.map { "\($0)" } ?? "-", "\(pair.responses)", "\(pair.responseRate)",
                          "\(pair.upper)", "\(pair.lagMicros)"]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }

    /// A model with the pairs of a state file's `text` restored; returns it and how many lines
    /// were skipped as malformed.
    public static func restoring(_ text: String, configuration: Configuration = Configuration()) -> (model: StandModel, skipped: Int) {
        var model = StandModel(configuration)
        var skipped = 0
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#") { continue }
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 8, f[0] == "pair", let source = decode(f[1]), let receiver = decode(f[2]), source != receiver,
                  let responses = Double(f[4]), responses.isFinite, (0...1e6).contains(responses),
                  let rate = Double(f[5]), (0...1).contains(rate),
                  let upper = Double(f[6]), upper.isFinite, upper >= 0,
                  let lag = Double(f[7]), lag.isFinite, abs(lag) <= 1e6 else {
                skipped += 1
                continue
            }
            var estimate: Double?
            if f[3] != "-" {
                guard let value = Double(f[3]), value.isFinite, (0...configuration.mostEstimate).contains(value) else {
                    skipped += 1
                    continue
                }
                estimate = value
            }
            guard let s = model.pad(source), let r = model.pad(receiver) else {
                skipped += 1
                continue
            }
            model.restore(PairKey(source: s, receiver: r), estimate: estimate, responses: responses, responseRate: rate,
                          upper: min(upper, configuration.mostEstimate), lagMicros: lag)
        }
        return (model, skipped)
    }

    /// A pad name as the file writes it.
    static func encode(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }

    /// A name from the file, or nil when it is not one `encode` writes.
    static func decode(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 3 * 256 else { return nil }
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Puts back a pair's evidence from a state file; a pair that was coupled is not announced
    /// again.
    mutating func restore(_ key: PairKey, estimate: Double?, responses: Double, responseRate: Double, upper: Double,
                          lagMicros: Double) {
        var pair = Pair(prior: configuration.priorCoupling)
        pair.estimate = estimate
        pair.responses = responses
        pair.responseRate = responseRate
        pair.upper = upper
        pair.lagMicros = lagMicros
        pairs[key] = pair
        restored.insert(key)
        if coupling(key).coupled { announced.insert(key) }
    }
}

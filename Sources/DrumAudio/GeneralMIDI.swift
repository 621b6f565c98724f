import TextSearch
/// General MIDI's percussion notes (channel 10), for drums whose kit names no note.
///
/// A drum's note comes from its kit when the kit says (`"note"` in kit.json, a Hydrogen
/// instrument's `midiOutNote`); otherwise from its name: the bundled kit's drums are kick 36,
/// snare 38, hihat 42, racktom 48, floortom 43, crash 49 and ride 51, and other names are read
/// for the words drummers use (`hat-open` 46, `tom-floor` 43, `ride-bell` 53, ...).
///
/// Thread safety: pure.
public enum GeneralMIDI {
    /// The notes of exact names.
    static let named: [String: UInt8] = [
        "kick": 36, "bass-drum": 36, "bassdrum": 36, "bd": 36,
        "snare": 38, "sd": 38, "rimshot": 37, "side-stick": 37, "sidestick": 37, "clap": 39, "hand-clap": 39,
        "hihat": 42, "hi-hat": 42, "hh": 42,
        "racktom": 48, "rack-tom": 48, "tom": 45, "midtom": 47, "mid-tom": 47,
        "floortom": 43, "floor-tom": 43,
        "crash": 49, "ride": 51, "china": 52, "splash": 55, "cowbell": 56, "tambourine": 54,
    ]

    /// The General MIDI note for a drum named `name` (a kit's lower-case drum name), or nil if
    /// the name says nothing a drummer would recognise.
    public static func note(forDrumNamed name: String) -> UInt8? {
        if let note = named[name] { return note }
        let words = name.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        func has(_ word: String) -> Bool { words.contains(word) || name.includes(word) }
        if has("kick") || words.contains("bd") || has("bass") { return 36 }
        if has("rim") || has("stick") { return 37 }
        if has("clap") { return 39 }
        if has("snare") || words.contains("sd") { return 38 }
        if has("hat") || words.contains("hh") {
            if has("open") { return 46 }
            if has("pedal") || has("foot") { return 44 }
            return 42
        }
        if has("crash") { return 49 }
        if has("ride") { return has("bell") ? 53 : 51 }
        if has("china") { return 52 }
        if has("splash") { return 55 }
        if has("cowbell") || has("bell") { return 56 }
        if has("tamb") { return 54 }
        if has("floor") { return 43 }
        if has("tom") {
            if has("high") || has("hi") || has("rack") || words.contains("1") { return 48 }
            if has("low") || words.contains("3") || words.contains("4") { return 43 }
            return 45
        }
        return nil
    }

    /// MIDI velocity 1...127 of a hit's velocity (0...1) through `curve`.
    public static func velocity(_ velocity: Float, curve: VelocityCurve = .linear) -> UInt8 {
        let v = Double(velocity.isFinite ? min(1, max(0, velocity)) : 0)
        let shaped: Double
        switch curve {
        case .linear: shaped = v
        // The families trigger modules offer: log lifts soft hits, exp holds them down.
        case .log: shaped = Self.log10(1 + 9 * v)
        case .exp: shaped = (Self.pow10(v) - 1) / 9
        }
        return UInt8(max(1, min(127, (shaped * 127).rounded())))
    }

    /// A hit's velocity (0…1) from a MIDI velocity (1…127) through `curve`: the inverse of
    /// `velocity(_:curve:)`, so that a note that comes in leaves again with its own velocity.
    public static func hitVelocity(midi: UInt8, curve: VelocityCurve = .linear) -> Float {
        let shaped = Double(min(127, max(1, midi))) / 127
        switch curve {
        case .linear: return Float(shaped)
        // Inverses of log10(1 + 9v) and (10^v - 1) / 9, on 0…1.
        case .log: return Float(min(1, max(0, (pow10(shaped) - 1) / 9)))
        case .exp: return Float(min(1, max(0, log10(1 + 9 * shaped))))
        }
    }

    /// General MIDI's percussion notes that stand for another (an acoustic bass drum for the
    /// kick, an electric snare for the snare, the hi-hat's pedal and open notes for the
    /// hi-hat, ...): where a kit has no drum on a note that comes in, the drum on the note it
    /// stands for plays.
    static let standsFor: [UInt8: [UInt8]] = [
        35: [36], 36: [35], 38: [40], 40: [38], 37: [38], 39: [38],
        42: [44, 46], 44: [42, 46], 46: [42, 44],
        41: [43, 45], 43: [41, 45], 45: [47, 43], 47: [45, 48], 48: [50, 47], 50: [48, 47],
        49: [57, 55, 52], 57: [49, 55, 52], 55: [49, 57], 52: [49, 57],
        51: [59, 53], 59: [51, 53], 53: [51, 59],
    ]

    /// The index of the drum among `notes` (a kit's drums' notes, in order) that a MIDI note
    /// plays: the first drum on that note, else the first on a note it stands for in General
    /// MIDI; nil if none.
    public static func drum(forNote note: UInt8, notes: [UInt8?]) -> Int? {
        if let exact = notes.firstIndex(where: { $0 == note }) { return exact }
        for other in standsFor[note] ?? [] {
            if let index = notes.firstIndex(where: { $0 == other }) { return index }
        }
        return nil
    }

    /// How a hit's velocity becomes a MIDI velocity.
    public enum VelocityCurve: String, Sendable, CaseIterable {
        case linear, log, exp
    }

    // Foundation-free log10 and 10^x on the ranges used (1...10 and 0...1), to 1e-9.
    static func log10(_ x: Double) -> Double {
        // ln(x) by atanh series on (x - 1) / (x + 1), then / ln 10.
        let y = (x - 1) / (x + 1), y2 = y * y
        var term = y, sum = 0.0
        for n in stride(from: 1, through: 99, by: 2) {
            sum += term / Double(n)
            term *= y2
        }
        return 2 * sum / 2.302585092994046
    }

    static func pow10(_ x: Double) -> Double {
        let z = x * 2.302585092994046
        var term = 1.0, sum = 1.0
        for n in 1...30 {
            term *= z / Double(n)
            sum += term
        }
        return sum
    }
}

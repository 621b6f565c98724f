import Console

/// A kit ready to play: every sample at the output rate, pan gains worked out.
///
/// Immutable, so it can be handed to the audio thread by pointer and read there without locks.
/// Thread safety: immutable; share freely. Real-time safety: reading is plain memory access.
public final class Kit: Sendable {
    /// The kit's name as the kit file gave it, cut to 200 bytes (at a character) and with any NUL
    /// as U+FFFD (an OSC string cannot hold one): what the brain sends pads in its welcome, where
    /// the pad escapes it. A kit file names itself: print `displayName`, never this.
    public let name: String
    /// `name` made safe to print (`TerminalText.name`, at most 64 characters before escaping):
    /// for messages, the visual and the `kit=` TXT record.
    public let displayName: String
    /// The drums, in the kit file's order.
    public let drums: [Drum]
    /// The rate every sample is at.
    public let sampleRate: Double
    /// What the kit file named and the kit left out, one line each (a sample file missing or
    /// unreadable, and an instrument with no sample left), for the user to be told; each made safe
    /// to print (the names in it are the kit file's).
    public let leftOut: [String]

    /// Creates a kit.
    public init(name: String, drums: [Drum], sampleRate: Double, leftOut: [String] = []) {
        self.name = Self.wireName(name)
        displayName = TerminalText.name(self.name, limit: 64)
        self.drums = drums
        self.sampleRate = sampleRate
        self.leftOut = leftOut.map { TerminalText.line($0) }
    }

    /// `name` with NULs as U+FFFD, cut to 200 UTF-8 bytes after a whole character (built forwards:
    /// a long name costs one pass).
    static func wireName(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars { scalars.append(scalar.value == 0 ? "\u{FFFD}" : scalar) }
        var out = ""
        var bytes = 0
        for character in String(scalars) {
            bytes += character.utf8.count
            guard bytes <= 200 else { break }
            out.append(character)
        }
        return out
    }

    /// The index of the drum named `name`, or nil.
    public func index(of name: String) -> Int? { drums.firstIndex { $0.name == name } }

    /// One drum: where it sits and what it sounds like at each velocity.
    public struct Drum: Sendable {
        /// Lower-case name, such as `snare` or `hat-closed`.
        public var name: String
        /// Degrees, −90 hard left … +90 hard right.
        public var azimuth: Double
        /// Linear gain.
        public var gain: Double
        /// Velocity layers, each covering `minVelocity...maxVelocity` (at least one).
        public var layers: [Layer]
        /// The MIDI note the kit gives this drum (0...127), if it gives one.
        public var note: UInt8?

        /// Creates a drum.
        public init(name: String, azimuth: Double, gain: Double, layers: [Layer], note: UInt8? = nil) {
            precondition(!layers.isEmpty, "a drum needs at least one sample")
            self.name = name
            self.azimuth = azimuth
            self.gain = gain
            self.layers = layers
            self.note = note
        }

        /// The MIDI note this drum plays as: the kit's, else General MIDI's for its name, else nil.
        public var midiNote: UInt8? { note ?? GeneralMIDI.note(forDrumNamed: name) }

        /// Constant-power pan gains (docs/architecture.md, Kits): `p = (azimuth + 90) / 180`,
        /// `left = cos(p·π/2)`, `right = sin(p·π/2)`.
        public var panGains: (left: Double, right: Double) {
            let p = (min(90, max(-90, azimuth)) + 90) / 180
            return (Self.cosine(p * Double.pi / 2), Self.sine(p * Double.pi / 2))
        }

        /// The layer for `velocity`: the first whose range holds it, else the nearest.
        public func layer(for velocity: Float) -> Layer {
            let v = Double(velocity)
            if let match = layers.first(where: { v >= $0.minVelocity && v <= $0.maxVelocity }) { return match }
            return layers.min { distance($0, v) < distance($1, v) }!
        }

        private func distance(_ layer: Layer, _ v: Double) -> Double {
            v < layer.minVelocity ? layer.minVelocity - v : v - layer.maxVelocity
        }

        // Foundation-free sine and cosine on 0...π/2 (Taylor series to 1e-12): the pan law needs
        // no more, and the audio engine stays free of libm at load too.
        static func sine(_ x: Double) -> Double {
            var term = x, sum = x
            for n in 1...12 {
                term *= -x * x / Double((2 * n) * (2 * n + 1))
                sum += term
            }
            return sum
        }

        static func cosine(_ x: Double) -> Double { sine(Double.pi / 2 - x) }
    }

    /// One sample and the velocities it plays for.
    public struct Layer: Sendable {
        /// The sound, at the kit's rate.
        public var buffer: AudioBuffer
        /// Lowest velocity for this layer, 0...1.
        public var minVelocity: Double
        /// Highest velocity for this layer, 0...1.
        public var maxVelocity: Double
        /// Where it came from, for `check-kit` (the kit file's name for it, made safe to print).
        public var source: String

        /// Creates a layer.
        public init(buffer: AudioBuffer, minVelocity: Double = 0, maxVelocity: Double = 1, source: String) {
            self.buffer = buffer
            self.minVelocity = minVelocity
            self.maxVelocity = maxVelocity
            self.source = TerminalText.name(source, limit: 256)
        }
    }
}

/// One drum hit as it travels on the wire (`/drum/hit`, docs/architecture.md, Wire protocol).
public struct DrumHit: Equatable, Sendable {
    /// The drum's name, such as `snare`.
    public var drum: String
    /// How hard, 0...1 (1 when the sender gave none).
    public var velocity: Float
    /// The pad's monotonic clock at the sample that fired, in µs, if sent.
    public var padTimeMicros: Int64?
    /// The per-connection counter, if sent.
    public var sequence: Int32?
    /// Protocol 2: the detector's peak deviation in g, comparable between strikes on one pad
    /// (finite, ≥ 0), if sent (the adaptive detector's measure of a stroke: docs/protocol.md).
    /// Sent only with a pad time and a sequence number before it.
    public var strength: Float?
    /// A push the pad's detector felt through its stand and turned away as no strike
    /// (`/drum/felt`): the brain learns its stands from it and never plays it.
    public var felt: Bool

    /// Creates a hit.
    public init(drum: String, velocity: Float = 1, padTimeMicros: Int64? = nil, sequence: Int32? = nil,
                strength: Float? = nil, felt: Bool = false) {
        self.drum = drum
        self.velocity = velocity
        self.padTimeMicros = padTimeMicros
        self.sequence = sequence
        self.strength = strength
        self.felt = felt
    }

    /// Whether a wire strength is one the brain can compare: finite and not negative. Shared by
    /// both decoders.
    static func isValidStrength(_ value: Float) -> Bool { value.isFinite && value >= 0 }

    /// A wire velocity given as a float (not NaN): clamped to 0...1. Shared by both decoders.
    static func velocity(fromFloat v: Float) -> Float { min(1, max(0, v)) }

    /// A wire velocity given as MIDI's 0...127: clamped, then scaled to 0...1.
    static func velocity(fromMIDI v: Int32) -> Float { Float(min(127, max(0, v))) / 127 }
}

/// The messages of the drum protocol (docs/architecture.md, Wire protocol), typed.
public enum DrumMessage: Equatable, Sendable {
    /// `/drum/hit s drum [f velocity | i 0…127] [h pad_time_us] [i seq] [f strength]`; with
    /// `DrumHit.felt`, `/drum/felt s drum, f velocity, h pad_time_us, i seq, f strength` (all
    /// five: a push the pad felt through its stand and turned away as no strike, sent to brains
    /// of protocol 2; the brain learns its stands from it and never plays it).
    case hit(DrumHit)
    /// `/drum/hello i version, s pad_name, s drum [f rate_hz]`: a pad introduces itself;
    /// protocol 2 adds its sensor's rate (finite, > 0) when it knows it.
    case hello(version: Int32, padName: String, drum: String, rateHz: Float? = nil)
    /// `/drum/welcome i version, s brain_name, s kit_name`: the brain's answer to hello.
    case welcome(version: Int32, brainName: String, kitName: String)
    /// `/drum/ping h t [h offset_us, h rtt_us]`: the sender's clock; a pad adds its current
    /// estimate of the brain's clock offset and the round trip, so the brain knows them too.
    case ping(timeMicros: Int64, offsetMicros: Int64?, roundTripMicros: Int64?)
    /// `/drum/pong h t, h brain_time_us`: the ping's time echoed, and the brain's clock.
    case pong(timeMicros: Int64, brainTimeMicros: Int64)
    /// `/drum/error s message`.
    case error(String)
    /// `/drum/challenge b nonce`: a brain with a pairing key asks the pad to prove it has it.
    case challenge(nonce: [UInt8])
    /// `/drum/auth b hmac`: the pad's answer, HMAC-SHA256(key, nonce ‖ pad_name).
    case auth(hmac: [UInt8])
    /// Any other address: ignored (and counted) by the receiver, never fatal.
    case unknown(address: String)

    /// The protocol version this code speaks: 2 adds a hit's strength and the hello's sensor
    /// rate. A pad sends them only to a brain that welcomed it with version 2 or more; a brain
    /// takes both forms.
    public static let protocolVersion: Int32 = 2

    /// Reads a drum message from an OSC message; unknown addresses become `.unknown`.
    public init(_ message: OSCMessage) throws(DrumNetError) {
        let a = message.arguments
        func bad(_ expected: String) -> DrumNetError {
            .badArguments(address: message.address, expected: expected, found: message.typeTags)
        }
        switch message.address {
        case "/drum/hit":
            guard case .string(let drum)? = a.first, !drum.isEmpty else {
                throw bad("s drum [f velocity] [h pad_time_us] [i seq]")
            }
            var hit = DrumHit(drum: drum)
            var rest = a.dropFirst()
            if let next = rest.first {
                switch next {
                case .float32(let v):
                    guard !v.isNaN else { throw bad("a velocity that is a number, 0…1") }
                    hit.velocity = DrumHit.velocity(fromFloat: v)
                case .float64(let v):
                    guard !v.isNaN else { throw bad("a velocity that is a number, 0…1") }
                    hit.velocity = Float(min(1, max(0, v)))
                case .int32(let v):
                    hit.velocity = DrumHit.velocity(fromMIDI: v)
                default: throw bad("s drum [f velocity] [h pad_time_us] [i seq]")
                }
                rest = rest.dropFirst()
            }
            if let next = rest.first {
                guard case .int64(let time) = next else { throw bad("s drum f velocity [h pad_time_us] [i seq]") }
                hit.padTimeMicros = time
                rest = rest.dropFirst()
            }
            if let next = rest.first {
                guard case .int32(let seq) = next else { throw bad("s drum f velocity h pad_time_us [i seq] [f strength]") }
                hit.sequence = seq
                rest = rest.dropFirst()
            }
            if let next = rest.first {
                guard case .float32(let strength) = next, DrumHit.isValidStrength(strength) else {
                    throw bad("s drum f velocity h pad_time_us i seq [f strength, a number ≥ 0]")
                }
                hit.strength = strength
                rest = rest.dropFirst()
            }
            guard rest.isEmpty else { throw bad("s drum [f velocity] [h pad_time_us] [i seq] [f strength]") }
            self = .hit(hit)
        case "/drum/felt":
            let expected = "s drum, f velocity, h pad_time_us, i seq, f strength (a number ≥ 0)"
            guard a.count == 5, case .string(let drum) = a[0], !drum.isEmpty, case .float32(let velocity) = a[1],
                  !velocity.isNaN, case .int64(let time) = a[2], case .int32(let seq) = a[3],
                  case .float32(let strength) = a[4], DrumHit.isValidStrength(strength) else { throw bad(expected) }
            self = .hit(DrumHit(drum: drum, velocity: DrumHit.velocity(fromFloat: velocity), padTimeMicros: time,
                                sequence: seq, strength: strength, felt: true))
        case "/drum/hello":
            guard a.count == 3 || a.count == 4, case .int32(let version) = a[0], case .string(let name) = a[1],
                  case .string(let drum) = a[2] else { throw bad("i version, s pad_name, s drum [f rate_hz]") }
            var rate: Float?
            if a.count == 4 {
                guard case .float32(let hz) = a[3], hz.isFinite, hz > 0 else {
                    throw bad("i version, s pad_name, s drum [f rate_hz, a number > 0]")
                }
                rate = hz
            }
            self = .hello(version: version, padName: name, drum: drum, rateHz: rate)
        case "/drum/welcome":
            guard a.count == 3, case .int32(let version) = a[0], case .string(let name) = a[1],
                  case .string(let kit) = a[2] else { throw bad("i version, s brain_name, s kit_name") }
            self = .welcome(version: version, brainName: name, kitName: kit)
        case "/drum/ping":
            guard case .int64(let time)? = a.first else { throw bad("h t [h offset_us, h rtt_us]") }
            if a.count == 3, case .int64(let offset) = a[1], case .int64(let rtt) = a[2] {
                self = .ping(timeMicros: time, offsetMicros: offset, roundTripMicros: rtt)
            } else if a.count == 1 {
                self = .ping(timeMicros: time, offsetMicros: nil, roundTripMicros: nil)
            } else {
                throw bad("h t [h offset_us, h rtt_us]")
            }
        case "/drum/pong":
            guard a.count == 2, case .int64(let time) = a[0], case .int64(let brain) = a[1] else {
                throw bad("h t, h brain_time_us")
            }
            self = .pong(timeMicros: time, brainTimeMicros: brain)
        case "/drum/error":
            guard a.count == 1, case .string(let text) = a[0] else { throw bad("s message") }
            self = .error(text)
        case "/drum/challenge":
            guard a.count == 1, case .blob(let nonce) = a[0] else { throw bad("b nonce") }
            self = .challenge(nonce: nonce)
        case "/drum/auth":
            guard a.count == 1, case .blob(let hmac) = a[0] else { throw bad("b hmac") }
            self = .auth(hmac: hmac)
        default:
            self = .unknown(address: message.address)
        }
    }

    /// The OSC message for this drum message.
    public var oscMessage: OSCMessage {
        switch self {
        case .hit(let hit) where hit.felt:
            return OSCMessage("/drum/felt", [.string(hit.drum), .float32(hit.velocity), .int64(hit.padTimeMicros ?? 0),
                                             .int32(hit.sequence ?? 0), .float32(hit.strength ?? 0)])
        case .hit(let hit):
            var arguments: [OSCArgument] = [.string(hit.drum), .float32(hit.velocity)]
            if let time = hit.padTimeMicros {
                arguments.append(.int64(time))
                if let seq = hit.sequence {
                    arguments.append(.int32(seq))
                    if let strength = hit.strength { arguments.append(.float32(strength)) }
                }
            }
            return OSCMessage("/drum/hit", arguments)
        case .hello(let version, let padName, let drum, let rate):
            return OSCMessage("/drum/hello", [.int32(version), .string(padName), .string(drum)] + (rate.map { [.float32($0)] } ?? []))
        case .welcome(let version, let brainName, let kitName):
            return OSCMessage("/drum/welcome", [.int32(version), .string(brainName), .string(kitName)])
        case .ping(let time, let offset, let rtt):
            if let offset, let rtt {
                return OSCMessage("/drum/ping", [.int64(time), .int64(offset), .int64(rtt)])
            }
            return OSCMessage("/drum/ping", [.int64(time)])
        case .pong(let time, let brain):
            return OSCMessage("/drum/pong", [.int64(time), .int64(brain)])
        case .error(let text):
            return OSCMessage("/drum/error", [.string(text)])
        case .challenge(let nonce):
            return OSCMessage("/drum/challenge", [.blob(nonce)])
        case .auth(let hmac):
            return OSCMessage("/drum/auth", [.blob(hmac)])
        case .unknown(let address):
            return OSCMessage(address)
        }
    }

    /// The length-prefixed packet for this message, ready for one write.
    public var packet: [UInt8] { OSCEncoding.packet(oscMessage) }
}

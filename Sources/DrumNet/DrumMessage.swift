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

    /// Creates a hit.
    public init(drum: String, velocity: Float = 1, padTimeMicros: Int64? = nil, sequence: Int32? = nil) {
        self.drum = drum
        self.velocity = velocity
        self.padTimeMicros = padTimeMicros
        self.sequence = sequence
    }

    /// A wire velocity given as a float (not NaN): clamped to 0...1. Shared by both decoders.
    static func velocity(fromFloat v: Float) -> Float { min(1, max(0, v)) }

    /// A wire velocity given as MIDI's 0...127: clamped, then scaled to 0...1.
    static func velocity(fromMIDI v: Int32) -> Float { Float(min(127, max(0, v))) / 127 }
}

/// The messages of the drum protocol (docs/architecture.md, Wire protocol), typed.
public enum DrumMessage: Equatable, Sendable {
    /// `/drum/hit s drum [f velocity | i 0…127] [h pad_time_us] [i seq]`.
    case hit(DrumHit)
    /// `/drum/hello i version, s pad_name, s drum`: a pad introduces itself.
    case hello(version: Int32, padName: String, drum: String)
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

    /// The protocol version this code speaks.
    public static let protocolVersion: Int32 = 1

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
                guard case .int32(let seq) = next else { throw bad("s drum f velocity h pad_time_us [i seq]") }
                hit.sequence = seq
                rest = rest.dropFirst()
            }
            guard rest.isEmpty else { throw bad("s drum [f velocity] [h pad_time_us] [i seq]") }
            self = .hit(hit)
        case "/drum/hello":
            guard a.count == 3, case .int32(let version) = a[0], case .string(let name) = a[1],
                  case .string(let drum) = a[2] else { throw bad("i version, s pad_name, s drum") }
            self = .hello(version: version, padName: name, drum: drum)
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
        case .hit(let hit):
            var arguments: [OSCArgument] = [.string(hit.drum), .float32(hit.velocity)]
            if let time = hit.padTimeMicros {
                arguments.append(.int64(time))
                if let seq = hit.sequence { arguments.append(.int32(seq)) }
            }
            return OSCMessage("/drum/hit", arguments)
        case .hello(let version, let padName, let drum):
            return OSCMessage("/drum/hello", [.int32(version), .string(padName), .string(drum)])
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

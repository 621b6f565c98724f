#if canImport(Glibc)
import Glibc
#endif
import Monotonic
import Synchronization

/// A Standard MIDI File of what the brain played (`drumbrain --record-midi FILE.mid`,
/// `drumbrain replay --midi-out FILE.mid`): format 0, one track, 120 BPM at 1,920 ticks a
/// quarter note (a tick is 0.26 ms), each hit a note-on at the time its sound starts and a
/// note-off 100 ms later (or just before the same note's next note-on).
///
/// Written safely: the whole file is written to `FILE.mid.part` and renamed over `FILE.mid`,
/// so an interrupt or a crash leaves the last complete file, never a half-written one. While
/// recording, that happens when a note comes `flushMicros` (0.5 s) or more after the last
/// write, and when `flushIfDue` finds notes not yet written that long after it (the brain calls
/// it every 0.25 s), and once more at `finish()`: a crash loses at most the last half second.
///
/// Thread safety: any thread (a mutex; the brain's printer thread adds, a timer flushes). Not
/// for the audio thread: it writes files.
public final class MIDIFileRecorder: Sendable {
    /// One note: when it starts (µs from the recording's start), its note, velocity, channel.
    public struct Note: Sendable, Equatable {
        public var micros: Int64
        public var note: UInt8
        public var velocity: UInt8
        /// 0...15 (channel 10 is 9).
        public var channel: UInt8

        public init(micros: Int64, note: UInt8, velocity: UInt8, channel: UInt8) {
            self.micros = micros
            self.note = note
            self.velocity = velocity
            self.channel = channel
        }
    }

    /// Ticks per quarter note.
    public static let division = 1_920
    /// µs per quarter note (120 BPM).
    public static let tempoMicros = 500_000
    /// How long each note lasts, µs.
    public static let lengthMicros: Int64 = 100_000

    /// The file written.
    public let path: String
    /// The least time between two writes while recording, µs.
    public let flushMicros: Int64

    private struct State {
        var notes: [Note] = []
        var written = 0
        var lastFlush: Int64 = .min
    }
    private let state = Mutex(State())

    /// A recorder for `path`; nothing is written until the first note (and `finish`).
    public init(path: String, flushMicros: Int64 = 500_000) {
        self.path = path
        self.flushMicros = flushMicros
    }

    /// Adds a note; writes the file if the last write is `flushMicros` old. Throws only if the
    /// file cannot be written.
    public func add(_ note: Note, nowMicros: Int64) throws(MIDIFileError) {
        try state.withLock { (s: inout State) throws(MIDIFileError) in
            s.notes.append(note)
            if nowMicros.saturatingSubtract(s.lastFlush) >= flushMicros {
                try write(&s)
                s.lastFlush = nowMicros
            }
        }
    }

    /// Writes the notes not yet written if the last write is `flushMicros` old.
    public func flushIfDue(nowMicros: Int64) throws(MIDIFileError) {
        try state.withLock { (s: inout State) throws(MIDIFileError) in
            guard s.written != s.notes.count, nowMicros.saturatingSubtract(s.lastFlush) >= flushMicros else { return }
            try write(&s)
            s.lastFlush = nowMicros
        }
    }

    /// Writes the file with everything added.
    public func finish() throws(MIDIFileError) {
        try state.withLock { (s: inout State) throws(MIDIFileError) in
            if s.written != s.notes.count || s.written == 0 { try write(&s) }
        }
    }

    /// The notes recorded so far.
    public var count: Int { state.withLock { $0.notes.count } }

    private func write(_ s: inout State) throws(MIDIFileError) {
        let bytes = Self.encode(s.notes)
        let part = path + ".part"
        guard let file = fopen(part, "wb") else { throw .cannotWrite(path: part, reason: String(cString: strerror(errno))) }
        let done = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == bytes.count
        let flushed = fflush(file) == 0 && fsync(fileno(file)) == 0
        fclose(file)
        guard done && flushed else {
            unlink(part)
            throw .cannotWrite(path: part, reason: String(cString: strerror(errno)))
        }
        guard rename(part, path) == 0 else {
            throw .cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
        s.written = s.notes.count
    }

    /// The file's bytes: header, one track with its tempo, the notes' on and off events in time
    /// order, end of track.
    public static func encode(_ notes: [Note]) -> [UInt8] {
        // Each note's off: 100 ms on, or 1 tick before the same note (and channel) sounds again.
        var events: [(tick: Int64, order: Int, bytes: [UInt8])] = []
        let sorted = notes.enumerated().sorted { ($0.element.micros, $0.offset) < ($1.element.micros, $1.offset) }.map(\.element)
        for (i, note) in sorted.enumerated() {
            let on = ticks(max(0, note.micros))
            var off = ticks(max(0, note.micros).saturatingAdd(lengthMicros))
            if let next = sorted[(i + 1)...].first(where: { $0.note == note.note && $0.channel == note.channel }) {
                off = min(off, max(on, ticks(max(0, next.micros)) - 1))
            }
            let channel = note.channel & 0x0F
            events.append((on, 1, [0x90 | channel, note.note & 0x7F, max(1, note.velocity & 0x7F)]))
            events.append((off, 0, [0x80 | channel, note.note & 0x7F, 0x40]))
        }
        // At one tick, offs before ons: a note ended and struck again in the same tick plays.
        events.sort { ($0.tick, $0.order) < ($1.tick, $1.order) }
        var track: [UInt8] = [0x00, 0xFF, 0x51, 0x03,
                              UInt8(tempoMicros >> 16 & 0xFF), UInt8(tempoMicros >> 8 & 0xFF), UInt8(tempoMicros & 0xFF)]
        var last: Int64 = 0
        for event in events {
            track += variableLength(event.tick - last)
            track += event.bytes
            last = event.tick
        }
        track += [0x00, 0xFF, 0x2F, 0x00]
        var file: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, UInt8(division >> 8), UInt8(division & 0xFF)]
        file += Array("MTrk".utf8) + bigEndian32(track.count) + track
        return file
    }

    /// The tick at `micros`.
    static func ticks(_ micros: Int64) -> Int64 {
        // Saturating: a note 5·10⁹ s on (a log's clock) overflowed the product and trapped; the
        // delta it makes is held at the largest a file takes (`variableLength`) anyway.
        micros.saturatingMultiply(Int64(division)).saturatingAdd(Int64(tempoMicros) / 2) / Int64(tempoMicros)
    }

    static func variableLength(_ value: Int64) -> [UInt8] {
        var v = UInt64(max(0, min(value, 0x0FFF_FFFF)))
        var bytes = [UInt8(v & 0x7F)]
        v >>= 7
        while v > 0 {
            bytes.insert(UInt8(v & 0x7F) | 0x80, at: 0)
            v >>= 7
        }
        return bytes
    }

    static func bigEndian32(_ value: Int) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }
}

/// A MIDI file that could not be written.
public enum MIDIFileError: Error, CustomStringConvertible {
    case cannotWrite(path: String, reason: String)

    public var description: String {
        switch self {
        case .cannotWrite(let path, let reason): "cannot write the MIDI file \(path): \(reason)"
        }
    }
}

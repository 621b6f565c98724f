/// A note-on that came in from a MIDI source (`drumbrain --midi-in jack|alsa`): what a MIDI
/// input hands the brain through a ring, a plain value so that JACK's process thread can push
/// it without touching a reference count.
public struct MIDIInEvent: Sendable, Equatable {
    /// The note, 0…127.
    public var note: UInt8
    /// Its velocity, 1…127 (a note-on of velocity 0 is a note-off and never becomes one).
    public var velocity: UInt8
    /// Its channel, 0…15.
    public var channel: UInt8
    /// When it was played, on the brain's monotonic clock, µs.
    public var micros: Int64

    /// Creates an event.
    public init(note: UInt8, velocity: UInt8, channel: UInt8, micros: Int64) {
        self.note = note
        self.velocity = velocity
        self.channel = channel
        self.micros = micros
    }

    /// The note-on in a MIDI message's first three bytes, or nil for anything else (note-offs,
    /// a note-on of velocity 0, controllers, system messages, data bytes out of range).
    @inline(__always)
    public static func noteOn(status: UInt8, note: UInt8, velocity: UInt8, micros: Int64) -> MIDIInEvent? {
        guard status & 0xF0 == 0x90, note < 128, velocity > 0, velocity < 128 else { return nil }
        return MIDIInEvent(note: note, velocity: velocity, channel: status & 0x0F, micros: micros)
    }
}

import ArgumentParser
import BrainCore
import DrumAudio

/// How the brain's hits become MIDI (`--midi-channel`, `--midi-curve`), for the live brain and
/// `drumbrain replay` alike.
struct MIDIOptions: ParsableArguments {
    @Option(help: "The MIDI channel hits are sent on, 1…16 (default 10, General MIDI's drums).")
    var midiChannel: Int = 10

    @Option(help: "How a hit's velocity becomes a MIDI velocity 1…127: linear, log (soft hits louder) or exp (soft hits softer).")
    var midiCurve: GeneralMIDI.VelocityCurve = .linear

    func validate() throws {
        guard (1...16).contains(midiChannel) else { throw ValidationError("--midi-channel must be 1…16, such as 10") }
    }

    /// The channel and curve, to take to another thread.
    var mapping: MIDIMapping { MIDIMapping(channel: UInt8(midiChannel - 1), curve: midiCurve) }
}

/// How a hit becomes a MIDI note: channel (0…15) and velocity curve.
struct MIDIMapping: Sendable {
    var channel: UInt8
    var curve: GeneralMIDI.VelocityCurve

    /// The note for a hit on drum `drum` of `notes` (a kit's drums' notes) whose sound starts
    /// `micros` into the output, or nil if that drum has no note.
    func note(drum: Int, velocity: Float, micros: Int64, notes: [UInt8?]) -> MIDIFileRecorder.Note? {
        guard notes.indices.contains(drum), let note = notes[drum] else { return nil }
        return MIDIFileRecorder.Note(micros: micros, note: note, velocity: GeneralMIDI.velocity(velocity, curve: curve),
                                     channel: channel)
    }
}

extension GeneralMIDI.VelocityCurve: ExpressibleByArgument {}

import CJack
import DrumAudio
import SPSCRing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The brain as a JACK client (`drumbrain --output jack`, with jackd or PipeWire's JACK): two
/// audio output ports, `out_left` and `out_right`, connected to the system's playback ports
/// when there are any, and with `--midi-out jack` a MIDI output port, `midi_out`, carrying a
/// note-on for every hit at the frame where its sound starts in the audio (and its note-off
/// 100 ms later, or just before the same note's next hit), so MIDI and audio agree to the
/// sample. With `--midi-in jack`, a MIDI input port, `midi_in`: each note-on that comes in is
/// handed on (`midiIn`) with the time of its frame, one period earlier (JACK's convention: what
/// arrives in a period was played during the one before), so its spacing is kept to the sample.
///
/// JACK's process callback is the audio thread: it renders the mixer (`AudioEngine.
/// renderExternal`) and writes the MIDI events, and never allocates, locks, logs or does I/O
/// (DESIGN.md §9); the note-offs waiting are a fixed table. Xruns are counted as the engine's
/// underruns; a server that goes away stops the engine's output with an error.
///
/// Thread safety: open, start and stop from the control side; the callbacks on JACK's threads.
public final class JACKOutput: @unchecked Sendable {
    // @unchecked: the ports and the note-off table are written in `start` before activation and
    // then touched only by JACK's process thread; `client` is closed after deactivation.

    /// What went wrong talking to JACK.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The client's name as the server knows it (it may add a suffix).
    public let name: String
    /// The server's sample rate and period, frames.
    public let sampleRate: Int
    public let periodFrames: Int
    private let client: OpaquePointer
    private var left: OpaquePointer?
    private var right: OpaquePointer?
    private var midi: OpaquePointer?
    private var midiInPort: OpaquePointer?
    /// The note-ons that came in on `midi_in`, for one consumer thread (`MIDIInput`); full, the
    /// rest of a burst is dropped and counted (`refusedCount`).
    public let midiIn = SPSCRing<MIDIInEvent>(capacity: 1024)
    /// Note-ons written to `midi_out`, and events JACK's port buffer refused (full), so far.
    private let noteOnsWritten = Atomic<Int>(0)
    private let eventsRefused = Atomic<Int>(0)
    private var engine: AudioEngine?
    private var channel: UInt8 = 9
    private var curve = GeneralMIDI.VelocityCurve.linear
    /// Note-offs waiting: note and frames until due.
    private let offNotes: UnsafeMutablePointer<UInt8>
    private let offDue: UnsafeMutablePointer<Int>
    private var offCount = 0
    private static let offCapacity = 256
    /// A period's events, sorted by frame before they are written.
    private let events: UnsafeMutablePointer<(offset: UInt32, status: UInt8, note: UInt8, velocity: UInt8)>
    private static let eventCapacity = 512
    private var active = false
    /// One MIDI message's bytes, written from here.
    private let message: UnsafeMutablePointer<jack_midi_data_t>
    /// Events gathered in the period being processed.
    private var eventCount = 0
    /// How long a note sounds before its note-off, frames.
    private let noteFrames: Int
    #if DEBUG
    /// Test builds only: called on JACK's process thread as each period begins (true) and ends
    /// (false), so a test can count allocations there. Set before `start`.
    public nonisolated(unsafe) var aroundProcessForTesting: ((Bool) -> Void)?
    #endif

    /// Connects to the running JACK server as `name`. Throws if there is none (it is never
    /// started from here).
    public init(name: String) throws(Failure) {
        var status = jack_status_t(rawValue: 0)
        guard let client = CJack_open(name, &status) else {
            throw Failure(description: "cannot connect to a JACK server (status 0x\(String(status.rawValue, radix: 16))): "
                          + "start jackd, or PipeWire with its JACK support, first")
        }
        self.client = client
        self.name = String(cString: jack_get_client_name(client))
        sampleRate = Int(jack_get_sample_rate(client))
        periodFrames = Int(jack_get_buffer_size(client))
        noteFrames = max(1, sampleRate / 10)
        offNotes = .allocate(capacity: Self.offCapacity)
        offNotes.initialize(repeating: 0, count: Self.offCapacity)
        offDue = .allocate(capacity: Self.offCapacity)
        offDue.initialize(repeating: 0, count: Self.offCapacity)
        message = .allocate(capacity: 3)
        message.initialize(repeating: 0, count: 3)
        events = .allocate(capacity: Self.eventCapacity)
        events.initialize(repeating: (0, 0, 0, 0), count: Self.eventCapacity)
    }

    deinit {
        if active { jack_deactivate(client) }
        jack_client_close(client)
        offNotes.deallocate()
        offDue.deallocate()
        events.deallocate()
        message.deallocate()
    }

    /// Registers the ports, starts the callbacks rendering `engine` (started, output `.jack`,
    /// at the server's rate and period), and connects the audio ports to the system's playback
    /// ports if there are any. `midiChannel` is 0…15. Returns the ports connected to.
    @discardableResult
    public func start(engine: AudioEngine, midiOut: Bool, midiIn: Bool = false, midiChannel: UInt8 = 9,
                      curve: GeneralMIDI.VelocityCurve = .linear) throws(Failure) -> [String] {
        guard let left = jack_port_register(client, "out_left", CJack_audio_type(), UInt(JackPortIsOutput.rawValue), 0),
              let right = jack_port_register(client, "out_right", CJack_audio_type(), UInt(JackPortIsOutput.rawValue), 0)
        else { throw Failure(description: "JACK refused the brain's audio ports") }
        self.left = left
        self.right = right
        if midiOut {
            guard let port = jack_port_register(client, "midi_out", CJack_midi_type(), UInt(JackPortIsOutput.rawValue), 0)
            else { throw Failure(description: "JACK refused the brain's MIDI port") }
            midi = port
        }
        if midiIn {
            guard let port = jack_port_register(client, "midi_in", CJack_midi_type(), UInt(JackPortIsInput.rawValue), 0)
            else { throw Failure(description: "JACK refused the brain's MIDI input port") }
            midiInPort = port
        }
        self.engine = engine
        channel = midiChannel & 0x0F
        self.curve = curve
        let me = Unmanaged.passUnretained(self).toOpaque()
        jack_set_process_callback(client, { frames, argument in
            Unmanaged<JACKOutput>.fromOpaque(argument!).takeUnretainedValue().process(Int(frames))
            return 0
        }, me)
        jack_set_xrun_callback(client, { argument in
            Unmanaged<JACKOutput>.fromOpaque(argument!).takeUnretainedValue().engine?.externalXrun()
            return 0
        }, me)
        jack_on_shutdown(client, { argument in
            Unmanaged<JACKOutput>.fromOpaque(argument!).takeUnretainedValue().engine?.externalFailed()
        }, me)
        guard jack_activate(client) == 0 else { throw Failure(description: "JACK would not activate the brain's client") }
        active = true
        engine.externalRealtime(jack_is_realtime(client) != 0)
        var connected: [String] = []
        if let ports = jack_get_ports(client, nil, CJack_audio_type(), UInt(JackPortIsPhysical.rawValue | JackPortIsInput.rawValue)) {
            defer { jack_free(ports) }
            var names: [String] = []
            var i = 0
            while let port = ports[i] {
                names.append(String(cString: port))
                i += 1
            }
            for (own, target) in zip([left, right], names.isEmpty ? [] : [names[0], names.count > 1 ? names[1] : names[0]]) {
                if jack_connect(client, jack_port_name(own), target) == 0 { connected.append(target) }
            }
        }
        return connected
    }

    /// Stops the callbacks (the engine renders no more periods); idempotent.
    public func stop() {
        guard active else { return }
        jack_deactivate(client)
        active = false
    }

    /// Note-ons written to `midi_out` so far, and events its buffer refused. Any thread.
    public var midiOutCounts: (noteOns: Int, refused: Int) {
        (noteOnsWritten.load(ordering: .relaxed), eventsRefused.load(ordering: .relaxed))
    }

    /// The port's full name, such as `drumbrain:midi_out`.
    public func portName(_ short: String) -> String { "\(name):\(short)" }

    /// Adds an event at `offset` (held within the period) to the period's list. Process thread.
    @inline(__always)
    private func addEvent(_ offset: Int, _ status: UInt8, _ note: UInt8, _ velocity: UInt8, frames: Int) {
        guard eventCount < Self.eventCapacity else { return }
        events[eventCount] = (UInt32(max(0, min(frames - 1, offset))), status, note, velocity)
        eventCount += 1
    }

    /// Removes the waiting note-off at `index` (the last one takes its place). Process thread.
    @inline(__always)
    private func dropOff(at index: Int) {
        offCount -= 1
        offNotes[index] = offNotes[offCount]
        offDue[index] = offDue[offCount]
    }

    /// The note-ons of this period on `port` into `midiIn`, each at the time of its frame a
    /// period earlier. Process thread; no allocation (the event is read into a local).
    @inline(__always)
    private func takeNotes(_ port: OpaquePointer, frames: Int, periodStart: Int64, engine: AudioEngine) {
        guard let buffer = jack_port_get_buffer(port, jack_nframes_t(frames)) else { return }
        let count = jack_midi_get_event_count(buffer)
        guard count > 0 else { return }
        var event = jack_midi_event_t()
        for index in 0..<count {
            guard jack_midi_event_get(&event, buffer, index) == 0, event.size >= 3, let bytes = event.buffer,
                  let micros = engine.micros(atFrame: periodStart + Int64(event.time) - Int64(frames)),
                  let note = MIDIInEvent.noteOn(status: bytes[0], note: bytes[1], velocity: bytes[2], micros: micros)
            else { continue }
            midiIn.push(note)
        }
    }

    /// JACK's process callback: the mix, then the MIDI events at their frames.
    /// Real-time safety: no allocation, lock, log or I/O.
    private func process(_ frames: Int) {
        #if DEBUG
        aroundProcessForTesting?(true)
        defer { aroundProcessForTesting?(false) }
        #endif
        guard let engine, let left, let right,
              let l = jack_port_get_buffer(left, jack_nframes_t(frames))?.assumingMemoryBound(to: Float.self),
              let r = jack_port_get_buffer(right, jack_nframes_t(frames))?.assumingMemoryBound(to: Float.self)
        else { return }
        let start = engine.renderExternal(frames: frames, left: l, right: r)
        if let midiInPort, let start { takeNotes(midiInPort, frames: frames, periodStart: start, engine: engine) }
        guard let midi, let buffer = jack_port_get_buffer(midi, jack_nframes_t(frames)) else { return }
        jack_midi_clear_buffer(buffer)
        eventCount = 0
        // Note-offs that fall in this period; the rest wait.
        var i = 0
        while i < offCount {
            if offDue[i] < frames {
                addEvent(offDue[i], 0x80 | channel, offNotes[i], 64, frames: frames)
                dropOff(at: i)
            } else {
                offDue[i] -= frames
                i += 1
            }
        }
        for s in 0..<engine.mixer.startsInLastPeriod {
            let start = engine.mixer.startInLastPeriod(s)
            guard start.note >= 0 && start.note <= 127 else { continue }
            let note = UInt8(start.note), offset = Int(start.offset)
            // The same note still sounding ends just before it sounds again.
            var j = 0
            while j < offCount {
                if offNotes[j] == note {
                    addEvent(offset, 0x80 | channel, note, 64, frames: frames)
                    dropOff(at: j)
                } else {
                    j += 1
                }
            }
            addEvent(offset, 0x90 | channel, note, GeneralMIDI.velocity(start.velocity, curve: curve), frames: frames)
            if offset + noteFrames < frames {
                addEvent(offset + noteFrames, 0x80 | channel, note, 64, frames: frames)
            } else if offCount < Self.offCapacity {
                offNotes[offCount] = note
                offDue[offCount] = offset + noteFrames - frames  // frames into a later period
                offCount += 1
            }
        }
        let count = eventCount
        // In frame order (offs before ons at one frame, as they were added), then written.
        if count > 1 {
            for a in 1..<count {
                let event = events[a]
                var b = a
                while b > 0 && events[b - 1].offset > event.offset {
                    events[b] = events[b - 1]
                    b -= 1
                }
                events[b] = event
            }
        }
        var ons = 0, refused = 0
        for e in 0..<count {
            message[0] = events[e].status
            message[1] = events[e].note
            message[2] = events[e].velocity
            if jack_midi_event_write(buffer, events[e].offset, message, 3) != 0 {
                refused += 1
            } else if events[e].status & 0xF0 == 0x90 {
                ons += 1
            }
        }
        if ons > 0 { noteOnsWritten.wrappingAdd(ons, ordering: .relaxed) }
        if refused > 0 { eventsRefused.wrappingAdd(refused, ordering: .relaxed) }
    }
}

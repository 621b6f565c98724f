import CALSA
import Monotonic
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The brain on the ALSA sequencer (`drumbrain --midi-out alsa`, `--midi-in alsa`), for users
/// without JACK: a client named after the brain with a readable, subscribable port `midi out`
/// (as Hydrogen and DrumGizmo show theirs: `aconnect`, `aseqdump -p`, a synth's own connection
/// list) and a writable, subscribable port `midi in`.
///
/// Out: each note is scheduled on the client's own queue at the real time given (the moment
/// its sound leaves the sound card), and its note-off 100 ms later; the kernel's sequencer
/// delivers it then, whoever is subscribed. In: a thread of its own waits on the sequencer and
/// hands each note-on, timed on arrival, to `onNote`.
///
/// Thread safety: `send` from any thread (serialised); `onNote` runs on the input thread.
public final class ALSASequencer: @unchecked Sendable {
    // @unchecked: `handle` is used for output under `sending` and for input only by the input
    // thread (alsa-lib keeps the two directions' buffers apart); the rest is fixed at init.

    /// What went wrong with the sequencer.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The client's number (the `128` of `128:0`).
    public let client: Int32
    /// The output port's number, or nil without output.
    public let outPort: Int32?
    /// The input port's number, or nil without input.
    public let inPort: Int32?
    private let handle: OpaquePointer
    private let queue: Int32
    /// The monotonic time, µs, at which the queue's real time was 0.
    private let queueStartMicros: Int64
    private let sending = Mutex(())
    /// Notes sent later than their time (sent at once), and notes the sequencer refused.
    private let lateCount = Atomic<Int>(0)
    private let failedCount = Atomic<Int>(0)
    private let stopFD: Int32
    private var onNote: (@Sendable (MIDIInEvent) -> Void)?
    private var inputThread: pthread_t?

    /// Opens the sequencer as client `name` with the ports asked for. Throws with what to do
    /// when there is no sequencer (no `/dev/snd/seq`: the `snd-seq` module not loaded).
    public init(name: String, output: Bool, input: Bool) throws(Failure) {
        precondition(output || input, "a port of some kind")
        CALSA_silence_errors()
        var opened: OpaquePointer?
        let mode = output && input ? SND_SEQ_OPEN_DUPLEX : (output ? SND_SEQ_OPEN_OUTPUT : SND_SEQ_OPEN_INPUT)
        let result = snd_seq_open(&opened, "default", mode, 0)
        guard result >= 0, let handle = opened else {
            throw Failure(description: "cannot open the ALSA sequencer (\(String(cString: snd_strerror(result)))): "
                          + "is the snd-seq kernel module loaded (`modprobe snd-seq`, /dev/snd/seq)?")
        }
        self.handle = handle
        func fail(_ what: String, _ code: Int32) -> Failure {
            snd_seq_close(handle)
            return Failure(description: "ALSA sequencer: \(what): \(String(cString: snd_strerror(code)))")
        }
        snd_seq_set_client_name(handle, name)
        client = snd_seq_client_id(handle)
        // A port of the client: readable by subscribers (out) or writable by them (in).
        func port(_ name: String, _ capabilities: Int32, wanted: Bool) throws(Failure) -> Int32? {
            guard wanted else { return nil }
            let made = snd_seq_create_simple_port(handle, name, UInt32(capabilities),
                                                  UInt32(SND_SEQ_PORT_TYPE_MIDI_GENERIC | SND_SEQ_PORT_TYPE_APPLICATION))
            guard made >= 0 else { throw fail("cannot create the port \"\(name)\"", made) }
            return made
        }
        outPort = try port("midi out", SND_SEQ_PORT_CAP_READ | SND_SEQ_PORT_CAP_SUBS_READ, wanted: output)
        inPort = try port("midi in", SND_SEQ_PORT_CAP_WRITE | SND_SEQ_PORT_CAP_SUBS_WRITE, wanted: input)
        if output {
            let made = snd_seq_alloc_named_queue(handle, name)
            guard made >= 0 else { throw fail("cannot allocate a queue", made) }
            queue = made
            let started = CALSA_seq_start_queue(handle, made)
            guard started >= 0 else { throw fail("cannot start the queue", started) }
            snd_seq_drain_output(handle)
        } else {
            queue = -1
        }
        queueStartMicros = MonotonicClock.nowMicros()
        stopFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        snd_seq_nonblock(handle, 1)
    }

    deinit {
        stopInput()
        snd_seq_close(handle)
        if stopFD >= 0 { Glibc.close(stopFD) }
    }

    /// The address of a port as `aconnect` and `aseqdump -p` take it, such as `128:0`.
    public func address(_ port: Int32) -> String { "\(client):\(port)" }

    /// Notes sent after their time (at once instead), so far.
    public var lateNotes: Int { lateCount.load(ordering: .relaxed) }
    /// Notes the sequencer would not take, so far.
    public var failedNotes: Int { failedCount.load(ordering: .relaxed) }

    /// Sends `note` (velocity 1…127) on `channel` (0…15) from the output port at monotonic time
    /// `atMicros`, and its note-off `lengthMicros` later; a time already past sends it at once
    /// (counted late). Returns false if the sequencer refused it.
    @discardableResult
    public func send(note: UInt8, velocity: UInt8, channel: UInt8, atMicros: Int64, lengthMicros: Int64 = 100_000) -> Bool {
        guard let outPort else { return false }
        let now = MonotonicClock.nowMicros()
        let due = atMicros > now ? atMicros.saturatingSubtract(queueStartMicros) : -1
        if due < 0 { lateCount.wrappingAdd(1, ordering: .relaxed) }
        let off = (due < 0 ? now.saturatingSubtract(queueStartMicros) : due).saturatingAdd(lengthMicros)
        let ok = sending.withLock { _ -> Bool in
            let on = CALSA_seq_note(handle, outPort, queue, channel & 0x0F, note & 0x7F, min(127, max(1, velocity)), 1,
                                    due < 0 ? -1 : due.saturatingMultiply(1_000))
            let done = CALSA_seq_note(handle, outPort, queue, channel & 0x0F, note & 0x7F, 0, 0, off.saturatingMultiply(1_000))
            return on >= 0 && done >= 0 && snd_seq_drain_output(handle) >= 0
        }
        if !ok { failedCount.wrappingAdd(1, ordering: .relaxed) }
        return ok
    }

    /// Starts the input thread: each note-on on the input port, timed as it arrives, goes to
    /// `onNote` (velocity 0 and every other event are passed over). Once.
    public func startInput(_ onNote: @escaping @Sendable (MIDIInEvent) -> Void) {
        precondition(inPort != nil && inputThread == nil, "an input port, started once")
        self.onNote = onNote
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { argument in
            let sequencer = Unmanaged<ALSASequencer>.fromOpaque(argument!).takeRetainedValue()
            sequencer.readLoop()
            return nil
        }, box.toOpaque())
        if created == 0 { inputThread = thread } else { box.release() }
    }

    /// Stops the input thread and waits for it; idempotent.
    public func stopInput() {
        guard let thread = inputThread else { return }
        inputThread = nil
        var one: UInt64 = 1
        _ = Glibc.write(stopFD, &one, 8)
        pthread_join(thread, nil)
    }

    private func readLoop() {
        let count = Int(snd_seq_poll_descriptors_count(handle, Int16(POLLIN)))
        var fds = [pollfd](repeating: pollfd(), count: count + 1)
        fds.withUnsafeMutableBufferPointer { buffer in
            _ = snd_seq_poll_descriptors(handle, buffer.baseAddress, UInt32(count), Int16(POLLIN))
            buffer[count] = pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0)
        }
        var channel: UInt8 = 0, note: UInt8 = 0, velocity: UInt8 = 0
        while true {
            let ready = poll(&fds, nfds_t(fds.count), 1_000)
            if ready < 0 && errno != EINTR { return }
            if fds[count].revents != 0 { return }
            // Everything waiting (until -EAGAIN), then back to poll.
            while true {
                let read = CALSA_seq_read_note(handle, &channel, &note, &velocity)
                if read == -ENOSPC { continue }  // the kernel's input pool overran: those events are lost; go on
                if read < 0 { break }
                if read == 1, let event = MIDIInEvent.noteOn(status: 0x90 | (channel & 0x0F), note: note, velocity: velocity,
                                                              micros: MonotonicClock.nowMicros()) {
                    onNote?(event)
                }
            }
        }
    }
}

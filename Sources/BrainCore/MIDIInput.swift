import DrumAudio
import DrumNet
import Monotonic
import SPSCRing
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// MIDI in (`drumbrain --midi-in jack|alsa`): an e-drum module, a sequencer or a DAW plays the
/// brain's kit, mixed with the pads. Each note-on becomes a hit like one from the network, on
/// the drum the kit has on that note (or, failing that, on the note General MIDI says it
/// stands for: an electric snare plays the snare), its velocity through the inverse of
/// `--midi-curve`, and goes through the network thread's decisions (`BrainServer.inject`), so
/// it is timed, printed, drawn and recorded as any hit, as pad `midi-in`.
///
/// Its strike time is the note's own: JACK's frame, or its arrival from the ALSA sequencer. So
/// the brain's one latency from strike to sound holds for MIDI too, and a MIDI source and the
/// pads stay in time with each other.
///
/// Thread safety: `hits` and `deliver` from one thread at a time (the input's); `setKit` and
/// the counters from any.
public final class MIDIInput: Sendable {
    /// The pad name its hits carry.
    public static let padName = "midi-in"
    /// The connection number its hits carry (connections are numbered from 1).
    public static let connectionID = 0

    private struct KitNotes {
        var names: [String]
        var notes: [UInt8?]
    }

    private let kit: Mutex<KitNotes>
    private let curve: GeneralMIDI.VelocityCurve
    private let inject: @Sendable ([ReceivedHit]) -> Void
    private let onUnmapped: @Sendable (UInt8) -> Void
    private let playedCount = Atomic<Int>(0)
    private let unmappedCount = Atomic<Int>(0)
    /// Notes that had no drum, said once each.
    private let unmappedNotes = Mutex<Set<UInt8>>([])

    /// A MIDI input for a kit whose drums are `names` on `notes` (in order); `inject` takes the
    /// hits to the network thread; `onUnmapped` is told once for each note the kit has no drum
    /// for.
    public init(names: [String], notes: [UInt8?], curve: GeneralMIDI.VelocityCurve,
                inject: @escaping @Sendable ([ReceivedHit]) -> Void,
                onUnmapped: @escaping @Sendable (UInt8) -> Void = { _ in }) {
        kit = Mutex(KitNotes(names: names, notes: notes))
        self.curve = curve
        self.inject = inject
        self.onUnmapped = onUnmapped
    }

    /// A new kit's drums and notes (after a reload).
    public func setKit(names: [String], notes: [UInt8?]) {
        kit.withLock { $0 = KitNotes(names: names, notes: notes) }
    }

    /// Note-ons that became hits, so far.
    public var played: Int { playedCount.load(ordering: .relaxed) }
    /// Note-ons on notes the kit has no drum for, so far.
    public var unmapped: Int { unmappedCount.load(ordering: .relaxed) }

    /// The hits `events` make, received at `nowMicros`; notes without a drum are counted (and
    /// said once each) and left out.
    public func hits(_ events: [MIDIInEvent], nowMicros: Int64) -> [ReceivedHit] {
        let (names, notes) = kit.withLock { ($0.names, $0.notes) }
        var hits: [ReceivedHit] = []
        hits.reserveCapacity(events.count)
        for event in events {
            guard let drum = GeneralMIDI.drum(forNote: event.note, notes: notes), names.indices.contains(drum) else {
                unmappedCount.wrappingAdd(1, ordering: .relaxed)
                if unmappedNotes.withLock({ $0.insert(event.note).inserted }) { onUnmapped(event.note) }
                continue
            }
            // Its lateness: how long ago it was played, never negative (a JACK event dated
            // ahead of the clock by a rounding is played now, not in the future).
            let lateness = max(0, nowMicros.saturatingSubtract(event.micros))
            hits.append(ReceivedHit(hit: DrumHit(drum: names[drum], velocity: GeneralMIDI.hitVelocity(midi: event.velocity, curve: curve)),
                                    connectionID: Self.connectionID, padName: Self.padName, receivedMicros: nowMicros,
                                    latencyMicros: lateness))
        }
        playedCount.wrappingAdd(hits.count, ordering: .relaxed)
        return hits
    }

    /// Plays `events`: their hits to the network thread.
    public func deliver(_ events: [MIDIInEvent]) {
        let hits = hits(events, nowMicros: MonotonicClock.nowMicros())
        if !hits.isEmpty { inject(hits) }
    }

    /// Takes note-ons from `ring` (JACK's process thread fills it) every millisecond and plays
    /// them, on a thread of its own, until `stop` is called on the returned handle.
    public func follow(_ ring: SPSCRing<MIDIInEvent>) -> Follower {
        let follower = Follower()
        let thread = JoinableThread(name: "drumbrain-midi-in") { [self] in
            var batch: [MIDIInEvent] = []
            while !follower.stopping.load(ordering: .relaxed) {
                while let event = ring.pop() { batch.append(event) }
                if !batch.isEmpty {
                    deliver(batch)
                    batch.removeAll(keepingCapacity: true)
                }
                usleep(1_000)
            }
        }
        follower.thread = thread
        return follower
    }

    /// The thread that follows a ring; `stop` ends it and waits.
    public final class Follower: @unchecked Sendable {
        // @unchecked: `thread` is set once before anyone can call `stop`.
        let stopping = Atomic<Bool>(false)
        var thread: JoinableThread?

        /// Ends the thread and waits for it; idempotent.
        public func stop() {
            guard !stopping.exchange(true, ordering: .relaxed) else { return }
            thread?.join()
        }
    }
}

/// A joinable POSIX thread running a closure (Foundation's `Thread` is not used in the brain).
final class JoinableThread: @unchecked Sendable {
    // @unchecked: `handle` is written once, before the thread can be joined.
    private var handle = pthread_t()

    init(name: String, _ body: @escaping @Sendable () -> Void) {
        final class Box: @unchecked Sendable {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        let box = Unmanaged.passRetained(Box(body))
        let created = pthread_create(&handle, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body()
            return nil
        }, box.toOpaque())
        precondition(created == 0, "cannot start thread \(name): \(String(cString: strerror(created)))")
    }

    func join() { pthread_join(handle, nil) }
}

#if canImport(SPSCRing)  // scripts/fuzz compiles the ring's source into this module instead
@_exported import SPSCRing  // HitQueue and StartedQueue are its rings; users of DrumAudio need its members
#endif

/// A hit for the mixer: which drum, how hard, and when.
public struct ScheduledHit: Sendable, Equatable, BitwiseCopyable {
    /// Index into the kit's drums.
    public var drum: Int32
    /// 0...1.
    public var velocity: Float
    /// The output frame to start at, or `ScheduledHit.now` for the start of the next period.
    public var frame: Int64
    /// The caller's number for this hit (0: none); a started hit with a number is reported on
    /// the mixer's `started` queue.
    public var id: UInt32
    /// The kit generation `drum` indexes (0: whichever kit is playing). After a kit swap, hits
    /// resolved against the old kit are dropped and counted rather than played on the wrong drum.
    public var kitGeneration: UInt32

    /// Start at the beginning of the next render period.
    public static let now: Int64 = -1

    /// Not a hit: takes back the waiting hit numbered `id` (crosstalk shown up by a louder hit
    /// that arrived after it), unless it has started. Queued behind the hit itself, so it never
    /// overtakes it.
    public static func takeBack(id: UInt32) -> ScheduledHit {
        ScheduledHit(drum: -1, velocity: 0, id: id)
    }

    /// Whether this is a `takeBack(id:)`.
    public var isTakeBack: Bool { drum < 0 }

    /// Creates a hit.
    public init(drum: Int32, velocity: Float, frame: Int64 = ScheduledHit.now, id: UInt32 = 0,
                kitGeneration: UInt32 = 0) {
        self.drum = drum
        self.velocity = velocity
        self.frame = frame
        self.id = id
        self.kitGeneration = kitGeneration
    }
}

/// The ring of hits the network side pushes and the audio thread pops (see `SPSCRing`).
public typealias HitQueue = SPSCRing<ScheduledHit>

/// A hit the mixer started: its number, the output frame of its first sample, the frame it asked
/// for, and the monotonic time (µs) at which the period holding that frame was rendered, just
/// before it went out.
public struct StartedHit: Sendable, Equatable, BitwiseCopyable {
    /// The number given in `ScheduledHit.id`.
    public var id: UInt32
    /// Output frame of the first sample.
    public var frame: Int64
    /// Monotonic µs when its period was rendered.
    public var renderedMicros: Int64
    /// The frame the hit asked for (`ScheduledHit.frame`; `ScheduledHit.now` for none).
    public var requestedFrame: Int64 = ScheduledHit.now

    /// Frames it started after the frame it asked for: non-zero when it reached the audio thread
    /// after its slot had been rendered (it arrived later than the jitter buffer allows).
    public var lateFrames: Int64 { requestedFrame < 0 ? 0 : max(0, frame - requestedFrame) }

    /// What became of a numbered hit: every one the mixer took from its queue is reported once,
    /// so the control side never waits for a start that will not come.
    public enum Outcome: Sendable, Equatable {
        /// It sounds from `frame`.
        case started
        /// Taken back before it started (`ScheduledHit.takeBack`): crosstalk shown up later.
        case takenBack
        /// Dropped: the mixer already held as many waiting hits as it can.
        case dropped
        /// Dropped: resolved against a kit that was swapped out before it played.
        case stale
        /// Dropped: its drum index is not in the playing kit.
        case unknownDrum
    }

    /// The report of a hit that never sounds, for `outcome` (not `.started`): it asked for no
    /// frame, so it is never late. `frame` holds the outcome (negative).
    public static func notStarted(id: UInt32, _ outcome: Outcome, renderedMicros: Int64) -> StartedHit {
        let code: Int64 = switch outcome {
        case .started, .takenBack: -1
        case .dropped: -2
        case .stale: -3
        case .unknownDrum: -4
        }
        return StartedHit(id: id, frame: code, renderedMicros: renderedMicros)
    }

    /// The report of a hit taken back before it started (`ScheduledHit.takeBack`).
    public static func takenBack(id: UInt32, renderedMicros: Int64) -> StartedHit {
        notStarted(id: id, .takenBack, renderedMicros: renderedMicros)
    }

    /// What became of the hit.
    public var outcome: Outcome {
        switch frame {
        case 0...: .started
        case -1: .takenBack
        case -2: .dropped
        case -3: .stale
        default: .unknownDrum
        }
    }

    /// Whether the hit was taken back before it started (no sound; `frame` is -1).
    public var wasTakenBack: Bool { outcome == .takenBack }
}

/// The ring of started hits flowing back from the audio thread (producer) to the control side
/// (consumer); a full ring loses the report, never the sound.
public typealias StartedQueue = SPSCRing<StartedHit>

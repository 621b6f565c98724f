#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Monotonic

/// The brain's mixer (docs/architecture.md, Brain audio): one voice per drum, interrupt retrigger with a short fade of
/// the cut sound, constant-power pan by azimuth, velocity to gain and layer, and a soft-clipping
/// limiter on the master bus. Renders interleaved stereo float.
///
/// Everything the audio thread touches is allocated and written once in `init`; hits arrive
/// through a `HitQueue`.
///
/// Thread safety: `render` from one (audio) thread; the counters from any thread.
/// Real-time safety: `render` never allocates, locks, logs, does I/O or throws (checked by the
/// allocation-counting tests).
public final class Mixer: @unchecked Sendable {
    // @unchecked: the voice tables and pending hits are touched only by the one thread that
    // calls `render`; the counters are atomics; `kit` is immutable.

    /// One sound playing.
    struct Voice {
        var samples: UnsafeMutablePointer<Float>? = nil
        var channels = 1
        var frames = 0
        var position = 0
        var left: Float = 0
        var right: Float = 0
        /// Frames of fade left; −1 when not fading.
        var fadeLeft = -1
    }

    /// The hits to play.
    public let queue: HitQueue
    /// Hits with a number, reported as they start, or when they are dropped or taken back
    /// instead (`StartedHit.outcome`), each once (read by the control side).
    public let started = StartedQueue(capacity: 1024)
    /// Frames over which a cut sound fades out (about 1 ms).
    public let fadeFrames: Int
    /// The level above which the limiter starts to bend the signal.
    public static let limiterKnee: Float = 0.8
    /// The level the limiter approaches and never passes (−0.18 dBFS), even where `tanhf`
    /// rounds to exactly 1.
    public static let limiterCeiling: Float = 0.98

    /// Voices for at most this many drums (a kit with more plays its first `maxDrums`).
    public static let maxDrums = 256
    private let current: UnsafeMutablePointer<Voice>
    private let fading: UnsafeMutablePointer<Voice>
    /// The kit being played, as flat tables; owned by the audio thread between swaps.
    private var tables: Unmanaged<KitTables>
    /// Drums whose voices may sound this period (more than the kit's for one period after a swap).
    private var mixDrums: Int
    /// Tables handed over by `swap(to:)` (an Unmanaged pointer's bits, 0 for none).
    private let incoming = Atomic<UInt>(0)
    /// Tables the audio thread stopped using, for the control side to release (0 for none).
    private let retired = Atomic<UInt>(0)
    /// Tables swapped out at the start of the period being rendered: their voices are still
    /// fading in it, so they are retired only once it is rendered. Audio thread only.
    private var retiring: Unmanaged<KitTables>?
    #if DEBUG
    /// Test builds only: called on the rendering thread just after a handed-over kit is taken,
    /// before the period that fades the old one out is mixed (a test collects retired tables
    /// there, as the control side may at any moment).
    public nonisolated(unsafe) var afterKitTakenForTesting: (() -> Void)?
    #endif
    /// The kit the control side last handed over, and its generation; guards `swap` callers.
    private let handed: Mutex<(kit: Kit, generation: UInt32)>
    /// Hits taken from the queue that start in a later period (offline rendering schedules
    /// ahead). Fixed capacity; overflow is counted.
    private let pending: UnsafeMutablePointer<ScheduledHit>
    private let pendingCapacity = 256
    private var pendingCount = 0
    /// Frames rendered so far: the audio clock.
    private let renderedFrames = Atomic<Int64>(0)
    /// The hits that started in the last period rendered, for MIDI at their frames. Audio
    /// thread only (written by `render`, read after it by the same thread).
    private let periodStarts: UnsafeMutablePointer<PeriodStart>
    private var periodStartCount = 0
    private let startedHits = Atomic<Int>(0)
    private let unknownDrums = Atomic<Int>(0)
    private let droppedHits = Atomic<Int>(0)
    private let staleHits = Atomic<Int>(0)
    private let lateHits = Atomic<Int>(0)
    private let takenBackHits = Atomic<Int>(0)
    private let clippedSamples = Atomic<Int>(0)

    /// Prepares voices for the drums of `kit`; hits come from `queue`.
    public init(kit: Kit, queue: HitQueue, fadeMilliseconds: Double = 1) {
        self.queue = queue
        fadeFrames = max(1, Int((kit.sampleRate * fadeMilliseconds / 1000).rounded()))
        current = .allocate(capacity: Self.maxDrums)
        current.initialize(repeating: Voice(), count: Self.maxDrums)
        fading = .allocate(capacity: Self.maxDrums)
        fading.initialize(repeating: Voice(), count: Self.maxDrums)
        let first = KitTables(kit: kit, generation: 1)
        mixDrums = first.drumCount
        tables = Unmanaged.passRetained(first)
        handed = Mutex((kit, 1))
        pending = .allocate(capacity: pendingCapacity)
        pending.initialize(repeating: ScheduledHit(drum: 0, velocity: 0), count: pendingCapacity)
        periodStarts = .allocate(capacity: pendingCapacity)
        periodStarts.initialize(repeating: PeriodStart(note: -1, velocity: 0, offset: 0), count: pendingCapacity)
    }

    /// A hit that started in the last period rendered: its drum's MIDI note (−1 for none), its
    /// velocity, and the frame in the period where its sound starts.
    public struct PeriodStart: Sendable {
        public var note: Int16
        public var velocity: Float
        public var offset: Int32
    }

    /// The hits that started in the last `render`, in the order they started: how many, and
    /// each. The rendering thread only, between renders. Real-time safety: no allocation.
    public var startsInLastPeriod: Int { periodStartCount }

    /// The `index`th hit that started in the last `render` (`0..<startsInLastPeriod`).
    public func startInLastPeriod(_ index: Int) -> PeriodStart { periodStarts[index] }

    deinit {
        current.deallocate()
        fading.deallocate()
        pending.deallocate()
        periodStarts.deallocate()
        tables.release()
        retiring?.release()
        for slot in [incoming.load(ordering: .acquiring), retired.load(ordering: .acquiring)] where slot != 0 {
            Unmanaged<KitTables>.fromOpaque(UnsafeRawPointer(bitPattern: slot)!).release()
        }
    }

    /// The kit last handed over (playing, or about to) and its generation: index drums in this
    /// kit and pass the generation with each hit. Control side only.
    public var kit: (kit: Kit, generation: UInt32) { handed.withLock { $0 } }

    /// Hands `newKit` to the audio thread, which switches at the start of its next period: every
    /// sounding voice fades out within that period, and hits resolved against the old kit are
    /// dropped and counted. Returns the new generation. Control side only; allocates.
    @discardableResult
    public func swap(to newKit: Kit) -> UInt32 {
        collectRetired()
        return handed.withLock { handed in
            let next = handed.generation &+ 1
            let made = Unmanaged.passRetained(KitTables(kit: newKit, generation: next))
            let previous = incoming.exchange(UInt(bitPattern: made.toOpaque()), ordering: .acquiringAndReleasing)
            if previous != 0 {  // a swap the audio thread never took
                Unmanaged<KitTables>.fromOpaque(UnsafeRawPointer(bitPattern: previous)!).release()
            }
            handed = (newKit, next)
            return next
        }
    }

    /// Releases kit tables the audio thread has stopped using. Control side only.
    public func collectRetired() {
        let slot = retired.exchange(0, ordering: .acquiringAndReleasing)
        if slot != 0 { Unmanaged<KitTables>.fromOpaque(UnsafeRawPointer(bitPattern: slot)!).release() }
    }

    /// On the audio thread at the start of a period: takes a handed-over kit, if any, when the
    /// retired slot is free; fades every voice out within this period (`frames`), so nothing
    /// reads the old kit's samples after it, and retires the old tables.
    @inline(__always)
    private func takeIncomingKit(frames: Int) {
        let slot = incoming.load(ordering: .acquiring)
        guard slot != 0, retired.load(ordering: .acquiring) == 0,
              incoming.compareExchange(expected: slot, desired: 0, ordering: .acquiringAndReleasing).exchanged
        else { return }
        let fade = min(fadeFrames, frames)
        for drum in 0..<mixDrums {
            if current[drum].samples != nil {
                fading[drum] = current[drum]
                fading[drum].fadeLeft = fade
                current[drum].samples = nil
            } else if fading[drum].samples != nil {
                fading[drum].fadeLeft = min(fading[drum].fadeLeft, fade)
            }
        }
        retiring = tables
        tables = Unmanaged<KitTables>.fromOpaque(UnsafeRawPointer(bitPattern: slot)!)
        mixDrums = max(mixDrums, tables._withUnsafeGuaranteedRef { $0.drumCount })
        #if DEBUG
        afterKitTakenForTesting?()
        #endif
    }

    /// At the end of a period: the old kit's fades are over, so nothing reads its tables or
    /// samples any more, and the control side may release them.
    @inline(__always)
    private func retireSwappedKit() {
        guard let old = retiring else { return }
        retiring = nil
        retired.store(UInt(bitPattern: old.toOpaque()), ordering: .releasing)
    }

    /// The gain a velocity gives: `velocity²`, so half velocity is −12 dB.
    @inline(__always)
    public static func velocityGain(_ velocity: Float) -> Float {
        let v = min(1, max(0, velocity))
        return v * v
    }

    /// Renders `frames` frames of interleaved stereo into `out` (overwriting it).
    ///
    /// Real-time safety: no allocation, locks, I/O or throwing.
    public func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        takeIncomingKit(frames: frames)
        let start = renderedFrames.load(ordering: .relaxed)
        let now = MonotonicClock.nowMicros()
        while let hit = queue.pop() {
            if hit.isTakeBack {
                takeBack(hit.id, renderedMicros: now)
            } else if pendingCount < pendingCapacity {
                pending[pendingCount] = hit
                pendingCount += 1
            } else {
                droppedHits.wrappingAdd(1, ordering: .relaxed)
                if hit.id != 0 { started.push(.notStarted(id: hit.id, .dropped, renderedMicros: now)) }
            }
        }
        out.update(repeating: 0, count: frames * 2)
        periodStartCount = 0
        var cursor = 0
        while true {
            // The earliest pending hit that starts in this period.
            var next = -1
            var nextOffset = frames
            for i in 0..<pendingCount {
                let frame = pending[i].frame
                let offset = frame < 0 ? 0 : Int(max(0, frame - start))
                if offset < frames && (offset < nextOffset || (offset == nextOffset && next > i)) {
                    next = i
                    nextOffset = offset
                }
            }
            if nextOffset > cursor {
                mix(into: out, from: cursor, to: nextOffset)
                cursor = nextOffset
            }
            guard next >= 0 else { break }
            trigger(pending[next], frame: start + Int64(nextOffset), offset: nextOffset, renderedMicros: now)
            pendingCount -= 1
            pending[next] = pending[pendingCount]
        }
        if cursor < frames { mix(into: out, from: cursor, to: frames) }
        limit(out, count: frames * 2)
        renderedFrames.store(start + Int64(frames), ordering: .relaxed)
        mixDrums = tables._withUnsafeGuaranteedRef { $0.drumCount }  // swap fades are over
        retireSwappedKit()
    }

    /// Removes the waiting hit numbered `id`, if it has not started, and reports it taken back.
    /// Id 0 (an unnumbered hit) names none.
    private func takeBack(_ id: UInt32, renderedMicros: Int64) {
        for i in 0..<pendingCount where pending[i].id == id && id != 0 {
            pendingCount -= 1
            pending[i] = pending[pendingCount]
            takenBackHits.wrappingAdd(1, ordering: .relaxed)
            started.push(.takenBack(id: id, renderedMicros: renderedMicros))
            return
        }
    }

    @inline(__always)
    private func trigger(_ hit: ScheduledHit, frame: Int64, offset: Int, renderedMicros: Int64) {
        tables._withUnsafeGuaranteedRef { kit in
            guard hit.kitGeneration == 0 || hit.kitGeneration == kit.generation else {
                staleHits.wrappingAdd(1, ordering: .relaxed)
                if hit.id != 0 { started.push(.notStarted(id: hit.id, .stale, renderedMicros: renderedMicros)) }
                return
            }
            let drum = Int(hit.drum)
            guard drum >= 0 && drum < kit.drumCount else {
                unknownDrums.wrappingAdd(1, ordering: .relaxed)
                if hit.id != 0 { started.push(.notStarted(id: hit.id, .unknownDrum, renderedMicros: renderedMicros)) }
                return
            }
            // The layer whose range holds the velocity, else the nearest (as Kit.Drum.layer(for:)).
            var chosen = kit.layerStart[drum]
            var nearest = Float.infinity
            for i in kit.layerStart[drum]..<kit.layerStart[drum + 1] {
                let entry = kit.layerTable[i]
                let distance = hit.velocity < entry.minVelocity ? entry.minVelocity - hit.velocity
                    : (hit.velocity > entry.maxVelocity ? hit.velocity - entry.maxVelocity : 0)
                if distance < nearest {
                    nearest = distance
                    chosen = i
                    if distance == 0 { break }
                }
            }
            let layer = kit.layerTable[chosen]
            if current[drum].samples != nil && current[drum].position < current[drum].frames {
                fading[drum] = current[drum]
                fading[drum].fadeLeft = fadeFrames
            }
            let gain = kit.drumGain[drum] * Self.velocityGain(hit.velocity)
            // Stereo samples keep their image: the pan law becomes a balance, unity at the centre.
            let stereoBoost: Float = layer.channels == 2 ? 1.41421356 : 1
            current[drum] = Voice(samples: layer.samples, channels: layer.channels,
                                  frames: layer.frames, position: 0,
                                  left: kit.panLeft[drum] * gain * stereoBoost,
                                  right: kit.panRight[drum] * gain * stereoBoost, fadeLeft: -1)
            startedHits.wrappingAdd(1, ordering: .relaxed)
            if periodStartCount < pendingCapacity {
                periodStarts[periodStartCount] = PeriodStart(note: kit.midiNote[drum], velocity: hit.velocity,
                                                             offset: Int32(truncatingIfNeeded: offset))
                periodStartCount += 1
            }
            let report = StartedHit(id: hit.id, frame: frame, renderedMicros: renderedMicros, requestedFrame: hit.frame)
            if report.lateFrames > 0 { lateHits.wrappingAdd(1, ordering: .relaxed) }
            if hit.id != 0 { started.push(report) }
        }
    }

    @inline(__always)
    private func mix(into out: UnsafeMutablePointer<Float>, from first: Int, to end: Int) {
        for drum in 0..<mixDrums {
            Self.play(&current[drum], into: out, from: first, to: end, fadeFrames: fadeFrames)
            Self.play(&fading[drum], into: out, from: first, to: end, fadeFrames: fadeFrames)
        }
    }

    @inline(__always)
    private static func play(_ voice: inout Voice, into out: UnsafeMutablePointer<Float>,
                             from first: Int, to end: Int, fadeFrames: Int) {
        guard let samples = voice.samples else { return }
        var count = min(end - first, voice.frames - voice.position)
        if voice.fadeLeft >= 0 { count = min(count, voice.fadeLeft) }
        if count <= 0 {
            voice.samples = nil
            return
        }
        var o = out + first * 2
        let left = voice.left, right = voice.right
        if voice.fadeLeft < 0 {
            if voice.channels == 1 {
                var s = samples + voice.position
                for _ in 0..<count {
                    let x = s.pointee
                    o[0] += x * left
                    o[1] += x * right
                    o += 2
                    s += 1
                }
            } else {
                var s = samples + voice.position * 2
                for _ in 0..<count {
                    o[0] += s[0] * left
                    o[1] += s[1] * right
                    o += 2
                    s += 2
                }
            }
        } else {
            let step = 1 / Float(fadeFrames)
            var ramp = Float(voice.fadeLeft) * step
            let stride = voice.channels
            var s = samples + voice.position * stride
            for _ in 0..<count {
                o[0] += s[0] * left * ramp
                o[1] += s[stride - 1] * right * ramp
                ramp -= step
                o += 2
                s += stride
            }
            voice.fadeLeft -= count
        }
        voice.position += count
        if voice.position >= voice.frames || voice.fadeLeft == 0 { voice.samples = nil }
    }

    /// Soft clipping: unchanged below the knee, bent smoothly towards the ceiling above it, never
    /// passing it, so the bus never wraps or clips hard.
    @inline(__always)
    private func limit(_ out: UnsafeMutablePointer<Float>, count: Int) {
        let knee = Self.limiterKnee
        let room = Self.limiterCeiling - knee
        var clipped = 0
        for i in 0..<count {
            let x = out[i]
            let magnitude = abs(x)
            if magnitude > knee {
                let bent = knee + room * tanhf((magnitude - knee) / room)
                out[i] = x < 0 ? -bent : bent
                clipped += 1
            }
        }
        if clipped > 0 { clippedSamples.wrappingAdd(clipped, ordering: .relaxed) }
    }

    /// Counters for the control side to report.
    public struct Counters: Sendable, Equatable {
        /// Frames rendered so far.
        public var frames: Int64
        /// Hits that started a sound.
        public var hits: Int
        /// Hits for drums the kit lacks.
        public var unknownDrums: Int
        /// Hits dropped because too many were pending.
        public var droppedHits: Int
        /// Hits for a kit that had been swapped out by the time they played (dropped).
        public var staleHits: Int
        /// Samples the limiter bent.
        public var limitedSamples: Int
        /// Hits with a frame that reached the mixer after that frame had been rendered, and so
        /// started at the next period instead (late for the jitter buffer).
        public var lateHits: Int = 0
        /// Hits taken back before they started (`ScheduledHit.takeBack`).
        public var takenBackHits: Int = 0
    }

    /// The counters now.
    public var counters: Counters {
        Counters(frames: renderedFrames.load(ordering: .relaxed), hits: startedHits.load(ordering: .relaxed),
                 unknownDrums: unknownDrums.load(ordering: .relaxed),
                 droppedHits: droppedHits.load(ordering: .relaxed) + queue.refusedCount,
                 staleHits: staleHits.load(ordering: .relaxed),
                 limitedSamples: clippedSamples.load(ordering: .relaxed),
                 lateHits: lateHits.load(ordering: .relaxed),
                 takenBackHits: takenBackHits.load(ordering: .relaxed))
    }
}

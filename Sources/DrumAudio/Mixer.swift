#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The brain's mixer (DESIGN.md §9): one voice per drum, interrupt retrigger with a short fade of
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

    /// The kit being played.
    public let kit: Kit
    /// The hits to play.
    public let queue: HitQueue
    /// Hits with a number, reported as they start (read by the control side).
    public let started = StartedQueue(capacity: 1024)
    /// Frames over which a cut sound fades out (about 1 ms).
    public let fadeFrames: Int
    /// The level above which the limiter starts to bend the signal.
    public static let limiterKnee: Float = 0.8
    /// The level the limiter approaches and never passes (−0.18 dBFS), even where `tanhf`
    /// rounds to exactly 1.
    public static let limiterCeiling: Float = 0.98

    /// One velocity layer, flattened for the audio thread.
    struct LayerEntry {
        var samples: UnsafeMutablePointer<Float>?
        var channels: Int
        var frames: Int
        var minVelocity: Float
        var maxVelocity: Float
    }

    private let drumCount: Int
    private let current: UnsafeMutablePointer<Voice>
    private let fading: UnsafeMutablePointer<Voice>
    private let panLeft: UnsafeMutablePointer<Float>
    private let panRight: UnsafeMutablePointer<Float>
    private let drumGain: UnsafeMutablePointer<Float>
    /// Every drum's layers, flattened: drum i's are `layerStart[i] ..< layerStart[i + 1]`.
    private let layerTable: UnsafeMutablePointer<LayerEntry>
    private let layerStart: UnsafeMutablePointer<Int>
    /// Hits taken from the queue that start in a later period (offline rendering schedules
    /// ahead). Fixed capacity; overflow is counted.
    private let pending: UnsafeMutablePointer<ScheduledHit>
    private let pendingCapacity = 256
    private var pendingCount = 0
    /// Frames rendered so far: the audio clock.
    private let renderedFrames = Atomic<Int64>(0)
    private let startedHits = Atomic<Int>(0)
    private let unknownDrums = Atomic<Int>(0)
    private let droppedHits = Atomic<Int>(0)
    private let clippedSamples = Atomic<Int>(0)

    /// Prepares voices for every drum of `kit`; hits come from `queue`.
    public init(kit: Kit, queue: HitQueue, fadeMilliseconds: Double = 1) {
        self.kit = kit
        self.queue = queue
        fadeFrames = max(1, Int((kit.sampleRate * fadeMilliseconds / 1000).rounded()))
        drumCount = kit.drums.count
        current = .allocate(capacity: max(1, drumCount))
        current.initialize(repeating: Voice(), count: max(1, drumCount))
        fading = .allocate(capacity: max(1, drumCount))
        fading.initialize(repeating: Voice(), count: max(1, drumCount))
        panLeft = .allocate(capacity: max(1, drumCount))
        panRight = .allocate(capacity: max(1, drumCount))
        drumGain = .allocate(capacity: max(1, drumCount))
        let layerCount = kit.drums.reduce(0) { $0 + $1.layers.count }
        layerTable = .allocate(capacity: max(1, layerCount))
        layerStart = .allocate(capacity: drumCount + 1)
        var next = 0
        for (i, drum) in kit.drums.enumerated() {
            let pan = drum.panGains
            panLeft[i] = Float(pan.left)
            panRight[i] = Float(pan.right)
            drumGain[i] = Float(drum.gain)
            layerStart[i] = next
            for layer in drum.layers {
                (layerTable + next).initialize(to: LayerEntry(
                    samples: layer.buffer.samples.baseAddress, channels: layer.buffer.channels,
                    frames: layer.buffer.frames, minVelocity: Float(layer.minVelocity),
                    maxVelocity: Float(layer.maxVelocity)))
                next += 1
            }
        }
        layerStart[drumCount] = next
        pending = .allocate(capacity: pendingCapacity)
        pending.initialize(repeating: ScheduledHit(drum: 0, velocity: 0), count: pendingCapacity)
    }

    deinit {
        current.deallocate()
        fading.deallocate()
        panLeft.deallocate()
        panRight.deallocate()
        drumGain.deallocate()
        layerTable.deallocate()
        layerStart.deallocate()
        pending.deallocate()
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
        let start = renderedFrames.load(ordering: .relaxed)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)  // vDSO: no system call, no lock
        let now = Int64(clock.tv_sec) * 1_000_000 + Int64(clock.tv_nsec) / 1000
        while let hit = queue.pop() {
            if pendingCount < pendingCapacity {
                pending[pendingCount] = hit
                pendingCount += 1
            } else {
                droppedHits.wrappingAdd(1, ordering: .relaxed)
            }
        }
        out.update(repeating: 0, count: frames * 2)
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
            trigger(pending[next], frame: start + Int64(nextOffset), renderedMicros: now)
            pendingCount -= 1
            pending[next] = pending[pendingCount]
        }
        if cursor < frames { mix(into: out, from: cursor, to: frames) }
        limit(out, count: frames * 2)
        renderedFrames.store(start + Int64(frames), ordering: .relaxed)
    }

    @inline(__always)
    private func trigger(_ hit: ScheduledHit, frame: Int64, renderedMicros: Int64) {
        let drum = Int(hit.drum)
        guard drum >= 0 && drum < drumCount else {
            unknownDrums.wrappingAdd(1, ordering: .relaxed)
            return
        }
        // The layer whose range holds the velocity, else the nearest (as Kit.Drum.layer(for:)).
        var chosen = layerStart[drum]
        var nearest = Float.infinity
        for i in layerStart[drum]..<layerStart[drum + 1] {
            let entry = layerTable[i]
            let distance = hit.velocity < entry.minVelocity ? entry.minVelocity - hit.velocity
                : (hit.velocity > entry.maxVelocity ? hit.velocity - entry.maxVelocity : 0)
            if distance < nearest {
                nearest = distance
                chosen = i
                if distance == 0 { break }
            }
        }
        let layer = layerTable[chosen]
        if current[drum].samples != nil && current[drum].position < current[drum].frames {
            fading[drum] = current[drum]
            fading[drum].fadeLeft = fadeFrames
        }
        let gain = drumGain[drum] * Self.velocityGain(hit.velocity)
        // Stereo samples keep their image: the pan law becomes a balance, unity at the centre.
        let stereoBoost: Float = layer.channels == 2 ? 1.41421356 : 1
        current[drum] = Voice(samples: layer.samples, channels: layer.channels,
                              frames: layer.frames, position: 0,
                              left: panLeft[drum] * gain * stereoBoost,
                              right: panRight[drum] * gain * stereoBoost, fadeLeft: -1)
        startedHits.wrappingAdd(1, ordering: .relaxed)
        if hit.id != 0 { started.push(StartedHit(id: hit.id, frame: frame, renderedMicros: renderedMicros)) }
    }

    @inline(__always)
    private func mix(into out: UnsafeMutablePointer<Float>, from first: Int, to end: Int) {
        for drum in 0..<drumCount {
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
        /// Samples the limiter bent.
        public var limitedSamples: Int
    }

    /// The counters now.
    public var counters: Counters {
        Counters(frames: renderedFrames.load(ordering: .relaxed), hits: startedHits.load(ordering: .relaxed),
                 unknownDrums: unknownDrums.load(ordering: .relaxed),
                 droppedHits: droppedHits.load(ordering: .relaxed) + queue.refusedCount,
                 limitedSamples: clippedSamples.load(ordering: .relaxed))
    }
}

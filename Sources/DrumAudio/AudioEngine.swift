import CALSA
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// The brain's live audio: a mixer on its own real-time thread, writing to an output.
///
/// The audio thread renders a period, hands a copy to the recorder (if any) through a ring,
/// and writes it to the output: ALSA (which paces it), or a WAV file or nothing, paced by the
/// clock. It tries SCHED_FIFO and reports a refusal once through `status`.
///
/// Thread safety: `start`/`stop` from the control side; `play` from one producer thread at a
/// time (the network's event loop); `status` from anywhere.
public final class AudioEngine: @unchecked Sendable {
    // @unchecked: the audio thread owns `buffer`, `alsa` and the pacing state while it runs;
    // the control side touches them only before `start` and after `stop` has joined it.

    /// Where the sound goes.
    public enum Output: Sendable, Equatable, CustomStringConvertible {
        /// An ALSA PCM, such as `default` or `hw:0`.
        case alsa(String)
        /// A WAV file, written in real time.
        case wav(String)
        /// Nowhere, in real time.
        case null
        /// A JACK client's ports (or PipeWire's JACK): a callback driver (`JACKOutput` in the
        /// JACKAudio target) renders each period through `renderExternal`.
        case jack

        /// Parses `alsa:DEVICE`, `wav:FILE`, `jack` or `null`.
        public init?(_ text: String) {
            if text == "null" { self = .null }
            else if text == "jack" { self = .jack }
            else if text.hasPrefix("alsa:") && text.count > 5 { self = .alsa(String(text.dropFirst(5))) }
            else if text.hasPrefix("wav:") && text.count > 4 { self = .wav(String(text.dropFirst(4))) }
            else { return nil }
        }

        public var description: String {
            switch self {
            case .alsa(let device): "alsa:\(device)"
            case .wav(let path): "wav:\(path)"
            case .null: "null"
            case .jack: "jack"
            }
        }
    }

    /// How the engine runs.
    public struct Configuration: Sendable {
        /// Where the sound goes.
        public var output: Output
        /// Frames per second (the kit is loaded at this rate).
        public var sampleRate: Int
        /// Frames per period.
        public var periodFrames: Int
        /// Periods in the device buffer.
        public var periods: Int
        /// Also record what is played to this WAV file.
        public var record: String?
        /// Keep the audio thread's timing, period by period (see `ClockTrace`).
        public var clockTrace: ClockTrace?

        /// Creates a configuration; the defaults are docs/architecture.md, Brain audio's (128 × 3 at 48 kHz).
        public init(output: Output = .alsa("default"), sampleRate: Int = 48_000, periodFrames: Int = 128,
                    periods: Int = 3, record: String? = nil) {
            self.output = output
            self.sampleRate = sampleRate
            self.periodFrames = periodFrames
            self.periods = periods
            self.record = record
        }
    }

    /// What the control side can report.
    public struct Status: Sendable, Equatable {
        /// The mixer's counters.
        public var mixer: Mixer.Counters
        /// Underruns recovered (ALSA).
        public var xruns: Int
        /// Whether SCHED_FIFO was granted; nil until the thread has tried.
        public var realtime: Bool?
        /// Why SCHED_FIFO was refused, if it was.
        public var realtimeRefusal: String?
        /// A fatal output error that stopped the audio thread, if any.
        public var outputError: String?
        /// Samples the recorder or WAV output dropped because the disk fell behind.
        public var droppedSamples: Int
        /// The device did not close within `AudioEngine.closeWaitMicros` when stopped (a sound
        /// server that stands still); it was left to close when the server answers.
        public var closeTimedOut: Bool = false
    }

    /// How long `stop` waits for the device to close.
    public static let closeWaitMicros: Int64 = 2_000_000

    /// The mixer the audio thread runs.
    public let mixer: Mixer
    /// Hits for the mixer: push from one producer thread.
    public let queue: HitQueue
    /// The settings in force (period and rate as the device granted them).
    public let configuration: Configuration
    /// The output's description, such as `alsa:default (float, period 128, buffer 384)`.
    public let outputDescription: String

    private let buffer: UnsafeMutablePointer<Float>
    private let bufferFrames: Int
    /// The longest period a callback driver may render at once.
    public static let maxExternalFrames = 8_192
    /// Frames a callback driver has had rendered (its thread only).
    private var externalRendered: Int64 = 0
    /// A callback driver's xrun, for its render thread to reset the clock at its next period.
    private let externalReset = Atomic<Bool>(false)
    /// Why a callback driver stopped for good (its server went away), if it did.
    private let externalFailure = Atomic<Bool>(false)
    private let alsa: ALSAPlayback?
    private let wavOutput: WAVWriter?
    private let recorder: WAVWriter?
    private let running = Atomic<Bool>(false)
    /// Whether `stop` has run: the outputs are closed, and `start` does nothing.
    private let closed = Atomic<Bool>(false)
    /// Whether the audio thread is in its loop (false again once it ends, by stop or failure).
    private let rendering = Atomic<Bool>(false)
    private let xrunCount = Atomic<Int>(0)
    #if DEBUG
    private let stallRequestMicros = Atomic<Int64>(0)
    #endif
    /// 0 untried, 1 granted, 2 refused.
    private let realtimeState = Atomic<Int>(0)
    private let realtimeErrno = Atomic<Int32>(0)
    private let closeTimedOut = Atomic<Bool>(false)
    private let fatalError = Atomic<Int32>(0)
    /// The audio clock's origin (see `FrameClock`): the monotonic time (µs) at which output
    /// frame 0 was rendered. 0 until the thread runs.
    private let clockOriginMicros = Atomic<Int64>(0)
    /// The audio thread's own clock estimator, allocated once.
    private let frameClock: FrameClock
    private var thread = pthread_t()

    /// Opens the output and prepares everything the audio thread needs.
    public init(kit: Kit, configuration: Configuration) throws(DrumAudioError) {
        queue = HitQueue(capacity: 1024)
        mixer = Mixer(kit: kit, queue: queue)
        var config = configuration
        switch configuration.output {
        case .alsa(let device):
            let playback = try ALSAPlayback(device: device, rate: configuration.sampleRate,
                                            periodFrames: configuration.periodFrames, periods: configuration.periods)
            alsa = playback
            wavOutput = nil
            config.periodFrames = playback.periodFrames
            outputDescription = "alsa:\(device) (\(playback.isFloat ? "float" : "16-bit"), \(playback.rate) Hz, "
                + "period \(playback.periodFrames), buffer \(playback.bufferFrames))"
        case .wav(let path):
            alsa = nil
            wavOutput = try WAVWriter(path: path, sampleRate: configuration.sampleRate)
            outputDescription = "wav:\(path) (float, \(configuration.sampleRate) Hz, real time)"
        case .null:
            alsa = nil
            wavOutput = nil
            outputDescription = "null (\(configuration.sampleRate) Hz, real time)"
        case .jack:
            alsa = nil
            wavOutput = nil
            outputDescription = "jack (\(configuration.sampleRate) Hz, period \(configuration.periodFrames))"
        }
        recorder = try configuration.record.map { path throws(DrumAudioError) in
            try WAVWriter(path: path, sampleRate: configuration.sampleRate)
        }
        self.configuration = config
        // Touched now, so the audio thread never faults a fresh page. A callback driver may ask
        // for any period up to `maxExternalFrames`.
        bufferFrames = config.output == .jack ? max(config.periodFrames, Self.maxExternalFrames) : config.periodFrames
        buffer = .allocate(capacity: bufferFrames * 2)
        buffer.initialize(repeating: 0, count: bufferFrames * 2)
        frameClock = FrameClock(rate: config.sampleRate, periodFrames: config.periodFrames)
    }

    deinit {
        buffer.deallocate()
    }

    /// Starts the audio thread (for `.jack`, readies the engine for its driver's callbacks); does
    /// nothing once `stop` has run. Call `start` and `stop` from one control thread, not both at once.
    public func start() {
        guard !closed.load(ordering: .acquiring), !running.load(ordering: .relaxed) else { return }
        running.store(true, ordering: .releasing)
        rendering.store(true, ordering: .releasing)
        if configuration.output == .jack { return }
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let engine = Unmanaged<AudioEngine>.fromOpaque(argument!).takeRetainedValue()
            engine.audioThread()
            engine.rendering.store(false, ordering: .releasing)
            return nil
        }, me)
    }

    #if DEBUG
    /// Test builds only: makes the audio thread sleep `micros` once before its next period, as a
    /// stalled render would, so that tests can force an underrun and watch it counted and
    /// recovered. Real-time safety: breaks it on purpose; the programs never call it.
    public func stallRenderOnce(micros: Int64) {
        stallRequestMicros.store(micros, ordering: .relaxed)
    }
    #endif

    /// Stops the audio thread and closes the output and the recording (for `.jack`, once its
    /// driver has stopped calling). An engine never started closes them too: a WAV is then a
    /// whole file of no frames (its header filled in), and an ALSA device is let go.
    public func stop() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if running.exchange(false, ordering: .acquiringAndReleasing) {
            if configuration.output == .jack {
                rendering.store(false, ordering: .releasing)
                recorder?.finish()
                return
            }
            // A device that stands still (a stopped sound server) would hold the audio thread in
            // its wait for room: wake it, so stopping never waits on the device.
            alsa?.interrupt()
            pthread_join(thread, nil)
        }
        if let alsa, !alsa.close(waitingAtMostMicros: Self.closeWaitMicros) {
            closeTimedOut.store(true, ordering: .relaxed)
        }
        wavOutput?.finish()
        recorder?.finish()
    }

    /// Takes back the waiting hit numbered `id` unless it has started (see
    /// `ScheduledHit.takeBack`); if it had not, `mixer.started` reports it taken back. False if
    /// the queue was full.
    @discardableResult
    public func takeBack(id: UInt32) -> Bool {
        queue.push(.takeBack(id: id))
    }

    /// Queues a hit to start at the beginning of the next period; false if the queue was full.
    /// With a non-zero `id` its start is reported on `mixer.started`.
    public func play(drum: Int, velocity: Float, id: UInt32 = 0, kitGeneration: UInt32 = 0) -> Bool {
        queue.push(ScheduledHit(drum: Int32(drum), velocity: velocity, id: id, kitGeneration: kitGeneration))
    }

    /// Queues a hit to start at the output frame that corresponds to monotonic time
    /// `brainMicros + delayMicros` (a jitter buffer: hits keep their own spacing instead of
    /// snapping to period starts). A time already past starts at the next period. Returns false
    /// if the queue was full.
    public func play(drum: Int, velocity: Float, atMicros brainMicros: Int64, delayMicros: Int64,
                     id: UInt32 = 0, kitGeneration: UInt32 = 0) -> Bool {
        guard let frame = frame(atMicros: brainMicros.saturatingAdd(delayMicros)) else {
            return play(drum: drum, velocity: velocity, id: id, kitGeneration: kitGeneration)
        }
        return queue.push(ScheduledHit(drum: Int32(drum), velocity: velocity, frame: max(0, frame),
                                       id: id, kitGeneration: kitGeneration))
    }

    /// The output frame rendered at monotonic time `micros`, once the audio thread runs.
    public func frame(atMicros micros: Int64) -> Int64? {
        let origin = clockOriginMicros.load(ordering: .acquiring)
        guard origin != 0 else { return nil }
        return FrameClock.frame(atMicros: micros, originMicros: origin, rate: Int64(configuration.sampleRate))
    }

    /// The monotonic time, µs, at which output frame `frame` is rendered by the audio clock
    /// (the inverse of `frame(atMicros:)`), once the audio thread runs. Any thread.
    public func micros(atFrame frame: Int64) -> Int64? {
        let origin = clockOriginMicros.load(ordering: .acquiring)
        guard origin != 0 else { return nil }
        return origin.saturatingAdd(frame.saturatingMultiply(1_000_000) / Int64(configuration.sampleRate))
    }

    /// Whether the audio thread is rendering: from `start` until `stop`, or until an output
    /// error ended it. A hit queued while it is not will never be reported. Any thread.
    public var isRendering: Bool { rendering.load(ordering: .acquiring) }

    /// The counters and states now.
    public var status: Status {
        let rt = realtimeState.load(ordering: .acquiring)
        let code = realtimeErrno.load(ordering: .relaxed)
        let fatal = fatalError.load(ordering: .relaxed)
        return Status(mixer: mixer.counters, xruns: xrunCount.load(ordering: .relaxed),
                      realtime: rt == 0 ? nil : rt == 1,
                      realtimeRefusal: rt == 2 ? String(cString: strerror(code)) : nil,
                      outputError: externalFailure.load(ordering: .acquiring) ? "the JACK server went away"
                          : (fatal == 0 ? nil : String(cString: snd_strerror(fatal))),
                      droppedSamples: (recorder?.ring.droppedCount ?? 0) + (wavOutput?.ring.droppedCount ?? 0),
                      closeTimedOut: closeTimedOut.load(ordering: .relaxed))
    }

    /// One period for a callback driver (JACK's process callback): `frames` frames of the mix
    /// into `left` and `right`, as the audio thread would render them, the audio clock taking
    /// the period's start from now. Silence if the engine is not running or the period is
    /// longer than `maxExternalFrames`. Returns the output frame at the period's start (nil
    /// when it rendered silence).
    /// Real-time safety: as the audio thread's loop: no allocation, lock, log or I/O.
    @discardableResult
    public func renderExternal(frames: Int, left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>) -> Int64? {
        guard frames > 0, frames <= bufferFrames, running.load(ordering: .relaxed) else {
            if frames > 0 {
                left.update(repeating: 0, count: frames)
                right.update(repeating: 0, count: frames)
            }
            return nil
        }
        if externalReset.exchange(false, ordering: .acquiringAndReleasing) { frameClock.reset() }
        let micros = MonotonicClock.nowMicros()
        configuration.clockTrace?.record(micros: micros, rendered: externalRendered, delay: -1)
        clockOriginMicros.store(frameClock.update(nowMicros: micros, renderedFrames: externalRendered), ordering: .releasing)
        mixer.render(into: buffer, frames: frames)
        externalRendered += Int64(frames)
        recorder?.ring.write(buffer, count: frames * 2)
        for i in 0..<frames {
            left[i] = buffer[2 * i]
            right[i] = buffer[2 * i + 1]
        }
        return externalRendered - Int64(frames)
    }

    /// A callback driver's xrun (any thread): counted as an underrun, and the clock timed
    /// afresh at the next period.
    public func externalXrun() {
        xrunCount.wrappingAdd(1, ordering: .relaxed)
        externalReset.store(true, ordering: .releasing)
    }

    /// Whether a callback driver's thread runs with real-time priority (JACK's `--realtime`).
    public func externalRealtime(_ granted: Bool) {
        realtimeErrno.store(granted ? 0 : EPERM, ordering: .relaxed)
        realtimeState.store(granted ? 1 : 2, ordering: .releasing)
    }

    /// A callback driver stopped for good (its server went away): no more periods will come.
    public func externalFailed() {
        externalFailure.store(true, ordering: .releasing)
        rendering.store(false, ordering: .releasing)
    }

    /// The audio thread: render, record, write, repeat.
    private func audioThread() {
        var parameters = sched_param()
        parameters.sched_priority = 70
        let refused = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
        realtimeErrno.store(refused, ordering: .relaxed)
        realtimeState.store(refused == 0 ? 1 : 2, ordering: .releasing)
        let frames = configuration.periodFrames
        let rate = Int64(configuration.sampleRate)
        var xruns = 0
        var rendered: Int64 = 0
        // Where the clock took over pacing the loop (µs, and the frames rendered before it): from
        // the start for the WAV and null outputs, and from when an ALSA device showed it takes
        // every write at once (its `null` and `file` plugins), which would otherwise let the loop
        // spin a core at real-time priority and write without end. Nil: the device paces it.
        var pacedFrom: (micros: Int64, frames: Int64)? = alsa == nil ? (MonotonicClock.nowMicros(), 0) : nil
        while running.load(ordering: .acquiring) {
            let micros = MonotonicClock.nowMicros()
            configuration.clockTrace?.record(micros: micros, rendered: rendered,
                                             delay: Int64(alsa?.delayFrames() ?? -1))
            clockOriginMicros.store(frameClock.update(nowMicros: micros, renderedFrames: rendered),
                                    ordering: .releasing)
            #if DEBUG
            let stall = stallRequestMicros.exchange(0, ordering: .relaxed)
            if stall > 0 { usleep(UInt32(stall)) }
            #endif
            mixer.render(into: buffer, frames: frames)
            rendered += Int64(frames)
            recorder?.ring.write(buffer, count: frames * 2)
            if let alsa {
                let before = xruns
                let error = alsa.write(buffer, frames: frames, xruns: &xruns)
                if error == ALSAPlayback.interrupted { break }  // stop() woke it
                xrunCount.store(xruns, ordering: .relaxed)
                // An underrun moved the device's clock against the frames: time the frames
                // afresh, or hits would be placed by the old origin until it left the window.
                if xruns != before { frameClock.reset() }
                if error < 0 {
                    fatalError.store(error, ordering: .relaxed)
                    break
                }
                if pacedFrom == nil && alsa.takesFramesAtOnce {
                    pacedFrom = (MonotonicClock.nowMicros(), rendered - Int64(frames))
                    frameClock.reset()  // the frames ran ahead of time until now
                }
            } else {
                wavOutput?.ring.write(buffer, count: frames * 2)
            }
            if let pacedFrom {
                // The next period is due when the frames rendered so far have played.
                MonotonicClock.sleep(untilMicros: pacedFrom.micros + (rendered - pacedFrom.frames) * 1_000_000 / rate)
            }
        }
    }
}

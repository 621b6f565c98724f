import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The visual's own thread: at a steady frame rate it takes the hits handed over, advances the
/// scene, draws it and writes only the cells that changed.
///
/// Inputs, none of which ever waits for the visual:
/// - `hits`: pushed by the one thread that receives hits (the brain's network event loop);
/// - `timings`: the receipt → render time of hits, pushed by one other producer;
/// - `update(status:)` and `setKit(_:)`: a small lock the render thread holds once per frame
///   for a copy.
/// It never touches the audio thread.
///
/// Thread safety: `start`, `stop`, `update`, `setKit` from the control side; the rings as above.
public final class VisualRenderer: @unchecked Sendable {
    // @unchecked: the scene, the frames and the writer belong to the render thread while it
    // runs (and to the control side only before `start` and after `stop` has joined it);
    // `shared` is behind a mutex, the rest are atomics or immutable.

    /// How the renderer draws.
    public struct Configuration: Sendable {
        /// Where frames are written (standard output by default).
        public var fd: Int32
        /// Frames per second, 1…60.
        public var framesPerSecond: Int
        /// How colours are shown.
        public var colorMode: ColorMode
        /// The random seed (bursts, kick colours).
        public var seed: UInt64
        /// The size used when `fd` is not a terminal.
        public var fallbackSize: (width: Int, height: Int)
        /// Take the terminal: alternate screen, echo off, restore on every way out.
        public var takeTerminal: Bool
        /// Most particles alive at once.
        public var particleCapacity: Int

        /// Creates a configuration.
        public init(fd: Int32 = 1, framesPerSecond: Int = 60, colorMode: ColorMode, seed: UInt64,
                    fallbackSize: (width: Int, height: Int) = (80, 24), takeTerminal: Bool = true,
                    particleCapacity: Int = 1500) {
            precondition((1...60).contains(framesPerSecond), "1…60 frames per second")
            self.fd = fd
            self.framesPerSecond = framesPerSecond
            self.colorMode = colorMode
            self.seed = seed
            self.fallbackSize = fallbackSize
            self.takeTerminal = takeTerminal
            self.particleCapacity = particleCapacity
        }
    }

    /// Hits to draw: push from the thread that receives hits.
    public let hits = VisualEventRing(capacity: 1024)
    /// Hits' receipt → render times (`brainMicros`): push from one other thread.
    public let timings = VisualEventRing(capacity: 1024)
    /// The settings in force.
    public let configuration: Configuration

    private struct Shared {
        var status = BrainStatus()
        var drums: [VisualDrum]
        var version = 0
    }
    /// Guards what the control side hands over; the render thread copies it when `version` moved.
    private let shared: Mutex<Shared>
    private let running = Atomic<Bool>(false)
    private let frames = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private var thread = pthread_t()
    private var capture: StandardErrorCapture?
    private var scene: VisualScene

    /// Prepares a renderer for `drums` (kit order); nothing is drawn before `start`.
    public init(drums: [VisualDrum], configuration: Configuration) {
        self.configuration = configuration
        shared = Mutex(Shared(drums: drums))
        let size = TerminalSession.size(of: configuration.fd) ?? configuration.fallbackSize
        scene = VisualScene(drums: drums, colorMode: configuration.colorMode, width: size.width,
                            height: size.height, seed: configuration.seed,
                            particleCapacity: configuration.particleCapacity)
    }

    /// Takes the terminal (when configured to) and starts the render thread. Standard error is
    /// captured while it runs when it is a terminal too.
    public func start() {
        guard !running.load(ordering: .relaxed) else { return }
        if configuration.takeTerminal {
            capture = TerminalSession.isTerminal(2) ? StandardErrorCapture() : nil
            TerminalSession.enter(fd: configuration.fd, stderrSaved: capture?.saved ?? -1)
        }
        running.store(true, ordering: .releasing)
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let renderer = Unmanaged<VisualRenderer>.fromOpaque(argument!).takeRetainedValue()
            renderer.renderLoop()
            return nil
        }, me)
    }

    /// Stops the thread, gives the terminal back and returns what standard error received
    /// meanwhile (for the caller to print now that the screen is restored). Idempotent.
    @discardableResult
    public func stop() -> [String] {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return [] }
        pthread_join(thread, nil)
        guard configuration.takeTerminal else { return [] }
        TerminalSession.leave()
        let lines = capture?.finish() ?? []
        capture = nil
        return lines
    }

    /// The brain's state for the status area.
    public func update(status: BrainStatus) {
        shared.withLock {
            guard $0.status != status else { return }
            $0.status = status
            $0.version += 1
        }
    }

    /// A new kit (after a reload).
    public func setKit(_ drums: [VisualDrum]) {
        shared.withLock {
            $0.drums = drums
            $0.version += 1
        }
    }

    /// Frames drawn so far.
    public var framesDrawn: Int { frames.load(ordering: .relaxed) }
    /// Bytes written to the terminal so far.
    public var bytesWritten: Int { bytes.load(ordering: .relaxed) }

    private func renderLoop() {
        let frameNanos = 1_000_000_000 / Int64(configuration.framesPerSecond)
        var frame = CellBuffer(width: 0, height: 0)
        var writer = FrameWriter()
        var out: [UInt8] = []
        out.reserveCapacity(1 << 16)
        var statistics = HitStatistics()
        var status = BrainStatus()
        var seenVersion = -1
        var log: String?
        var statusDue: Int64 = 0
        var statusDirty = true
        var terminalGone = false
        var deadline = Self.now()
        var last = deadline
        while running.load(ordering: .acquiring) {
            let now = Self.now()
            let nowMicros = now / 1000
            if !configuration.takeTerminal || TerminalSession.takeRedrawRequest() {
                if let size = TerminalSession.size(of: configuration.fd),
                   size.width != scene.width || size.height != scene.height {
                    scene.resize(width: size.width, height: size.height)
                    statusDirty = true
                }
                if configuration.takeTerminal { writer.invalidate() }
            }
            if let line = capture?.drain() {
                log = line
                statusDirty = true
            }
            shared.withLock { s in
                guard s.version != seenVersion else { return }
                seenVersion = s.version
                if s.drums != scene.drums { scene.setKit(s.drums) }
                status = s.status
                statusDirty = true
            }
            while let hit = hits.pop() {
                scene.hit(drum: Int(hit.drum), velocity: hit.velocity)
                statistics.recordHit(atMicros: nowMicros,
                                     latencyMicros: hit.latencyMicros == VisualHit.unknown ? nil : hit.latencyMicros)
                statusDirty = true
            }
            while let timing = timings.pop() {
                if timing.brainMicros != VisualHit.unknown { statistics.recordBrain(micros: timing.brainMicros) }
            }
            // The numbers change with time too (hits per second): at least 4 times a second.
            if statusDirty || nowMicros >= statusDue {
                let maxLines = max(0, scene.height - VisualScene.minimumDrawingRows - 1)
                scene.setStatus(StatusPanel.lines(status, hits: statistics.summary(nowMicros: nowMicros),
                                                  log: log.map { "log: " + $0 }, width: scene.width,
                                                  maxLines: maxLines))
                statusDue = nowMicros + 250_000
                statusDirty = false
            }
            scene.step(seconds: Float(now - last) / 1e9)
            last = now
            scene.draw(into: &frame)
            out.removeAll(keepingCapacity: true)
            writer.write(frame, into: &out)
            if !out.isEmpty && !terminalGone {
                // A terminal that went away (EIO, EPIPE) ends the drawing, not the brain.
                terminalGone = !TerminalSession.writeAll(configuration.fd, out)
                bytes.wrappingAdd(out.count, ordering: .relaxed)
            }
            frames.wrappingAdd(1, ordering: .relaxed)
            // Steady pace on absolute deadlines; after a long stall start afresh rather than rush.
            deadline += frameNanos
            let after = Self.now()
            if deadline < after - 4 * frameNanos { deadline = after }
            var wake = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nil) == EINTR {}
        }
    }

    /// Monotonic nanoseconds.
    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }
}

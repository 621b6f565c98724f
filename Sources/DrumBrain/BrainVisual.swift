import Console
import DrumAudio
import DrumNet
import DrumVisual
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The brain's terminal visual (issue 7): the `DrumVisual` renderer, fed from the brain's parts.
///
/// Thread safety: `hit` and `started` from the hit printer's thread only (the rings' one
/// producer); the rest from the control side.
final class BrainVisual: Sendable {
    let renderer: VisualRenderer
    /// The kit's name for the status line (`Kit.displayName`: already made safe to print).
    private let kitName: Mutex<String>

    /// Whether to draw: `--visual` / `--no-visual`, else whether standard output is a terminal.
    static func wanted(_ flag: Bool?) -> Bool { flag ?? TerminalSession.isTerminal(1) }

    /// Takes the terminal and starts drawing `kit`.
    init(kit: Kit) {
        kitName = Mutex(kit.displayName)
        renderer = VisualRenderer(
            drums: Self.drums(of: kit),
            configuration: .init(colorMode: .forCurrentEnvironment, seed: UInt64.random(in: 0...UInt64.max)))
        renderer.start()
    }

    /// A hit, as it arrives: `drum` is its index in the kit (nil when the kit lacks it).
    /// Never blocks: a full ring drops the hit from the picture only.
    func hit(drum: Int?, velocity: Float, latencyMicros: Int64?) {
        guard let drum else { return }
        renderer.hits.push(VisualHit(drum: Int32(drum), velocity: velocity,
                                     latencyMicros: latencyMicros ?? VisualHit.unknown))
    }

    /// A hit's time from receipt to the rendering of its period.
    func started(brainMicros: Int64) {
        renderer.timings.push(VisualHit(drum: -1, velocity: 0, brainMicros: brainMicros))
    }

    /// The kit after a reload: its drums, and its name on the status line.
    func setKit(_ kit: Kit) {
        kitName.withLock { $0 = kit.displayName }
        renderer.setKit(Self.drums(of: kit))
    }

    /// Polls the server's per-connection statistics and the audio status 4 times a second for
    /// the status area, until cancelled.
    func follow(server: BrainServer, engine: AudioEngine, brainName: String, listening: String) -> Task<Void, Never> {
        Task { [renderer, self] in
            while !Task.isCancelled {
                // No latency windows: the status does not show them, and a snapshot holding
                // them would make the network thread copy each pad's window on its next hit.
                let connections = (try? await server.statistics(latencies: false)) ?? []  // a stopping server has none
                renderer.update(status: BrainStatus(
                    brainName: brainName, listening: listening, kitName: self.kitName.withLock { $0 },
                    output: engine.outputDescription, xruns: engine.status.xruns,
                    connections: connections.map {
                        // Names from the wire, escaped: a pad cannot send the terminal escape codes.
                        PadStatus(name: $0.padName.map { WireText.printable($0, prose: true) },
                                  drum: $0.drum.map { WireText.printable($0, prose: true) }, address: $0.address,
                                  roundTripMicros: $0.roundTripMicros, clockOffsetMicros: $0.clockOffsetMicros,
                                  hits: $0.hits, gaps: $0.sequenceGaps)
                    }))
                try? await Task.sleep(for: .milliseconds(250))  // cancelled: the loop ends
            }
        }
    }

    /// Gives the terminal back, then prints what standard error received meanwhile. Idempotent.
    func stop() {
        for line in renderer.stop() { printError(line) }
    }

    private static func drums(of kit: Kit) -> [VisualDrum] {
        kit.drums.map { VisualDrum(name: $0.name, azimuth: $0.azimuth) }
    }
}

@_exported import SPSCRing  // VisualEventRing is one of its rings; users need its members

/// A hit as the visual takes it: which drum (kit index), how hard, and its latencies.
public struct VisualHit: Sendable, Equatable, BitwiseCopyable {
    /// Index into the kit's drums, or −1 for a brain-side timing report only.
    public var drum: Int32
    /// 0…1.
    public var velocity: Float
    /// Network latency (µs), or `VisualHit.unknown`.
    public var latencyMicros: Int64
    /// Receipt → period rendered (µs), or `VisualHit.unknown`.
    public var brainMicros: Int64

    /// "Not known".
    public static let unknown = Int64.min

    /// Creates a hit.
    public init(drum: Int32, velocity: Float, latencyMicros: Int64 = VisualHit.unknown,
                brainMicros: Int64 = VisualHit.unknown) {
        self.drum = drum
        self.velocity = velocity
        self.latencyMicros = latencyMicros
        self.brainMicros = brainMicros
    }
}

/// The hand-off from the hit path to the render thread (see `SPSCRing`): a push never blocks,
/// locks or allocates; when the render thread falls behind and the ring is full the hit is
/// dropped from the visual (and counted in `refusedCount`), never delayed.
public typealias VisualEventRing = SPSCRing<VisualHit>

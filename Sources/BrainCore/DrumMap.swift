import DrumAudio
import Synchronization

/// Drum names to the playing kit's indices, with the kit's generation; read on the network
/// thread per hit, replaced when the kit is reloaded.
///
/// Thread safety: any thread; a mutex, never contended in practice (one reader, rare reloads).
public final class DrumMap: Sendable {
    /// Guards the map against a reload while a hit is being resolved.
    private let state: Mutex<(index: [String: Int], names: [String], generation: UInt32)>

    /// The drums of `kit`, which the mixer plays as `generation`.
    public init(kit: Kit, generation: UInt32) {
        state = Mutex(Self.tables(kit.drums.map(\.name), generation))
    }

    /// A map of drum names alone (offline decisions, which play no kit), generation 0.
    public init(names: [String]) {
        state = Mutex(Self.tables(names, 0))
    }

    /// Takes the drums of a reloaded kit.
    public func replace(kit: Kit, generation: UInt32) {
        let made = Self.tables(kit.drums.map(\.name), generation)
        state.withLock { $0 = made }
    }

    /// The drum's index and the kit generation it belongs to.
    public func lookup(_ name: String) -> (index: Int, generation: UInt32)? {
        state.withLock { s in s.index[name].map { ($0, s.generation) } }
    }

    /// The kit's drum names, in its order.
    public var names: [String] { state.withLock { $0.names } }

    /// The index of `names` (the first of any repeated name wins) for `generation`.
    private static func tables(_ names: [String], _ generation: UInt32) -> (index: [String: Int], names: [String], generation: UInt32) {
        (Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }), names, generation)
    }
}

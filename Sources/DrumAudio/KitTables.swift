/// One velocity layer, flattened for the audio thread.
struct LayerEntry {
    var samples: UnsafeMutablePointer<Float>?
    var channels: Int
    var frames: Int
    var minVelocity: Float
    var maxVelocity: Float
}

/// A kit as the audio thread reads it: flat, preallocated tables, and the kit itself kept alive
/// (its samples) for as long as the tables are.
///
/// Thread safety: immutable after init. Real-time safety: reading is plain memory access.
final class KitTables: @unchecked Sendable {
    // @unchecked: every table is written in init only.
    let kit: Kit
    let generation: UInt32
    let drumCount: Int
    let panLeft: UnsafeMutablePointer<Float>
    let panRight: UnsafeMutablePointer<Float>
    let drumGain: UnsafeMutablePointer<Float>
    /// Every drum's layers: drum i's are `layerStart[i] ..< layerStart[i + 1]`.
    let layerTable: UnsafeMutablePointer<LayerEntry>
    let layerStart: UnsafeMutablePointer<Int>
    /// Each drum's MIDI note (`Kit.Drum.midiNote`), −1 for none.
    let midiNote: UnsafeMutablePointer<Int16>

    init(kit: Kit, generation: UInt32) {
        self.kit = kit
        self.generation = generation
        drumCount = min(kit.drums.count, Mixer.maxDrums)
        panLeft = .allocate(capacity: max(1, drumCount))
        panRight = .allocate(capacity: max(1, drumCount))
        drumGain = .allocate(capacity: max(1, drumCount))
        let layerCount = kit.drums.prefix(drumCount).reduce(0) { $0 + $1.layers.count }
        layerTable = .allocate(capacity: max(1, layerCount))
        layerStart = .allocate(capacity: drumCount + 1)
        midiNote = .allocate(capacity: max(1, drumCount))
        var next = 0
        for (i, drum) in kit.drums.prefix(drumCount).enumerated() {
            let pan = drum.panGains
            panLeft[i] = Float(pan.left)
            panRight[i] = Float(pan.right)
            drumGain[i] = Float(drum.gain)
            midiNote[i] = drum.midiNote.map { Int16($0) } ?? -1
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
    }

    deinit {
        panLeft.deallocate()
        panRight.deallocate()
        drumGain.deallocate()
        layerTable.deallocate()
        layerStart.deallocate()
        midiNote.deallocate()
    }
}

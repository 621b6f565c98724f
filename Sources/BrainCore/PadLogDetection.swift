import HitDetect

/// A pad's sensor log through the detection a pad runs at its defaults, for `drumbrain replay`:
/// every hit with its strike time, when the pad had it (its firing sample delivered) and its
/// strength as protocol 2 sends it.
///
/// Thread safety: pure, but for reading the file.
public enum PadLogDetection {
    /// What a log gave: its hits (and the pushes its detector felt, marked), its rate, and the drum its metadata names (`# drum:`).
    public struct Detected: Sendable {
        /// The hits in the order found, then the pushes felt (marked `felt`) in theirs.
        public var hits: [KitReplay.PadHit]
        /// How many of `hits` are pushes felt.
        public var felt: Int { hits.count { $0.felt } }
        /// The rate: `# rate_hz:`, else the median sample interval's.
        public var rateHz: Double?
        /// `# drum:` if the log says.
        public var drum: String?
        /// Samples read.
        public var samples: Int
    }

    /// Why a log could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// `file: what`.
        public var description: String
    }

    /// Reads `path` (a sensor log CSV) and runs `kind`'s detector at its defaults over its z axis.
    public static func detect(path: String, kind: DetectorKind) throws -> Detected {
        let bytes: [UInt8]
        do { bytes = try TextFile.readBytes(path) } catch { throw Failure(description: error.description) }
        // The adaptive detector's lean test reads x and y too (a bad x or y only leaves it
        // without them).
        var reader = SensorLogReader(fileName: path, options: .init(readXY: kind == .adaptive, optionalXY: true))
        var batch = SensorBatch()
        do {
            _ = try bytes.withUnsafeBytes { try reader.read($0, isEnd: true, into: &batch) }
            try reader.finish()
        } catch {
            throw Failure(description: "\(error)")
        }
        var hits: [KitReplay.PadHit] = []
        func run<D: HitDetector>(_ detector: inout D) {
            var found: [Hit] = []
            var firedAt: [Int] = []
            var felt: [(hit: Hit, at: Int)] = []
            detector.detect(batch, into: &found, firedAt: &firedAt, felt: &felt)
            for (hit, i) in zip(found, firedAt) {
                hits.append(.init(time: hit.time, arrival: max(hit.time, batch.deliveryTime(i)), velocity: hit.velocity,
                                  strength: kind.deviation(ofStrength: hit.strength)))
            }
            for (push, i) in felt {
                hits.append(.init(time: push.time, arrival: max(push.time, batch.deliveryTime(i)), velocity: push.velocity,
                                  strength: kind.deviation(ofStrength: push.strength), felt: true))
            }
        }
        switch kind {
        case .card:
            var detector = SquaredDeltaDetector()
            run(&detector)
        case .tvdrums:
            var detector = TVDrumsDetector()
            run(&detector)
        case .adaptive:
            var detector = AdaptiveDetector()
            run(&detector)
        }
        var rate = reader.metadataValue("rate_hz").flatMap { Double($0.split(separator: " ").first ?? "") }
        if rate == nil, batch.count > 2 {
            var meter = SampleRateMeter(intervals: min(64, batch.count - 1))
            for i in 0..<batch.count { if let r = meter.add(time: batch.time[i]) { rate = r; break } }
        }
        return Detected(hits: hits, rateHz: rate, drum: reader.metadataValue("drum"), samples: batch.count)
    }
}

#if canImport(Glibc)
import Glibc
#endif
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
        /// The first sample's time, s (nil with none).
        public var firstTime: Double?
    }

    /// Why a log could not be read.
    public struct Failure: Error, CustomStringConvertible {
        /// `file: what`.
        public var description: String
    }

    /// Bytes read from a log at a time; more than the reader's longest line (64 KiB).
    static let chunkBytes = 1 << 20

    /// Reads `path` (a sensor log CSV) in chunks (`LogChunks`), so that an endless input
    /// (`/dev/zero`) stops at the reader's longest line rather than filling memory, and runs
    /// `kind`'s detector at its defaults over its z axis. The corresponding C function is `open`.
    public static func detect(path: String, kind: DetectorKind) throws -> Detected {
        try detect(path: path, kind: kind, adaptive: AdaptiveDetector.Configuration())
    }

    /// `detect(path:kind:)` with the adaptive detector set to `adaptive` (tests judging a rule of
    /// the brain with one of the detector's off).
    static func detect(path: String, kind: DetectorKind, adaptive: AdaptiveDetector.Configuration) throws -> Detected {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        func failure(_ code: Int32) -> Failure { Failure(description: "\(path): \(String(cString: strerror(code)))") }
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        // The adaptive detector's lean test reads x and y too (a bad x or y only leaves it
        // without them).
        var reader = SensorLogReader(fileName: path, options: .init(readXY: kind == .adaptive, optionalXY: true))
        var batch = SensorBatch()
        do {
            try LogChunks.read(descriptor: fd, chunkBytes: chunkBytes, with: &reader, into: &batch, keepBatch: true) { _, _ in }
        } catch let failed as LogChunks.ReadFailed {
            throw failure(failed.errno)
        } catch {
            throw Failure(description: "\(error)")
        }
        // A stated rate counts only if it is one (a positive number up to 1 MHz); else it is
        // measured, as when none is stated.
        let stated = reader.metadataValue("rate_hz").flatMap { Double($0.split(separator: " ").first ?? "") }
            .flatMap { $0 > 0 && $0 <= 1e6 ? $0 : nil }
        return detect(batch, kind: kind, rateHz: stated, drum: reader.metadataValue("drum"), adaptive: adaptive)
    }

    /// The largest evemu recording read, bytes (whole, as `drumpad replay` reads one): an hour
    /// of a 1.6 kHz device is about 700 MB of text.
    public static let largestRecording = 1 << 30

    /// Runs `kind`'s detector at its defaults over `batch` (a log's or an evemu recording's
    /// samples); `rateHz` is measured from the samples when not given.
    public static func detect(_ batch: SensorBatch, kind: DetectorKind, rateHz: Double?, drum: String?) -> Detected {
        detect(batch, kind: kind, rateHz: rateHz, drum: drum, adaptive: AdaptiveDetector.Configuration())
    }

    /// `detect(_:kind:rateHz:drum:)` with the adaptive detector set to `adaptive`.
    static func detect(_ batch: SensorBatch, kind: DetectorKind, rateHz: Double?, drum: String?,
                       adaptive: AdaptiveDetector.Configuration) -> Detected {
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
            var detector = AdaptiveDetector(adaptive)
            run(&detector)
        }
        var measured: Double?
        if batch.count > 2 {
            var meter = SampleRateMeter(intervals: min(64, batch.count - 1))
            for i in 0..<batch.count { if let r = meter.add(time: batch.time[i]) { measured = r; break } }
        }
        // The stated rate, unless the samples' own is over twice or under half of it (a log
        // whose `# rate_hz:` is wrong would set the brain's windows by a rate it does not have).
        var rate = rateHz ?? measured
        if let stated = rateHz, let measured, measured > 2 * stated || measured < stated / 2 { rate = measured }
        return Detected(hits: hits, rateHz: rate, drum: drum, samples: batch.count, firstTime: batch.time.first)
    }
}

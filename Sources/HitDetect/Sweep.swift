/// Which detector a replay or sweep runs.
public enum DetectorKind: String, CaseIterable, Sendable {
    /// The card's squared-delta detector (docs/architecture.md, Detection): threshold 0.4 g²,
    /// refractory 10 samples. Also accepted under its old name, `default`.
    case card
    /// The original app's detector.
    case tvdrums
    /// The adaptive detector: noise floor, peak scan, mask time, decaying re-arm.
    case adaptive

    /// The detector every command uses when not told (`drumpad run` and `replay`, `drumbrain
    /// replay`): the adaptive one, which measured best on played stands (docs/detection.md).
    public static let padDefault: DetectorKind = .adaptive

    /// The detector named `name` on a command line: its name, or `default` for the card's.
    public init?(name: String) {
        if name == "default" { self = .card } else { self.init(rawValue: name) }
    }

    /// The refractory (blocked samples) this detector uses when none is given.
    public var defaultRefractory: Int { self == .tvdrums ? 8 : 10 }

    /// A hit's strength as the wire carries it (protocol 2): the deviation in g that fired,
    /// comparable between strikes on one pad. The squared-delta detector's strength is in g², so
    /// its square root; the others' are in g already.
    public func deviation(ofStrength strength: Double) -> Double {
        self == .card ? max(0, strength).squareRoot() : strength
    }
}

/// A threshold × refractory grid to sweep.
public struct SweepGrid: Equatable, Sendable {
    /// Thresholds to try, in the detector's units (g² for the default detector, g for tvdrums).
    public var thresholds: [Double]
    /// Refractory periods to try, in samples.
    public var refractories: [Int]

    /// Creates a grid.
    public init(thresholds: [Double], refractories: [Int]) {
        self.thresholds = thresholds
        self.refractories = refractories
    }

    /// The grid swept when none is given: thresholds 0.05…2.0 in steps of 0.05, refractory
    /// 2…30 samples in steps of 2.
    public static let standard = SweepGrid(
        thresholds: (1...40).map { Double($0) * 5 / 100 },  // 0.7, not 14 × 0.05 = 0.7000000000000001
        refractories: Array(stride(from: 2, through: 30, by: 2)))

    /// Parses a list of values: `A:B:STEP` (inclusive) or `v1,v2,...`.
    public static func parseValues(_ text: String, name: String) throws(HitDetectError) -> [Double] {
        let expected = "a list like 0.2,0.4,0.8 or a range START:END:STEP such as 0.1:1.0:0.1"
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 3 {
            guard let start = Double(parts[0]), let end = Double(parts[1]),
                  let step = Double(parts[2]), step > 0, end >= start,
                  (end - start) / step < 100_000
            else { throw .invalidSetting(name: name, value: text, expected: expected) }
            let count = Int(((end - start) / step + 1e-9).rounded(.down))
            // Rounded to 12 significant decimals so 0.1 * 3 prints as 0.3.
            return (0...count).map { ((start + Double($0) * step) * 1e12).rounded() / 1e12 }
        }
        let values = text.split(separator: ",").map { Double($0.drop { $0 == " " }) }
        guard !values.isEmpty, values.allSatisfy({ $0 != nil && $0!.isFinite }) else {
            throw .invalidSetting(name: name, value: text, expected: expected)
        }
        return values.map { $0! }
    }
}

/// The result of one cell of a sweep.
public struct SweepCell: Equatable, Sendable {
    /// The threshold of this cell.
    public var threshold: Double
    /// The refractory of this cell, in samples.
    public var refractory: Int
    /// Hits the detector fired.
    public var hits: Int
    /// The score against labels, when there were labels.
    public var score: HitScore?
}

/// Runs a detector over every cell of a threshold × refractory grid.
public enum Sweep {
    /// Runs `kind` with every setting of `grid` over the samples of `batch` (its gaps honoured)
    /// and returns one cell per setting, thresholds outermost. `progress` is called after each
    /// cell with the number of cells done.
    public static func run(
        _ kind: DetectorKind, grid: SweepGrid, over batch: SensorBatch,
        velocity: VelocityCurve = VelocityCurve(),
        labelTimes: [Double]?, tolerance: Double,
        progress: (Int) -> Void = { _ in }
    ) -> [SweepCell] {
        var cells: [SweepCell] = []
        cells.reserveCapacity(grid.thresholds.count * grid.refractories.count)
        var hits: [Hit] = []
        for threshold in grid.thresholds {
            for refractory in grid.refractories {
                hits.removeAll(keepingCapacity: true)
                switch kind {
                case .card:
                    var detector = SquaredDeltaDetector(.init(
                        threshold: threshold, refractorySamples: refractory, velocity: velocity))
                    detector.detect(batch, into: &hits)
                case .tvdrums:
                    var detector = TVDrumsDetector(.init(
                        threshold: threshold, blockedSamples: refractory, velocity: velocity))
                    detector.detect(batch, into: &hits)
                case .adaptive:
                    // The grid's threshold is the least trigger |h'| that fires (g), its refractory the mask (ms).
                    var configuration = AdaptiveDetector.Configuration()
                    configuration.minimumG = threshold
                    configuration.maskMs = Double(refractory)
                    var detector = AdaptiveDetector(configuration)
                    detector.detect(batch, into: &hits)
                }
                let score = labelTimes.map {
                    HitScore(hitTimes: hits.map(\.time), labelTimes: $0, tolerance: tolerance)
                }
                cells.append(SweepCell(threshold: threshold, refractory: refractory,
                                       hits: hits.count, score: score))
                progress(cells.count)
            }
        }
        return cells
    }

    /// The best scored cell: highest F1; among equals the highest threshold (the most margin
    /// over noise), then the shortest refractory (the fastest rolls). Nil without scores.
    public static func best(of cells: [SweepCell]) -> SweepCell? {
        cells.filter { $0.score != nil }.max { a, b in
            let fa = a.score!.f1, fb = b.score!.f1
            if fa != fb { return fa < fb }
            if a.threshold != b.threshold { return a.threshold < b.threshold }
            return a.refractory > b.refractory
        }
    }
}

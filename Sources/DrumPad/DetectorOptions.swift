import PadCommandLine
import HitDetect

extension DetectorKind: ExpressibleByArgument {
    /// `card`, `tvdrums`, `adaptive`, or `default` (the card's, by its old name).
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { allCases.map(\.rawValue) + ["default"] }
}
extension VelocityCurve.Shape: ExpressibleByArgument {}

/// The detector options `replay` and `run` share.
struct DetectorOptions: ParsableArguments {
    @Option(name: .customLong("threshold"),
            help: "Fire above this: squared delta in g² (card, default 0.4) or |Δz| in g (tvdrums); given alone, it picks the card's detector.")
    var thresholdChoice: Double?

    /// The threshold of the card's and tvdrums' detectors: given, or 0.4.
    var threshold: Double { thresholdChoice ?? 0.4 }

    @Option(help: "Samples after a hit that cannot fire (card 10, tvdrums 8); given alone, it picks the card's detector.")
    var refractory: Int?

    @Option(name: .customLong("detector"),
            help: "Detector: adaptive (the default: noise floor, peak scan, mask in ms; measured best on played stands, docs/detection.md), card (the card's squared delta, threshold 0.4, refractory 10 samples; also called default), or tvdrums (the original app's).")
    var detectorChoice: DetectorKind?

    /// The detector in force: as chosen; else the card's when its --threshold or --refractory is
    /// given; else the pads' default (adaptive).
    var detector: DetectorKind {
        detectorChoice ?? (thresholdChoice != nil || refractory != nil ? .card : .padDefault)
    }

    @Option(help: "Adaptive detector: ms after a strike in which nothing fires (its ringing).")
    var maskMs: Double?

    @Option(help: "Velocity of a hit just over the threshold, 0...1.")
    var velocityFloor: Double = 0.1

    @Option(help: "Strength in g that gives velocity 0.95 (stronger hits rise towards 1, in order): the jump |Δz| (card, tvdrums; default 2.0), or for adaptive how far z went from its level before the strike (default 3.0, and 8.0 for sensors of 500 Hz and more, whose samples see a strike's shock nearly whole).")
    var velocityFullScale: Double?

    @Option(help: "Adaptive detector: the least trigger |h'| (z high-passed twice) in g that fires, however quiet the sensor (default 0.11).")
    var minimumG: Double?

    func validate() throws {
        // A setting of another detector than the one in force was ignored without a word (the
        // sweep's own suggestion, --detector adaptive --threshold 0.8, changed nothing).
        if detector == .adaptive, thresholdChoice != nil || refractory != nil {
            throw ValidationError("--threshold and --refractory set the card's and tvdrums' detectors; the adaptive "
                                  + "detector's are --minimum-g (g) and --mask-ms")
        }
        if detector != .adaptive, minimumG != nil || maskMs != nil {
            throw ValidationError("--minimum-g and --mask-ms set the adaptive detector; the \(detector.rawValue) "
                                  + "detector's are --threshold and --refractory")
        }
        guard threshold >= 0, threshold.isFinite else {  // (the given one; 0.4 passes)
            throw ValidationError("--threshold must be a number ≥ 0, such as 0.4")
        }
        if let refractory, refractory < 0 {
            throw ValidationError("--refractory must be a whole number of samples ≥ 0, such as 10")
        }
        guard (0...1).contains(velocityFloor) else {
            throw ValidationError("--velocity-floor must be within 0...1, such as 0.1")
        }
        if let maskMs, !(maskMs >= 0 && maskMs.isFinite) {
            throw ValidationError("--mask-ms must be ≥ 0, such as 45")
        }
        if let minimumG, !(minimumG > 0 && minimumG.isFinite) {
            throw ValidationError("--minimum-g must be > 0 g, such as 0.11")
        }
        if let velocityFullScale, !(velocityFullScale > 0) {
            throw ValidationError("--velocity-full-scale must be > 0 g, such as 2.0")
        }
    }

    @Option(help: "Velocity curve: linear, soft (soft strikes louder) or hard (soft strikes softer).")
    var velocityCurve: VelocityCurve.Shape = .linear

    var velocity: VelocityCurve {
        VelocityCurve(floor: velocityFloor, fullScale: velocityFullScale ?? 2.0, shape: velocityCurve)
    }

    var refractorySamples: Int { refractory ?? detector.defaultRefractory }

    /// The adaptive detector's settings: its defaults, the mask and the velocity curve.
    var adaptiveConfiguration: AdaptiveDetector.Configuration {
        var configuration = AdaptiveDetector.Configuration()
        if let maskMs { configuration.maskMs = maskMs }
        if let minimumG { configuration.minimumG = minimumG }
        configuration.velocity = VelocityCurve(floor: velocityFloor, fullScale: velocityFullScale ?? 3.0,
                                               shape: velocityCurve)
        if velocityFullScale != nil { configuration.fastRateFullScale = nil }
        return configuration
    }

    /// The configured detector, for per-sample use at sensor rates (where an existential's
    /// cost does not matter; `replay` uses concrete types for its fast loop).
    func makeDetector() -> any HitDetector {
        switch detector {
        case .card:
            SquaredDeltaDetector(.init(threshold: threshold, refractorySamples: refractorySamples, velocity: velocity))
        case .tvdrums:
            TVDrumsDetector(.init(threshold: threshold, blockedSamples: refractorySamples, velocity: velocity))
        case .adaptive:
            AdaptiveDetector(adaptiveConfiguration)
        }
    }

    /// `card detector (threshold 0.4 g², refractory 10 samples)`.
    var text: String {
        switch detector {
        case .card:
            return "card detector (threshold \(threshold) g², refractory \(refractorySamples) samples)"
        case .tvdrums:
            return "tvdrums detector (threshold \(threshold) g, blocked \(refractorySamples) samples)"
        case .adaptive:
            let c = adaptiveConfiguration
            return "adaptive detector (\(c.noiseFactor)× noise floor, at least \(c.minimumG) g, mask \(c.maskMs) ms, "
                + "scan \(c.scanMs) ms and at least \(c.minimumScanSamples) samples)"
        }
    }
}

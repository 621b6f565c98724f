/// How well detected hits match labelled strikes.
///
/// Hits and labels are matched one-to-one in time order: walking both lists together, a hit and
/// a label within `tolerance` seconds of each other are a match; a hit earlier than the next
/// label's window is a false hit; a label whose window passes with no hit is a miss. Each hit
/// and each label is used at most once, so two hits within one label's window are one match and
/// one false hit.
///
/// When there is nothing to divide by, the convention is: no hits gives precision 1 (no hit was
/// false), no labels gives recall 1 (no strike was missed), and F1 is 0 when both precision and
/// recall are 0.
public struct HitScore: Equatable, Sendable {
    /// Hits that matched a label.
    public var truePositives: Int
    /// Hits that matched no label.
    public var falsePositives: Int
    /// Labels that no hit matched.
    public var falseNegatives: Int
    /// The matching window, in seconds either side of a label.
    public var tolerance: Double

    /// Fraction of hits that were real strikes.
    public var precision: Double {
        let found = truePositives + falsePositives
        return found == 0 ? 1 : Double(truePositives) / Double(found)
    }

    /// Fraction of real strikes that were found.
    public var recall: Double {
        let labels = truePositives + falseNegatives
        return labels == 0 ? 1 : Double(truePositives) / Double(labels)
    }

    /// Harmonic mean of precision and recall.
    public var f1: Double {
        let p = precision, r = recall
        return p + r == 0 ? 0 : 2 * p * r / (p + r)
    }

    /// The default matching window: the larger of 10 ms and 2.5 sample periods.
    public static func defaultTolerance(sampleRate: Double?) -> Double {
        guard let rate = sampleRate, rate > 0 else { return 0.010 }
        return max(0.010, 2.5 / rate)
    }

    /// Scores hit times against label times (both in seconds; sorted here if they are not).
    public init(hitTimes: [Double], labelTimes: [Double], tolerance: Double) {
        precondition(tolerance >= 0, "tolerance must not be negative")
        let hits = Self.sorted(hitTimes), labels = Self.sorted(labelTimes)
        var h = 0, l = 0, matched = 0
        while h < hits.count && l < labels.count {
            if hits[h] < labels[l] - tolerance {
                h += 1  // false hit
            } else if hits[h] > labels[l] + tolerance {
                l += 1  // missed label
            } else {
                matched += 1
                h += 1
                l += 1
            }
        }
        truePositives = matched
        falsePositives = hits.count - matched
        falseNegatives = labels.count - matched
        self.tolerance = tolerance
    }

    private static func sorted(_ times: [Double]) -> [Double] {
        var isSorted = true
        for i in times.indices.dropFirst() where times[i] < times[i - 1] {
            isSorted = false
            break
        }
        return isSorted ? times : times.sorted()
    }
}

/// The way a pad's own loud strikes move it across all three axes, learned from them, and
/// whether a weak candidate moved it another way (the adaptive detector's lean test: a stick
/// drives the pad the same way each time, a stand its own way).
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct StrikeWay: Sendable {
    /// The way, a unit vector with z ≥ 0.
    private(set) var way = Lean(x: 0, y: 0, z: 1)
    /// How many strikes have taught it, up to `AdaptiveDetector.leanHeld`.
    private(set) var taught = 0
    /// How far from the way the strikes lay (the mean of each one's distance from the way
    /// taught before it).
    private(set) var spread = 0.0

    /// Whether `lean` lies off the way by more than `share` (or `leanSpreadFactor` times the
    /// strikes' own stray, if more) of its part along it, plus three `noiseFloor`s: false until
    /// `leanNeeded` strikes have shown the way, and where x and y are unknown.
    func leansAway(_ lean: Lean, share: Double, noiseFloor: Double) -> Bool {
        guard taught >= AdaptiveDetector.leanNeeded, lean.x.isFinite, lean.y.isFinite else { return false }
        let (along, off) = lean.split(along: way)
        return off > max(share, AdaptiveDetector.leanSpreadFactor * spread) * abs(along) + 3 * noiseFloor
    }

    /// Teaches the way from a loud hit's `lean`: the mean of the unit vectors so far, weighed
    /// 1/16 each once `leanHeld` have taught it; and how far each lay from the way taught before
    /// it (the first, from none), likewise averaged.
    mutating func learn(_ lean: Lean) {
        let size = lean.length
        guard size > 0, size.isFinite else { return }
        let sign: Double = lean.z < 0 ? -1 : 1
        let u = lean.divided(by: sign * size)
        if taught > 0 {
            let (_, off) = u.split(along: way)
            spread += (off - spread) / Double(min(taught, AdaptiveDetector.leanHeld))
        }
        taught = min(taught + 1, AdaptiveDetector.leanHeld)
        let weight = 1 / Double(taught)
        let d = taught == 1 ? u : way.moved(toward: u, by: weight)
        let norm = d.length
        guard norm > 0 else { return }
        way = d.divided(by: norm)
    }
}

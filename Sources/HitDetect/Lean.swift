/// A sample's departure from the slow levels of x, y and z, g: which way the pad moved.
///
/// Thread safety: a value type. Real-time safety: arithmetic only.
struct Lean: Sendable {
    /// x's departure from its slow level, g.
    var x: Double
    /// y's departure from its slow level, g.
    var y: Double
    /// z's departure from its slow level, g.
    var z: Double

    /// The farther from z's level of this and `other` (a candidate's lean is its peak's).
    func including(_ other: Lean) -> Lean {
        abs(other.z) > abs(z) ? other : self
    }

    /// This lean's part along the unit vector `way`, and the size of the rest.
    func split(along way: Lean) -> (along: Double, off: Double) {
        let along = x * way.x + y * way.y + z * way.z
        return (along, Lean(x: x - along * way.x, y: y - along * way.y, z: z - along * way.z).length)
    }

    /// Its size, g.
    var length: Double { (x * x + y * y + z * z).squareRoot() }

    /// Each part divided by `k`.
    func divided(by k: Double) -> Lean { Lean(x: x / k, y: y / k, z: z / k) }

    /// `share` of the way from this to `other`, part by part (a running mean's step).
    func moved(toward other: Lean, by share: Double) -> Lean {
        Lean(x: x + share * (other.x - x), y: y + share * (other.y - y), z: z + share * (other.z - z))
    }
}

/// How far z went each way from its level before a strike's onset, in g: `rise` above it, `fall`
/// below it. A strike's strength is the larger.
///
/// Thread safety: a value type. Real-time safety: arithmetic only.
struct Swing: Sendable {
    /// The farthest above the level, g.
    var rise = 0.0
    /// The farthest below the level, g.
    var fall = 0.0

    /// The farther of the two.
    var deviation: Double { max(rise, fall) }

    /// This swing, widened by a sample `departure` g from the level (signed).
    func including(_ departure: Double) -> Swing {
        Swing(rise: max(rise, departure), fall: max(fall, -departure))
    }
}

/// The second half of `MountRinging`: a pad whose mount rings in two modes at once, learned from
/// the same windows of quiet after its hits. Each sample's h is predicted from the four before
/// it, h[n] ≈ b1 h[n−1] + b2 h[n−2] + b3 h[n−3] + b4 h[n−4], which is how the sum of two decaying
/// sinusoids looks sampled at any rate, whatever their phases and amplitudes (each mode is a pair
/// of the predictor's roots).
///
/// Why: on the independent stands (independent-stands-notebook-2.md, "A mount that rings in two
/// modes") a 100 Hz phone's mount rang at its own 20–40 Hz and at a second mode besides; the
/// one-mode fit left about half of that ringing unexplained 30–60 ms after a stroke, and it fired
/// past the mask, and a stand's sway after a strike on another pad fired the same way. A window
/// with two modes is one the one-mode model mostly refuses to learn from (its own fit leaves more
/// than `MountRinging.selfFitShare`), so this model keeps its own sums.
///
/// It learns where `MountRinging` does, with the same weights and the same fading, from windows
/// whose own four-coefficient fit leaves at most `selfFitShare` of their Σ h² unexplained, over
/// at least `samplesNeeded` samples. Four coefficients fit six or seven samples of a stroke
/// nearly as well as a ringing, so that test alone cannot tell them apart: a window in which the
/// pad fired a hit (`MountRinging.heardStroke`) teaches nothing. That hit may be the ringing
/// itself firing past the mask: where it fires after every stroke, the model learns only from
/// the strokes after which it did not (`TwoModeRingingTests`). It judges once as many windows
/// have taught it as the one mode asks (`MountRinging.windowsNeeded`: one; three cost the
/// independent phones and gamepads more than they won, independent-stands-notebook-3.md). The
/// pooled fit leans towards the fixed carry
/// (−`AdaptiveDetector.ringingCarry`, 0, 0, 0; a ridge of `MountRinging.ridge` × the sums'
/// scale), not the one mode as learned so far: the fit is ill-conditioned enough for the
/// ridge's target to decide it, and leaning on a one mode learned from one window it left a
/// 40 Hz ringing sampled at 250 Hz 2.5 times as unexplained (`OwnRingingGhostTests` lost every
/// ghost). A fit that does not decay (`decays`) is not taken.
///
/// The detector weighs a sample by whichever model leaves less of it unexplained
/// (`AdaptiveDetector`'s ringing test), and under about 170 Hz its ring hold holds two levels:
/// what that lesser remainder leaves, and what the one mode alone leaves.
///
/// Thread safety: a value type. Real-time safety: arithmetic on fixed-size storage, allocation-free.
struct TwoModeRinging: Sendable {
    /// The most of a window's Σ h² (weighed) that its own four-coefficient fit may leave
    /// unexplained for it to teach.
    static let selfFitShare = 0.05
    /// The fewest samples a window needs to teach (a 100 Hz window holds 6-7).
    static let samplesNeeded = 6
    /// The ridge of a window's own fit (towards no prediction), as a share of its mean Σ h²: it
    /// only keeps that fit defined where the samples say too little.
    static let windowRidge = 0.0001

    /// Σ w h_i h_j for i, j in 0…4 (h0 the sample, h1…h4 the four before it), and how many samples.
    private struct Sums: Sendable {
        /// Σ w h_i h_j at `i * 5 + j`.
        var m = InlineArray<25, Double>(repeating: 0)
        /// How many samples.
        var count = 0

        /// The sample h0 with the four before it, h1…h4, weighed by `weight`.
        mutating func add(_ h0: Double, _ h1: Double, _ h2: Double, _ h3: Double, _ h4: Double, weight: Double) {
            // Element by element: an array literal may allocate in a debug build.
            var h = InlineArray<5, Double>(repeating: 0)
            (h[0], h[1], h[2], h[3], h[4]) = (h0, h1, h2, h3, h4)
            for i in 0..<5 {
                for j in 0..<5 { m[i * 5 + j] += weight * h[i] * h[j] }
            }
            count += 1
        }

        /// These sums faded by `share`, and `other` added.
        func faded(by share: Double, adding other: Sums) -> Sums {
            var sums = other
            for k in 0..<25 { sums.m[k] += share * m[k] }
            sums.count += count
            return sums
        }

        /// Whether every sum is a number.
        var isFinite: Bool {
            for k in 0..<25 where !m[k].isFinite { return false }
            return true
        }

        /// The least-squares coefficients (h0 ≈ Σ b_k h_k) with a ridge of `ridgeShare` × the
        /// mean Σ h_k² towards `prior`, and the Σ (h0 − Σ b_k h_k)² they leave; nil where the
        /// sums give no answer.
        func fit(towards prior: (Double, Double, Double, Double), ridgeShare: Double) -> (b: InlineArray<4, Double>, residual: Double)? {
            var toward = InlineArray<4, Double>(repeating: 0)
            (toward[0], toward[1], toward[2], toward[3]) = prior
            var scale = 0.0
            for i in 1...4 { scale += m[i * 5 + i] }
            let lambda = ridgeShare * scale / 4
            guard scale > 0, lambda.isFinite else { return nil }
            // Gaussian elimination with partial pivoting on the 4 × 5 augmented normal equations.
            var a = InlineArray<20, Double>(repeating: 0)
            for i in 0..<4 {
                for j in 0..<4 { a[i * 5 + j] = m[(i + 1) * 5 + j + 1] + (i == j ? lambda : 0) }
                a[i * 5 + 4] = m[(i + 1) * 5] + lambda * toward[i]
            }
            for column in 0..<4 {
                var pivot = column
                for row in column..<4 where abs(a[row * 5 + column]) > abs(a[pivot * 5 + column]) { pivot = row }
                guard abs(a[pivot * 5 + column]) > 0 else { return nil }
                if pivot != column {
                    for k in 0..<5 { a.swapAt(column * 5 + k, pivot * 5 + k) }
                }
                for row in 0..<4 where row != column {
                    let factor = a[row * 5 + column] / a[column * 5 + column]
                    for k in column..<5 { a[row * 5 + k] -= factor * a[column * 5 + k] }
                }
            }
            var b = InlineArray<4, Double>(repeating: 0)
            for i in 0..<4 {
                b[i] = a[i * 5 + 4] / a[i * 5 + i]
                guard b[i].isFinite else { return nil }
            }
            var residual = m[0]
            for i in 0..<4 { residual -= 2 * b[i] * m[i + 1] }
            for i in 0..<4 {
                for j in 0..<4 { residual += b[i] * b[j] * m[(i + 1) * 5 + j + 1] }
            }
            return residual.isFinite ? (b, residual) : nil
        }
    }

    private var learned = Sums()
    private var window = Sums()
    /// Whether the open window holds a hit the pad fired (or samples that were not numbers).
    private var windowBroken = false
    private var windowsLearned = 0
    /// The predictor's coefficients, b1…b4; none until `MountRinging.windowsNeeded` windows taught.
    private var b = InlineArray<4, Double>(repeating: 0)
    /// Whether b1…b4 are learned.
    private(set) var hasLearned = false

    /// |h0 − the two modes' prediction from h1…h4| (infinite until learned).
    func unexplained(_ h0: Double, _ h1: Double, _ h2: Double, _ h3: Double, _ h4: Double) -> Double {
        hasLearned ? abs(h0 - b[0] * h1 - b[1] * h2 - b[2] * h3 - b[3] * h4) : .infinity
    }

    /// Whether h[n] = b1 h[n−1] + … + b4 h[n−4] decays from any start: every root of
    /// z⁴ − b1 z³ − b2 z² − b3 z − b4 inside the unit circle (each reflection coefficient of the
    /// step-down recursion under 1 in size). A predictor that does not decay (a trend, a
    /// growing swing) is no ringing, and could explain a stroke's own rise.
    static func decays(_ b: InlineArray<4, Double>) -> Bool {
        // a(z) = 1 + a1 z⁻¹ + … + a4 z⁻⁴, with a_i = −b_i.
        var a = InlineArray<4, Double>(repeating: 0)
        for i in 0..<4 { a[i] = -b[i] }
        for order in stride(from: 4, through: 1, by: -1) {
            let k = a[order - 1]
            guard abs(k) < 1 else { return false }
            let scale = 1 / (1 - k * k)
            var lower = InlineArray<4, Double>(repeating: 0)
            for i in 0..<(order - 1) { lower[i] = (a[i] - k * a[order - 2 - i]) * scale }
            a = lower
        }
        return true
    }

    /// A window opens.
    mutating func open() {
        window = Sums()
        windowBroken = false
    }

    /// The pad fired a hit, or the samples broke off: the open window teaches nothing.
    mutating func breakWindow() {
        windowBroken = true
    }

    /// A sample of the open window, with the four before it, weighed by `weight`.
    mutating func add(_ h0: Double, _ h1: Double, _ h2: Double, _ h3: Double, _ h4: Double, weight: Double) {
        guard h3.isFinite, h4.isFinite else {
            windowBroken = true
            return
        }
        window.add(h0, h1, h2, h3, h4, weight: weight)
    }

    /// The window is over: fold it in (the sums before it kept by `keep`), and fit again leaning
    /// towards the fixed carry.
    mutating func close(keep: Double) {
        guard !windowBroken, window.count >= Self.samplesNeeded, window.m[0] > 0,
              let own = window.fit(towards: (0, 0, 0, 0), ridgeShare: Self.windowRidge),
              own.residual <= Self.selfFitShare * window.m[0] else { return }
        let sums = learned.faded(by: keep, adding: window)
        guard sums.isFinite else { return }
        learned = sums
        windowsLearned += 1
        guard windowsLearned >= MountRinging.windowsNeeded,
              let pooled = sums.fit(towards: (-AdaptiveDetector.ringingCarry, 0, 0, 0), ridgeShare: MountRinging.ridge),
              Self.decays(pooled.b) else { return }
        b = pooled.b
        hasLearned = true
    }
}

/// The adaptive detector's ring rise window (the ring rise in its notes): the largest |h| in
/// each of the last four blocks of `blockSeconds`, newest (still filling) first, of the samples
/// up to the fourth before the one being judged (a soft note's own rise stays out of it).
///
/// Thread safety: a value type. Real-time safety: arithmetic only, allocation-free.
struct RingRiseWindow: Sendable {
    private var blocks: (Double, Double, Double, Double) = (0, 0, 0, 0)
    private var newestStart = -Double.infinity

    /// The largest |h| of the window (15-20 ms at 5 ms blocks).
    var largest: Double { max(max(blocks.0, blocks.1), max(blocks.2, blocks.3)) }

    /// A sample at `time`, `threeBack` the |h| of the sample three before it (the fourth before
    /// the next sample judged; nil while fewer samples have come, or not finite): a new block
    /// every `blockSeconds`; where times stepped back, the newest block starts again from here.
    mutating func add(time: Double, threeBack: Double?, blockSeconds: Double) {
        if time - newestStart >= blockSeconds {
            blocks = (0, blocks.0, blocks.1, blocks.2)
            newestStart = time
        } else if time < newestStart {
            newestStart = time
        }
        if let h = threeBack, h.isFinite { blocks.0 = max(blocks.0, h) }
    }

    /// Everything forgotten.
    mutating func clear() {
        self = RingRiseWindow()
    }
}

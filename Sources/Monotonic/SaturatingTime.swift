/// Total arithmetic on times and frame counts that may come from outside (a pad's clock, a
/// client's packet): it saturates at the ends of `Int64` instead of trapping, so a wild value
/// gives a wild but harmless result that range checks then refuse.
///
/// Thread safety: pure. Real-time safety: plain arithmetic, usable on the audio thread.
extension Int64 {
    /// `self + other`, held at `.max` or `.min` instead of overflowing.
    @inline(__always)
    public func saturatingAdd(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self − other`, held at `.max` or `.min` instead of overflowing.
    @inline(__always)
    public func saturatingSubtract(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other < 0 ? .max : .min) : difference
    }

    /// `self × other`, held at `.max` or `.min` instead of overflowing.
    @inline(__always)
    public func saturatingMultiply(_ other: Int64) -> Int64 {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        return overflow ? ((self < 0) == (other < 0) ? .max : .min) : product
    }
}

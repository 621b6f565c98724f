/// Fixed-point formatting of numbers into UTF-8 bytes, without Foundation.
///
/// Used by the log writer and CSV outputs: fast, and the same text on every machine.
public enum DecimalFormatting {
    /// Appends `value` with exactly `decimals` digits after the point (0...9), rounded half away
    /// from zero. A value that rounds to zero prints without a minus sign. Non-finite values
    /// print as `nan`, `inf` or `-inf`.
    public static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        precondition((0...9).contains(decimals), "decimals must be within 0...9")
        guard value.isFinite else {
            let text: StaticString = value.isNaN ? "nan" : value < 0 ? "-inf" : "inf"
            text.withUTF8Buffer { out.append(contentsOf: $0) }
            return
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e18 else {
            out.append(contentsOf: Array(value.description.utf8))
            return
        }
        let units = UInt64(scaled)
        if value < 0 && units != 0 { out.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scale)
        appendInteger(units / divisor, to: &out)
        guard decimals > 0 else { return }
        out.append(UInt8(ascii: "."))
        appendDigits(units % divisor, count: decimals, to: &out)
    }

    /// Appends an unsigned integer in decimal.
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        var count = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            count += 1
        }
        appendDigits(value, count: count, to: &out)
    }

    /// Appends the last `count` decimal digits of `value`, zero-padded on the left, written in
    /// place from the last one back (no buffer of their own: nothing to allocate once `out` has
    /// room).
    private static func appendDigits(_ value: UInt64, count: Int, to out: inout [UInt8]) {
        let first = out.count
        for _ in 0..<count { out.append(UInt8(ascii: "0")) }
        var rest = value
        var i = out.count - 1
        while rest > 0 && i >= first {
            out[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            i -= 1
        }
    }

    /// The text `append` would produce, as a String.
    public static func string(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        append(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

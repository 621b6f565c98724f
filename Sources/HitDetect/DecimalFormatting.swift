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
            out.append(contentsOf: value.isNaN ? Array("nan".utf8) : value < 0 ? Array("-inf".utf8) : Array("inf".utf8))
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
        var fraction = units % divisor
        var digits = [UInt8](repeating: UInt8(ascii: "0"), count: decimals)
        var i = decimals - 1
        while fraction > 0 && i >= 0 {
            digits[i] = UInt8(ascii: "0") + UInt8(fraction % 10)
            fraction /= 10
            i -= 1
        }
        out.append(contentsOf: digits)
    }

    /// Appends an unsigned integer in decimal.
    public static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            out.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// The text `append` would produce, as a String.
    public static func string(_ value: Double, decimals: Int) -> String {
        var bytes: [UInt8] = []
        append(value, decimals: decimals, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

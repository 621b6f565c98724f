/// Decimal text to `Double`, exact, without Foundation.
///
/// Most sensor-log numbers have a handful of digits, so they take Clinger's fast path: when the
/// decimal mantissa fits in 53 bits and the power of ten is at most 22, `mantissa × 10^e` (or
/// `/ 10^-e`) is one correctly rounded IEEE operation on two exact values. Everything else
/// (long mantissas, big exponents, `nan`, `inf`) goes to the standard library's parser, which
/// rounds correctly too.
@usableFromInline
enum DecimalParsing {
    /// Powers of ten that are exact in a `Double`.
    @usableFromInline
    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Parses `count` bytes at `start` as a decimal number; nil when they are not one.
    ///
    /// `powers` must point at `exactPowersOfTen` (passed in so the hot loop needs no global
    /// access).
    @inlinable
    static func parse(_ start: UnsafePointer<UInt8>, count: Int,
                      powers: UnsafePointer<Double>) -> Double? {
        var position = 0
        if let value = scan(start, &position, end: count, powers: powers), position == count {
            return value
        }
        return slowParse(start, count: count)
    }

    /// Scans a plain decimal number (`-12.345`, `1e-3`) starting at `position`, leaving
    /// `position` just after it. Returns nil, with `position` anywhere, for anything the fast
    /// path does not take (no digits, more than 19 significant digits, a large exponent): the
    /// caller then reads the field the slow, exact way.
    @inlinable @inline(__always)
    static func scan(_ base: UnsafePointer<UInt8>, _ position: inout Int, end: Int,
                     powers: UnsafePointer<Double>) -> Double? {
        var i = position
        var negative = false
        if i < end && (base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+")) {
            negative = base[i] == UInt8(ascii: "-")
            i &+= 1
        }
        var mantissa: UInt64 = 0
        var digits = 0  // all digits taken into the mantissa, leading zeros included
        var exponent = 0
        while i < end {
            let digit = base[i] &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            mantissa = mantissa &* 10 &+ UInt64(digit)
            digits &+= 1
            i &+= 1
        }
        if i < end && base[i] == UInt8(ascii: ".") {
            i &+= 1
            while i < end {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digits &+= 1
                exponent &-= 1
                i &+= 1
            }
        }
        guard digits > 0 && digits <= 19 else {
            position = i
            return nil
        }
        if i < end && (base[i] | 0x20) == UInt8(ascii: "e") {
            i &+= 1
            var exponentNegative = false
            if i < end && (base[i] == UInt8(ascii: "-") || base[i] == UInt8(ascii: "+")) {
                exponentNegative = base[i] == UInt8(ascii: "-")
                i &+= 1
            }
            var written = 0
            let firstDigit = i
            while i < end && written < 1000 {
                let digit = base[i] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                written = written &* 10 &+ Int(digit)
                i &+= 1
            }
            guard i > firstDigit else {
                position = i
                return nil
            }
            exponent &+= exponentNegative ? -written : written
        }
        position = i
        guard mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 else { return nil }
        let magnitude = exponent < 0
            ? Double(mantissa) / powers[-exponent] : Double(mantissa) * powers[exponent]
        return negative ? -magnitude : magnitude
    }

    /// The standard library's correctly rounded parser, for what the fast path cannot take.
    /// Only decimal spellings are numbers here: hexadecimal floats, which the standard library
    /// also reads, are refused; `nan` and `inf` are returned for the caller to report as not
    /// finite.
    @usableFromInline
    static func slowParse(_ start: UnsafePointer<UInt8>, count: Int) -> Double? {
        let bytes = UnsafeBufferPointer(start: start, count: count)
        let text = String(decoding: bytes, as: UTF8.self)
        let decimal = bytes.allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
                || byte | 0x20 == UInt8(ascii: "e")
        }
        if decimal { return Double(text) }
        var word = Substring(text.lowercased())
        if word.first == "-" || word.first == "+" { word = word.dropFirst() }
        return ["nan", "inf", "infinity"].contains(word) ? Double(text) : nil
    }
}

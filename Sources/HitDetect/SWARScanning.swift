/// Eight bytes at a time: finding field ends and parsing plain decimals in the reader's fast
/// path without a branch per byte (SWAR, "SIMD within a register").
///
/// Real sensor logs have fields of varying length (`0.0012`, `-0.0031`), so a byte-at-a-time
/// loop mispredicts its exit on almost every field; these routines replace those loops with a
/// few word operations. Every routine reads 8 bytes at a position only when 8 bytes remain
/// before `end`, and anything they do not take goes to the exact scalar code.
@usableFromInline
enum SWARScanning {
    @usableFromInline static let ones: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080
    @usableFromInline static let asciiZeros: UInt64 = 0x3030_3030_3030_3030

    /// Eight bytes at `p`, first byte lowest.
    @inlinable @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
    }

    /// High bit set in the lowest byte of `word` equal to `byte` (bits above it may be wrong).
    @inlinable @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    /// The position of the first `,`, `\n` or `\r` at or after `p`, or `end`.
    @inlinable @inline(__always)
    static func fieldEnd(_ base: UnsafePointer<UInt8>, from p: Int, end: Int) -> Int {
        var i = p
        while i &+ 8 <= end {
            let word = load(base + i)
            let found = matches(word, UInt8(ascii: ",")) | matches(word, UInt8(ascii: "\n"))
                | matches(word, UInt8(ascii: "\r"))
            if found != 0 { return i &+ found.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                return i
            }
            i &+= 1
        }
        return end
    }

    /// The value of `count` (1...8) ASCII digits at `p`, or nil if any is not a digit.
    /// Needs 8 readable bytes at `p`.
    @inlinable @inline(__always)
    static func digits(_ p: UnsafePointer<UInt8>, count: Int) -> UInt64? {
        var word = load(p)
        if count < 8 {
            // Move the digits to the top and fill below with '0': "1234" reads as "00001234".
            let shift = UInt64(8 &- count) &* 8
            word = (word << shift) | (asciiZeros & ((1 << shift) &- 1))
        }
        // Every byte must be 0x30...0x39.
        let isDigits = (word & 0xF0F0_F0F0_F0F0_F0F0)
            | (((word &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)
        guard isDigits == 0x3333_3333_3333_3333 else { return nil }
        // Lemire's eight-digit parse: pairs, then quads, then the whole.
        word = ((word & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
        word = ((word & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((word & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// Powers of ten as integers, 10⁰...10⁸.
    @usableFromInline static let integerPowersOfTen: [UInt64] = [
        1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000,
    ]

    /// Parses `[sign]int[.frac]` in `start..<fieldEnd` with at most 8 digits on each side of the
    /// point, or returns nil for the scalar parser to decide. Exact: the mantissa is below 10¹⁶
    /// and is checked against 2⁵³ before one correctly rounded division.
    @inlinable @inline(__always)
    static func decimal(_ base: UnsafePointer<UInt8>, from start: Int, to fieldEnd: Int, end: Int,
                        doublePowers: UnsafePointer<Double>,
                        integerPowers: UnsafePointer<UInt64>) -> Double? {
        var i = start
        guard i < fieldEnd else { return nil }
        let negative = base[i] == UInt8(ascii: "-")
        if negative || base[i] == UInt8(ascii: "+") { i &+= 1 }
        guard i &+ 8 <= end else { return nil }
        // The point, if any, within the first 8 bytes of this field (not the next one's).
        var dotMask = matches(load(base + i), UInt8(ascii: "."))
        if fieldEnd &- i < 8 { dotMask &= (1 << (UInt64(fieldEnd &- i) &* 8)) &- 1 }
        var integerCount: Int
        var fractionCount: Int
        if dotMask != 0 {
            integerCount = dotMask.trailingZeroBitCount >> 3
            fractionCount = fieldEnd &- i &- integerCount &- 1
        } else if fieldEnd &- i <= 8 {
            integerCount = fieldEnd &- i
            fractionCount = 0
        } else if fieldEnd &- i >= 9 && base[i &+ 8] == UInt8(ascii: ".") {
            integerCount = 8
            fractionCount = fieldEnd &- i &- 9
        } else {
            return nil
        }
        guard integerCount <= fieldEnd &- i, fractionCount >= 0, fractionCount <= 8,
              integerCount &+ fractionCount > 0
        else { return nil }
        var mantissa: UInt64 = 0
        if integerCount > 0 {
            guard let value = digits(base + i, count: integerCount) else { return nil }
            mantissa = value
        }
        if fractionCount > 0 {
            let fractionStart = i &+ integerCount &+ 1
            guard fractionStart &+ 8 <= end,
                  let value = digits(base + fractionStart, count: fractionCount)
            else { return nil }
            mantissa = mantissa &* integerPowers[fractionCount] &+ value
        }
        guard mantissa <= 1 << 53 else { return nil }
        let magnitude = Double(mantissa) / doublePowers[fractionCount]
        return negative ? -magnitude : magnitude
    }
}

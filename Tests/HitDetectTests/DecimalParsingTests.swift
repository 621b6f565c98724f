import Testing
@testable import HitDetect

private func parse(_ text: String) -> Double? {
    // A trailing sentinel keeps the buffer non-empty; only `count` bytes are parsed.
    let bytes = Array(text.utf8) + [0]
    return DecimalParsing.exactPowersOfTen.withUnsafeBufferPointer { powers in
        bytes.withUnsafeBufferPointer {
            DecimalParsing.parse($0.baseAddress!, count: $0.count - 1, powers: powers.baseAddress!)
        }
    }
}

struct DecimalParsingTests {
    /// Every spelling must give exactly what the standard library's correctly rounded parser
    /// gives: the fast path may never be off by one ulp.
    @Test(arguments: [
        "0", "-0", "1", "0.1", "0.2", "0.3", "-0.0031", "0.9987", "123.456789", "1e-3", "1E+2",
        "2.5e-7", ".5", "5.", "+3", "0.000001", "9007199254740993", "0.1234567890123456789012",
        "123456789012345678901234567890", "1.7976931348623157e308", "4.9e-324", "1e22", "1e23",
        "3.14159265358979323846", "1234.567890", "-987654.321",
    ])
    func matchesTheStandardLibraryExactly(_ text: String) {
        let expected = Double(text)
        #expect(expected != nil)
        #expect(parse(text)?.bitPattern == expected?.bitPattern)
    }

    @Test func randomDecimalsRoundTrip() {
        var state: UInt64 = 99
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = Double(Int64(bitPattern: state) >> 20) / 1e6
            let text = DecimalFormatting.string(value, decimals: 6)
            #expect(parse(text)?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    @Test(arguments: ["", "-", "+", ".", "abc", "1.2.3", "1e", "1e+", "--1", "1,5", "0x", "e5"])
    func rejectsWhatIsNotANumber(_ text: String) {
        #expect(parse(text) == nil)
    }
}

import Testing
import TextSearch

/// The substring search the pad's modules use instead of `_StringProcessing`'s.
struct TextSearchTests {
    @Test(arguments: [
        ("lis3lv02d accelerometer", "accelerometer", true), ("snare--top", "--", true), ("abc", "abcd", false),
        ("", "", false), ("abc", "", false), ("", "a", false), ("hi-hat", "hat", true), ("hi-hat", "hta", false),
        ("crème brûlée", "brû", true), ("aaab", "aab", true),
    ])
    func includesMatchesTheStandardLibrary(text: String, part: String, expected: Bool) {
        #expect(text.includes(part) == expected)
        #expect(text.includes(part) == text.contains(part))  // _StringProcessing's, here in a test
    }

    @Test func rangeOfTextIsThePartsPlace() {
        let text = "le:s12/16>>4"
        let range = text.rangeOfText(">>")
        #expect(range.map { String(text[$0]) } == ">>")
        #expect(range.map { String(text[$0.upperBound...]) } == "4")
        #expect(Substring("écran>>2").rangeOfText(">>").map { String(Substring("écran>>2")[..<$0.lowerBound]) } == "écran")
        #expect("abc".rangeOfText("x") == nil)
    }
}

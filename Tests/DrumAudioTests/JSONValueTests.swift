import DrumAudio
import Testing

/// The Foundation-free JSON reader kits are read with (a pad's board build has no Foundation).
struct JSONValueTests {
    func parse(_ text: String) throws(JSONValue.ParseError) -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    @Test func documentsParseToTheirValues() throws {
        let value = try parse(#" { "name": "Kit", "drums": [ {"gain": -1.5e2, "on": true, "x": null, "n": 0} ], "e": {} , "a": [] } "#)
        #expect(value["name"] == .string("Kit"))
        #expect(value["drums"] == .array([.object(["gain": .number(-150), "on": .bool(true), "x": .null, "n": .number(0)])]))
        #expect(value["e"] == .object([:]) && value["a"] == .array([]))
        #expect(try parse(#""tab\tquote\"slash\/\\ \u00e9\ud83e\udd41 ü""#) == .string("tab\tquote\"slash/\\ é🥁 ü"))
        #expect(try parse("0.5") == .number(0.5))
        #expect(try parse("-0") == .number(0))
        #expect(try parse("1E+3") == .number(1000))
    }

    @Test func badDocumentsSayWhatAndWhere() {
        let cases: [(String, Int, Int, String)] = [
            ("{\"a\": 1,}", 1, 9, "a member's name in quotes was expected"),
            ("{\n  \"a\" 1}", 2, 7, "\":\" was expected after \"a\""),
            ("[1 2]", 1, 4, "\",\" or \"]\" was expected"),
            ("{\"a\": 1, \"a\": 2}", 1, 15, "\"a\" appears twice"),
            ("01", 1, 2, "a number may not start with 0 and go on"),
            ("\"\\ud800\"", 1, 8, "a lone surrogate \\ud800"),
            ("\"a\nb\"", 1, 3, "a control character inside a text (write it as \\u00XX)"),
            ("tru", 1, 1, "\"true\" was expected"),
            ("1e999", 1, 6, "a number out of range"),
            ("{} x", 1, 4, "more after the document's end"),
            ("", 1, 1, "a value was expected, the document ended"),
            ("\"\u{FF}\"", 1, 4, "the text is not UTF-8"),
        ]
        for (text, line, column, reason) in cases {
            var bytes = Array(text.utf8)
            if text == "\"\u{FF}\"" { bytes = [0x22, 0xFF, 0x22] }
            do {
                _ = try JSONValue.parse(bytes)
                Issue.record("\(text) parsed")
            } catch {
                #expect(error.line == line && error.column == column && error.reason == reason, "\(text): \(error)")
            }
        }
        // Nesting is bounded: a hostile file cannot exhaust the stack.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONValue.ParseError.self) { try parse(deep) }
        #expect((try? parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64))) != nil)
    }
}

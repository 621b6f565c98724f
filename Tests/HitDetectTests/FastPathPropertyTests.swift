import Testing
@testable import HitDetect

/// The reader's fast path (SWAR field scanning and eight-digit parsing) must read every number
/// exactly as the standard library does, wherever chunk boundaries fall.
struct FastPathPropertyTests {
    /// A deterministic generator of number spellings, plain and awkward.
    struct Spellings {
        var state: UInt64

        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }

        mutating func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(next(10))) })
        }

        mutating func number() -> String {
            let sign = ["", "", "-", "+"][next(4)]
            switch next(8) {
            case 0: return sign + digits(1 + next(12))                       // integer
            case 1: return sign + "." + digits(1 + next(9))                  // no integer part
            case 2: return sign + digits(1 + next(9)) + "."                  // no fraction
            case 3: return sign + digits(1 + next(6)) + "e-" + digits(1 + next(2))  // exponent
            // Long: up to twelve integer digits, within the reader's ±1e12.
            case 4: return sign + digits(1 + next(12)) + "." + digits(1 + next(20))
            default: return sign + digits(1 + next(9)) + "." + digits(1 + next(9))  // plain
            }
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomSpellingsReadExactly(seed: UInt64) throws {
        var spellings = Spellings(state: seed)
        var text = "t,x,z,hit\n"
        var expectedX: [Double] = [], expectedZ: [Double] = []
        for row in 0..<3000 {
            let x = spellings.number(), z = spellings.number()
            expectedX.append(Double(x)!)
            expectedZ.append(Double(z)!)
            text += "\(row),\(x),\(z),\(row % 7 == 0 ? 1 : 0)"
            text += spellings.next(5) == 0 ? "\r\n" : "\n"
        }
        for chunk in [1 << 20, 4096, 61, 13] {
            let (reader, batch) = try readLog(text, chunk: chunk)
            #expect(reader.rowCount == 3000)
            #expect(batch.x.map(\.bitPattern) == expectedX.map(\.bitPattern))
            #expect(batch.z.map(\.bitPattern) == expectedZ.map(\.bitPattern))
            #expect(batch.labelled == Array(stride(from: 0, to: 3000, by: 7)))
        }
    }

    /// Past ±1e12 (`SensorLogReader.largestValue`) a number is an error naming its line and
    /// column, on the fast path's plain digits as on the general path's spellings, wherever the
    /// chunks end; an optional x or y there is dropped instead (NaN), as a malformed one is.
    @Test(arguments: ["1000000000001", "-1000000000001", "1e13", "170000000000000.5"])
    func aNumberBeyondTheLargestIsAnErrorNamingItsLine(_ field: String) throws {
        let text = "t,z\n0,1\n1,\(field)\n" + String(repeating: "2,0.123456789\n", count: 4)
        #expect(readError(text) == .numberTooLarge(file: "log.csv", line: 3, column: "z", text: field))
        let time = "t,z\n0,1\n\(field),0.5\n"
        #expect(readError(time) == .numberTooLarge(file: "log.csv", line: 3, column: "t", text: field))
        for chunk in [1 << 20, 5] {
            let (_, batch) = try readLog("t,x,y,z\n0,\(field),0,1\n1,0,0,1\n", chunk: chunk,
                                         options: .init(readXY: true, optionalXY: true))
            #expect(batch.count == 2 && batch.x[0].isNaN && batch.x[1] == 0)
        }
        #expect(readError("t,z\n0,1\n1,999999999999.5\n") == nil)
    }

    @Test(arguments: ["1.2.3", "12-3", "1..2", "--5", "0x1p3", "1,5", "١٢", "12345678a", "+", "-.", "1e"])
    func malformedFieldsStillFailWithTheirLine(_ field: String) {
        // Enough rows after it that the fast path's 8-byte loads have room.
        let text = "t,z\n0,1\n1,\(field)\n" + String(repeating: "2,0.123456789\n", count: 4)
        let error = readError(text)
        #expect(error != nil)
        if case .badNumber(_, let line, _, _)? = error { #expect(line == 3) }
        else if case .wrongFieldCount(_, let line, _, _)? = error { #expect(line == 3) }
        else if case .nonFiniteNumber(_, let line, _, _)? = error { #expect(line == 3) }
        else { Issue.record("unexpected \(String(describing: error))") }
    }
}

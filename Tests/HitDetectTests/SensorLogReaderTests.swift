import Testing
@testable import HitDetect

/// Reads `text` through a reader in chunks of `chunk` bytes, as a file reader would, carrying
/// each partial line over. Returns the reader and the samples.
func readLog(_ text: String, chunk: Int = 1 << 20, options: SensorLogReader.Options = .init(),
             file: String = "log.csv") throws -> (SensorLogReader, SensorBatch) {
    var reader = SensorLogReader(fileName: file, options: options)
    var batch = SensorBatch()
    let bytes = Array(text.utf8)
    var pending: [UInt8] = []
    var offset = 0
    repeat {
        let next = min(bytes.count, offset + chunk)
        pending += bytes[offset..<next]
        offset = next
        let isEnd = offset == bytes.count
        let consumed = try pending.withUnsafeBytes { raw in
            try reader.read(raw, isEnd: isEnd, into: &batch)
        }
        pending.removeFirst(consumed)
    } while offset < bytes.count
    try reader.finish()
    return (reader, batch)
}

/// The error `readLog` throws, or nil.
func readError(_ text: String, options: SensorLogReader.Options = .init()) -> HitDetectError? {
    do {
        _ = try readLog(text, options: options)
        return nil
    } catch {
        return error as? HitDetectError
    }
}

struct SensorLogReaderTests {
    static let designExample = """
        # drumpad sensor log v1
        # device: DualSense Wireless Controller Motion Sensors
        # rate_hz: 250
        t,x,y,z
        0.000000,0.0012,-0.0031,0.9987
        0.004000,0.0010,-0.0030,1.0123

        """

    @Test func readsTheDesignExample() throws {
        let (reader, batch) = try readLog(Self.designExample)
        #expect(batch.time == [0, 0.004])
        #expect(batch.x == [0.0012, 0.0010])
        #expect(batch.y == [-0.0031, -0.0030])
        #expect(batch.z == [0.9987, 1.0123])
        #expect(reader.metadataValue("device") == "DualSense Wireless Controller Motion Sensors")
        #expect(reader.metadataValue("rate_hz") == "250")
        #expect(reader.columns == ["t", "x", "y", "z"])
        #expect(reader.rowCount == 2)
    }

    @Test(arguments: [1, 2, 3, 7, 64])
    func anyChunkingGivesTheSameSamples(chunk: Int) throws {
        let text = Self.designExample + "0.008,0,0,1.5\n# gap\n0.02,0,0,0.5\n0.024,0,0,0.7"
        let (_, whole) = try readLog(text)
        let (reader, pieces) = try readLog(text, chunk: chunk)
        #expect(pieces.z == whole.z && pieces.time == whole.time)
        #expect(pieces.gapsBefore == [3] && whole.gapsBefore == [3])
        #expect(reader.lineNumber == 10)
    }

    @Test func columnsInAnyOrderAndExtraColumnsIgnored() throws {
        let (reader, batch) = try readLog("temp, Z ,label,T\n21.5,0.9,a,0.1\n21.6,1.1,b,0.2\n")
        #expect(batch.z == [0.9, 1.1])
        #expect(batch.time == [0.1, 0.2])
        #expect(reader.hasColumn("z") && !reader.hasColumn("x"))
    }

    /// A sensor that reports several samples at once says when each report arrived: the
    /// optional `t_event` column fills `delivered`, in any chunking, on both parsing paths
    /// (a row with spaces takes the general one); a log without it leaves `delivered` empty, and
    /// then each sample arrives at its own time.
    @Test(arguments: [1, 5, 1 << 20])
    func deliveryTimesAreReadWhenTheLogHasThem(chunk: Int) throws {
        let text = "t,x,y,z,t_event\n0.000,0,0,1,0.0113\n0.005,0,0,1,0.0113\n0.010, 0,0,1,0.0113\n0.015,0,0,1,0.0262\n"
        let (_, batch) = try readLog(text, chunk: chunk)
        #expect(batch.delivered == [0.0113, 0.0113, 0.0113, 0.0262])
        #expect(batch.deliveryTime(3) == 0.0262)
        let (_, plain) = try readLog("t,z\n0,1\n0.004,1\n")
        #expect(plain.delivered.isEmpty && plain.deliveryTime(1) == 0.004)
        #expect(readError("t,z,t_event\n0,1,soon\n")?.description.contains("column \"t_event\": \"soon\" is not a number") == true)
        var emptied = batch
        emptied.removeAll()
        #expect(emptied.delivered.isEmpty && emptied.firstIndex == 4)
    }

    @Test func aContinuationReadsDeliveryTimesToo() throws {
        var reader = SensorLogReader(fileName: "log.csv")
        var first = SensorBatch()
        _ = try Array("t,z,t_event\n0,1,0.01\n".utf8).withUnsafeBytes { try reader.read($0, isEnd: false, into: &first) }
        var part = reader.continuation()
        var second = SensorBatch()
        _ = try Array("0.005,1,0.02\n".utf8).withUnsafeBytes { try part.read($0, isEnd: true, into: &second) }
        #expect(first.delivered == [0.01] && second.delivered == [0.02])
    }

    @Test func commentsAndBlankLinesAnywhereAndCRLF() throws {
        let text = "# a\r\n\r\nt,z\r\n# between\r\n0,1\r\n\r\n   \r\n#x: y\r\n0.5,2\r\n"
        let (reader, batch) = try readLog(text)
        #expect(batch.z == [1, 2])
        #expect(batch.time == [0, 0.5])
        #expect(reader.metadataValue("x") == "y")
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let (_, batch) = try readLog("\u{FEFF}t,z\n0,1\n")
        #expect(batch.z == [1])
    }

    @Test func hitColumnLabelsSamples() throws {
        let (_, batch) = try readLog("t,z,hit\n0,1,0\n0.1,2,1\n0.2,1,\n0.3,3,1\n")
        #expect(batch.labelled == [1, 3])
    }

    @Test func gapCommentMarksTheNextRowOnlyAfterData() throws {
        let (_, batch) = try readLog("# gap\nt,z\n# gap\n0,1\n0.1,1\n# gap\n# gap\n0.2,1\n")
        #expect(batch.gapsBefore == [2])
    }

    @Test func headerOnlyIsAnEmptyLog() throws {
        let (reader, batch) = try readLog("# drumpad sensor log v1\nt,x,y,z\n")
        #expect(batch.count == 0 && reader.rowCount == 0)
        #expect(LogSummary(reader: reader).text.contains("no data rows"))
    }

    @Test func numbersInManySpellings() throws {
        let (_, batch) = try readLog("t,z\n0,1e-3\n1,-0.25\n2,+3\n3,.5\n4,5.\n5, 7 \n6,1E2\n")
        #expect(batch.z == [0.001, -0.25, 3, 0.5, 5, 7, 100])
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        let name: String
        let text: String
        let expected: HitDetectError
        var testDescription: String { name }
    }

    static let badCases: [BadCase] = [
        BadCase(name: "empty file", text: "", expected: .missingHeader(file: "log.csv")),
        BadCase(name: "only comments", text: "# drumpad sensor log v1\n\n# x: 1\n",
                expected: .missingHeader(file: "log.csv")),
        BadCase(name: "missing z", text: "# c\nt,x,y\n0,0,0\n",
                expected: .missingColumn(file: "log.csv", line: 2, column: "z", found: ["t", "x", "y"])),
        BadCase(name: "missing t", text: "z\n1\n",
                expected: .missingColumn(file: "log.csv", line: 1, column: "t", found: ["z"])),
        BadCase(name: "duplicate column", text: "t,z,z\n",
                expected: .duplicateColumn(file: "log.csv", line: 1, column: "z")),
        BadCase(name: "bad number", text: "t,z\n0,1\n0.1,abc\n",
                expected: .badNumber(file: "log.csv", line: 3, column: "z", text: "abc")),
        BadCase(name: "empty required field", text: "t,z\n0,\n",
                expected: .badNumber(file: "log.csv", line: 2, column: "z", text: "")),
        BadCase(name: "two points", text: "t,z\n0,1.2.3\n",
                expected: .badNumber(file: "log.csv", line: 2, column: "z", text: "1.2.3")),
        BadCase(name: "nan", text: "t,z\n0,nan\n",
                expected: .nonFiniteNumber(file: "log.csv", line: 2, column: "z", text: "nan")),
        BadCase(name: "decreasing t", text: "t,z\n0.2,1\n0.1,1\n",
                expected: .timeDecreased(file: "log.csv", line: 3, previous: 0.2, current: 0.1)),
        BadCase(name: "too few fields", text: "t,x,y,z\n0,1,2\n",
                expected: .wrongFieldCount(file: "log.csv", line: 2, expected: 4, found: 3)),
        BadCase(name: "too many fields", text: "t,z\n0,1,2\n",
                expected: .wrongFieldCount(file: "log.csv", line: 2, expected: 2, found: 3)),
        BadCase(name: "line numbers count comments and blanks",
                text: "# a\n\nt,z\n# b\n\n0,1\nx,1\n",
                expected: .badNumber(file: "log.csv", line: 7, column: "t", text: "x")),
    ]

    @Test(arguments: badCases)
    func malformedInputNamesFileAndLine(_ c: BadCase) {
        #expect(readError(c.text) == c.expected)
    }

    @Test func errorMessagesReadFileLineWhatAndFix() {
        #expect(readError("t,z\n0,1\n0.1,abc\n")?.description
                == "log.csv:3: column \"z\": \"abc\" is not a number")
        let missing = readError("t,x\n")?.description ?? ""
        #expect(missing.hasPrefix("log.csv:1: header has no \"z\" column (found: t,x)"))
    }

    @Test func rowsBeforeAnErrorAreKept() throws {
        var reader = SensorLogReader(fileName: "log.csv")
        var batch = SensorBatch()
        let bytes = Array("t,z\n0,1\n0.1,2\n0.2,oops\n0.3,4\n".utf8)
        #expect(throws: HitDetectError.self) {
            _ = try bytes.withUnsafeBytes { try reader.read($0, isEnd: true, into: &batch) }
        }
        #expect(batch.z == [1, 2])
    }

    @Test func skipBadRowsCountsAndContinues() throws {
        let text = "t,z\n0,1\n0.1,oops\n0.2,2,9\n0.3,4\n0.25,3\n"
        let (reader, batch) = try readLog(text, options: .init(skipBadRows: true))
        #expect(batch.z == [1, 4])
        #expect(reader.skippedRowCount == 3)
        #expect(reader.skippedRowMessages.first == "log.csv:3: column \"z\": \"oops\" is not a number")
    }

    @Test func unusedColumnsAreNotCheckedWhenNotRead() throws {
        let (_, batch) = try readLog("t,x,z\n0,junk,1\n", options: .init(readXY: false))
        #expect(batch.z == [1] && batch.x.isEmpty && batch.y.isEmpty)
    }

    @Test func labelFilesNeedOnlyT() throws {
        let (_, batch) = try readLog("t\n0.5\n1.25\n", options: .init(readXY: false, requireZ: false))
        #expect(batch.time == [0.5, 1.25])
    }

    @Test func overlongLineIsAnError() {
        let text = "t,z\n" + String(repeating: "1", count: 100) + "\n"
        #expect(readError(text, options: .init(maxLineBytes: 50))
                == .lineTooLong(file: "log.csv", line: 2, limit: 50))
    }

    /// Half a million rows (about 10 MB) fed in 64 KiB chunks, the batch emptied after each:
    /// the reader's memory stays that of one chunk's rows, not the file's.
    @Test func longLogReadsInConstantMemory() throws {
        var reader = SensorLogReader(fileName: "long.csv")
        var batch = SensorBatch()
        var pending = Array("# drumpad sensor log v1\nt,x,y,z\n".utf8)
        var row = 0
        let rows = 500_000
        var maxCapacity = 0
        var zSum = 0.0
        while row < rows || !pending.isEmpty {
            while pending.count < 1 << 16 && row < rows {
                var line: [UInt8] = []
                DecimalFormatting.append(Double(row) * 0.004, decimals: 6, to: &line)
                line += Array(",0.0012,-0.0031,".utf8)
                DecimalFormatting.append(Double(row % 100) / 100, decimals: 4, to: &line)
                line.append(UInt8(ascii: "\n"))
                pending += line
                row += 1
            }
            let isEnd = row == rows
            let consumed = try pending.withUnsafeBytes { raw in
                try reader.read(raw, isEnd: isEnd, into: &batch)
            }
            pending.removeFirst(consumed)
            zSum += batch.z.reduce(0, +)
            maxCapacity = max(maxCapacity, batch.z.capacity)
            batch.removeAll()
            if isEnd { break }
        }
        #expect(reader.rowCount == rows)
        #expect(batch.firstIndex == rows)
        #expect(abs(zSum - Double(rows / 100) * 49.5) < 1e-6)
        #expect(maxCapacity < 10_000)  // a 64 KiB chunk holds about 2,000 rows
    }
}

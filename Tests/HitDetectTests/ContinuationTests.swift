import Testing
@testable import HitDetect

/// A log split in two, the second part read by a continuation and absorbed, reads exactly like
/// the whole log read in one go.
struct ContinuationTests {
    static let head = "# drumpad sensor log v1\nt,z,hit\n"

    /// Reads `first` with a reader, `second` with its continuation, absorbs; returns the merged
    /// reader and both batches concatenated (as the driver hands them to the detector).
    func readSplit(_ first: String, _ second: String) throws -> (SensorLogReader, [SensorBatch])? {
        var reader = SensorLogReader(fileName: "log.csv")
        var a = SensorBatch()
        _ = try Array(first.utf8).withUnsafeBytes { try reader.read($0, isEnd: false, into: &a) }
        var part = reader.continuation()
        var b = SensorBatch()
        _ = try Array(second.utf8).withUnsafeBytes { try part.read($0, isEnd: true, into: &b) }
        guard reader.canAbsorb(part) else { return nil }
        reader.absorb(part, into: &b)
        return (reader, [a, b])
    }

    @Test(arguments: [
        ("0,1,0\n0.1,2,1\n", "0.2,3,0\n0.3,4,1\n"),
        ("0,1,0\n# gap\n", "0.2,3,0\n0.3,4,1\n"),             // a gap straddling the split
        ("0,1,0\n", "# gap\n0.2,3,0\n# note: x\n0.3,4,1\n"),   // a gap and metadata in the second part
        ("0,1,0\n0.1,2,1\n", ""),                              // an empty second part
        ("0,1,0\n0.1,2,1\n", "# only: comments\n\n"),
        ("", "# gap\n0.2,3,0\n0.3,4,1\n"),                   // no rows before: not a gap
    ])
    func splitReadsLikeWhole(first: String, second: String) throws {
        let (whole, all) = try readLog(Self.head + first + second)
        guard let (merged, parts) = try readSplit(Self.head + first, second) else {
            Issue.record("could not absorb")
            return
        }
        #expect(merged.rowCount == whole.rowCount)
        #expect(merged.lineNumber == whole.lineNumber)
        #expect(merged.firstTime == whole.firstTime && merged.lastTime == whole.lastTime)
        #expect(merged.metadata.map(\.key) == whole.metadata.map(\.key))
        #expect(parts[0].z + parts[1].z == all.z)
        #expect(parts[1].firstIndex == parts[0].count)
        let gaps = parts[0].gapsBefore + parts[1].gapsBefore.map { $0 + parts[0].count }
        #expect(gaps == all.gapsBefore)
        let labelled = parts[0].labelled + parts[1].labelled.map { $0 + parts[0].count }
        #expect(labelled == all.labelled)
        // And the detector sees the same hits.
        var one = SquaredDeltaDetector(.init(refractorySamples: 0))
        var two = SquaredDeltaDetector(.init(refractorySamples: 0))
        var wholeHits: [Hit] = [], splitHits: [Hit] = []
        one.detect(all, into: &wholeHits)
        for part in parts { two.detect(part, into: &splitHits) }
        #expect(wholeHits == splitHits)
    }

    @Test func timeGoingBackAcrossTheSplitIsNotAbsorbed() throws {
        #expect(try readSplit(Self.head + "0.5,1,0\n", "0.2,3,0\n") == nil)
    }

    @Test func errorsInTheSecondPartAreLeftToASequentialReread() throws {
        var reader = SensorLogReader(fileName: "log.csv")
        var a = SensorBatch()
        _ = try Array((Self.head + "0,1,0\n").utf8).withUnsafeBytes { try reader.read($0, isEnd: false, into: &a) }
        var part = reader.continuation()
        var b = SensorBatch()
        // The continuation's own line numbers are relative: the driver re-reads with `reader`.
        #expect(throws: HitDetectError.badNumber(file: "log.csv", line: 2, column: "z", text: "x")) {
            _ = try Array("0.2,3,0\n0.3,x,0\n".utf8).withUnsafeBytes { try part.read($0, isEnd: true, into: &b) }
        }
        #expect(throws: HitDetectError.badNumber(file: "log.csv", line: 5, column: "z", text: "x")) {
            _ = try Array("0.2,3,0\n0.3,x,0\n".utf8).withUnsafeBytes { try reader.read($0, isEnd: true, into: &a) }
        }
    }
}

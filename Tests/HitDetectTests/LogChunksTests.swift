#if canImport(Glibc)
import Glibc
#endif
@testable import HitDetect
import Testing
import TestSupport

/// `LogChunks`, the chunked read both programs read their logs with: rows split across chunks
/// are carried over whole, the rows before a bad one are handed on before its error, and a read
/// that fails says its errno.
struct LogChunksTests {
    static func log(rows: Int, badAt: Int? = nil) -> String {
        var text = "t,x,y,z\n"
        for i in 0..<rows {
            text += i == badAt ? "\(Double(i) / 100),0,0,oops\n" : "\(Double(i) / 100),0.01,-0.02,\(1 + Double(i % 7) / 10)\n"
        }
        return text
    }

    static func read(_ text: String, chunkBytes: Int) throws -> (z: [Double], handedOn: Int, chunks: Int, error: (any Error)?) {
        let path = Program.temporaryFile(text)
        defer { unlink(path) }
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        var reader = SensorLogReader(fileName: path)
        var batch = SensorBatch()
        var z: [Double] = [], handedOn = 0, chunks = 0
        do {
            try LogChunks.read(descriptor: fd, chunkBytes: chunkBytes, with: &reader, into: &batch) { batch, _ in
                z += batch.z
                handedOn += batch.count
                chunks += 1
            }
        } catch {
            return (z, handedOn, chunks, error)
        }
        return (z, handedOn, chunks, nil)
    }

    @Test func rowsSplitAcrossChunksAreReadWhole() throws {
        let text = Self.log(rows: 500)
        let whole = try Self.read(text, chunkBytes: 1 << 20)
        let small = try Self.read(text, chunkBytes: 100)  // a few rows a chunk, most cut in two
        let tiny = try Self.read(text, chunkBytes: 8)  // shorter than a row: the buffer grows
        #expect(whole.error == nil && small.error == nil && tiny.error == nil)
        #expect(whole.z.count == 500 && small.z == whole.z && tiny.z == whole.z)
        #expect(small.chunks > 100, "\(small.chunks) chunks")
    }

    @Test func theRowsBeforeABadOneAreHandedOnFirst() throws {
        let run = try Self.read(Self.log(rows: 300, badAt: 217), chunkBytes: 4096)
        #expect(run.error != nil)
        #expect(run.handedOn == 217 && run.z.count == 217, "\(run.handedOn) handed on")
        #expect("\(run.error!)".contains(":219"), "\(run.error!)")  // its line: the header is line 1
    }

    @Test func aReadThatFailsSaysItsErrno() {
        var reader = SensorLogReader(fileName: "closed")
        var batch = SensorBatch()
        do {
            try LogChunks.read(descriptor: -1, chunkBytes: 64, with: &reader, into: &batch) { _, _ in }
            Issue.record("a read of a closed descriptor did not throw")
        } catch let failed as LogChunks.ReadFailed {
            #expect(failed.errno == EBADF)
        } catch {
            Issue.record("\(error)")
        }
    }
}

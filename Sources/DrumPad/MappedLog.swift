import Dispatch
import HitDetect
#if canImport(Glibc)
import Glibc
#endif

/// A regular file mapped read-only into memory, so parts of it can be parsed on two cores
/// without copying. The pages are the kernel's page cache: mapping a large log does not hold it
/// in the process's own memory.
final class MappedFile: @unchecked Sendable {
    // @unchecked: the mapping is read-only and lives until deinit.
    let path: String
    let base: UnsafeRawPointer
    let size: Int

    /// Maps `path`; nil for what cannot be mapped (pipes, empty files), which the caller reads
    /// the ordinary way. The corresponding C function is `mmap`.
    init?(path: String) throws(DrumPadError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        let size = Int(info.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return nil }
        _ = madvise(mapped, size, MADV_SEQUENTIAL)  // a hint only; its failure changes nothing
        self.path = path
        base = UnsafeRawPointer(mapped)
        self.size = size
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    /// The bytes in `range`.
    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    /// The offset just after the first line end at or after `offset` (or the file's end).
    func lineEnd(after offset: Int) -> Int {
        guard offset < size else { return size }
        let start = base.assumingMemoryBound(to: UInt8.self)
        guard let found = memchr(start + offset, Int32(UInt8(ascii: "\n")), size - offset) else { return size }
        return UnsafeRawPointer(found) - base + 1
    }
}

/// Feeds a mapped log through a `SensorLogReader` in rounds of two line-aligned chunks: this
/// thread reads the first while another core reads the second with a continuation of the
/// reader; the continuation is then absorbed, or, when it cannot be exactly (an error, skipped
/// rows, `t` going back across the split), the chunk is read again in order. Either way the
/// batches reach `body` in file order with the same samples, gaps and errors as a sequential read.
enum ParallelLogReading {
    /// Bytes per chunk.
    static let chunkBytes = 1 << 20

    /// A continuation's result, handed back from the worker.
    final class PartResult: @unchecked Sendable {
        // @unchecked: written by the worker before it signals, read after the wait.
        var reader: SensorLogReader
        var batch = SensorBatch()
        var failed = false

        init(reader: SensorLogReader) { self.reader = reader }
    }

    static func read(_ file: MappedFile, with reader: inout SensorLogReader,
                     _ body: (inout SensorBatch, _ bytesDone: Int) throws -> Void) throws {
        var batch = SensorBatch()
        var offset = 0
        // Until the header is read, in order.
        while offset < file.size && reader.columns.isEmpty {
            offset = try readInOrder(file, offset..<file.lineEnd(after: offset + chunkBytes),
                                     reader: &reader, batch: &batch, body)
        }
        while offset < file.size {
            let firstEnd = file.lineEnd(after: offset + chunkBytes)
            guard firstEnd < file.size else {
                offset = try readInOrder(file, offset..<file.size, reader: &reader, batch: &batch, body)
                break
            }
            let secondEnd = file.lineEnd(after: firstEnd + chunkBytes)
            let part = PartResult(reader: reader.continuation())
            let done = DispatchSemaphore(value: 0)
            let secondRange = firstEnd..<secondEnd
            let isEnd = secondEnd == file.size
            DispatchQueue.global().async {
                do {
                    let consumed = try part.reader.read(file.bytes(secondRange), isEnd: isEnd, into: &part.batch)
                    part.failed = consumed != secondRange.count
                } catch {
                    part.failed = true
                }
                done.signal()
            }
            do {
                _ = try readInOrder(file, offset..<firstEnd, reader: &reader, batch: &batch, body)
            } catch {
                done.wait()  // the worker uses the mapping: let it finish first
                throw error
            }
            done.wait()
            if !part.failed && reader.canAbsorb(part.reader) {
                reader.absorb(part.reader, into: &part.batch)
                try body(&part.batch, secondEnd)
                offset = secondEnd
            } else {
                offset = try readInOrder(file, firstEnd..<secondEnd, reader: &reader, batch: &batch, body)
            }
        }
        try reader.finish()
    }

    /// Reads `range` (whole lines) with `reader` and hands the batch on; returns where it ended.
    private static func readInOrder(_ file: MappedFile, _ range: Range<Int>, reader: inout SensorLogReader,
                                    batch: inout SensorBatch,
                                    _ body: (inout SensorBatch, Int) throws -> Void) throws -> Int {
        let isEnd = range.upperBound == file.size
        let consumed: Int
        do {
            consumed = try reader.read(file.bytes(range), isEnd: isEnd, into: &batch)
        } catch {
            try body(&batch, range.lowerBound)  // the rows before the bad one are not lost
            throw error
        }
        try body(&batch, range.lowerBound + consumed)
        batch.removeAll()
        // Whole lines are always consumed; a range that ends mid-line is the file's end.
        return range.lowerBound + max(consumed, isEnd ? range.count : consumed)
    }
}

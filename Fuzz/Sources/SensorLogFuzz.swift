// libFuzzer target: the sensor-log reader (HitDetect), fast and exact paths. The first two bytes
// choose the options and the chunk size; the rest is fed as a file is, in chunks, carrying each
// chunk's unconsumed tail over to the next call. The same bytes read in one piece must give the
// same rows (bit for bit) and the same error, or it is a finding.
// Built with the HitDetect sources by scripts/fuzz (swiftc -sanitize=fuzzer,address).

struct ReadOutcome: Equatable {
    var time: [UInt64] = [], x: [UInt64] = [], y: [UInt64] = [], z: [UInt64] = []
    var labelled: [Int] = [], gaps: [Int] = []
    var error: String?
    var skipped = 0
}

func readLog(_ bytes: [UInt8], options: SensorLogReader.Options, chunk: Int) -> ReadOutcome {
    var reader = SensorLogReader(fileName: "fuzz.csv", options: options)
    var batch = SensorBatch()
    var outcome = ReadOutcome()
    var pending: [UInt8] = []
    var offset = 0
    func collect() {
        outcome.time += batch.time.map(\.bitPattern)
        outcome.x += batch.x.map(\.bitPattern)
        outcome.y += batch.y.map(\.bitPattern)
        outcome.z += batch.z.map(\.bitPattern)
        outcome.labelled += batch.labelled.map { $0 + batch.firstIndex }
        outcome.gaps += batch.gapsBefore.map { $0 + batch.firstIndex }
        batch.removeAll()
    }
    do throws(HitDetectError) {
        while true {
            let end = min(offset + chunk, bytes.count)
            pending += bytes[offset..<end]
            offset = end
            let isEnd = offset == bytes.count
            let result = pending.withUnsafeBytes { buffer in
                Result { () throws(HitDetectError) -> Int in try reader.read(buffer, isEnd: isEnd, into: &batch) }
            }
            let used = try result.get()
            pending.removeFirst(used)
            collect()
            if isEnd { break }
        }
        try reader.finish()
    } catch {
        collect()
        outcome.error = error.description
    }
    outcome.skipped = reader.skippedRowCount
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func sensorLogFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let flags = data[0]
    let maxLine = 64 + Int(flags >> 4) * 16
    let options = SensorLogReader.Options(skipBadRows: flags & 1 != 0, readXY: flags & 2 != 0,
                                          requireZ: flags & 4 != 0, maxLineBytes: maxLine)
    // Callers feed chunks longer than the longest line.
    let chunk = maxLine + 1 + Int(data[1])
    let bytes = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    let whole = readLog(bytes, options: options, chunk: max(bytes.count, 1))
    let chunked = readLog(bytes, options: options, chunk: chunk)
    // A line too long for one chunk is found only when chunked; compare the rest.
    if chunked.error?.contains("longer than") != true && whole.error?.contains("longer than") != true {
        precondition(whole == chunked, "chunked read differs: whole \(whole) chunked \(chunked)")
    }
    return 0
}

extension SensorLogReader {
    /// A reader for a later part of the same log, to parse it concurrently with this one: it
    /// knows the header, but counts lines from 0, checks `t` only within its part, and keeps its
    /// own metadata. Give it input that starts at a line start, after this reader's header.
    ///
    /// Merge it back with `absorb(_:into:)` once this reader has read everything before it.
    public func continuation() -> SensorLogReader {
        precondition(sawHeader, "a continuation needs the header read first")
        var reader = SensorLogReader(fileName: fileName, options: options)
        reader.columns = columns
        reader.roles = roles
        reader.readsDelivery = readsDelivery
        reader.sawHeader = true
        // Rows are counted from 0; a `# gap` before the first row counts (rows are assumed
        // before it), and `absorb` corrects both once the rows before are known.
        reader.isContinuation = true
        return reader
    }

    /// Whether `absorb` can merge `part` exactly: it read without skipping rows, and its first
    /// time does not go back from this reader's last. When false, read that part again with this
    /// reader instead (its errors then name the right lines).
    public func canAbsorb(_ part: SensorLogReader) -> Bool {
        guard part.skippedRowCount == 0, part.isContinuation else { return false }
        if let first = part.firstTime, let last = lastTime, first < last { return false }
        return true
    }

    /// Takes over the state of `part`, a continuation that read the input right after this
    /// reader's, and fixes up `batch`, the samples it produced: a `# gap` at the end of this
    /// reader's input marks `batch`'s first sample.
    public mutating func absorb(_ part: SensorLogReader, into batch: inout SensorBatch) {
        precondition(canAbsorb(part), "check canAbsorb first")
        batch.firstIndex = rowCount
        if rowCount == 0 && batch.gapsBefore.first == 0 {
            batch.gapsBefore.removeFirst()  // no rows before it after all: not a gap
        }
        if pendingGap && part.rowCount > 0 && rowCount > 0 {
            if batch.gapsBefore.first != 0 { batch.gapsBefore.insert(0, at: 0) }
            pendingGap = false
        }
        if part.pendingGap { pendingGap = true }
        lineNumber += part.lineNumber
        if part.rowCount > 0 {
            if firstTime == nil { firstTime = part.firstTime }
            lastTime = part.lastTime
        }
        rowCount += part.rowCount
        for entry in part.metadata where metadata.count < 256 { metadata.append(entry) }
    }
}

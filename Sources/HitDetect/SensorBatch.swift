/// A run of consecutive sensor samples in columns, as `SensorLogReader` produces them.
///
/// A reader appends to a batch; a caller that streams clears it between reads with
/// `removeAll()`, which keeps the capacity so that steady-state reading does not allocate, and a
/// caller that needs the whole log (a sweep) keeps appending.
///
/// Thread safety: a plain value.
public struct SensorBatch: Sendable {
    /// Index, in the whole log, of the batch's first sample.
    public var firstIndex = 0
    /// Sample times in seconds.
    public var time: [Double] = []
    /// x acceleration in g (0 when the log has no x column; empty when the reader was not asked
    /// for x and y).
    public var x: [Double] = []
    /// y acceleration in g (0 when the log has no y column; empty when the reader was not asked
    /// for x and y).
    public var y: [Double] = []
    /// z acceleration in g.
    public var z: [Double] = []
    /// When each sample's report reached the host, in seconds on the clock of `time`: the log's
    /// optional `t_event` column. A sensor that sends several samples per report (a Joy-Con
    /// sends three) delivers them together, after the last was taken. Empty when the log has no
    /// such column; then each sample is taken to arrive at its own time.
    public var delivered: [Double] = []
    /// Indices into this batch of the samples labelled as hits by the log's `hit` column.
    public var labelled: [Int] = []
    /// Indices into this batch (ascending) of samples that follow a gap (`# gap` in the log).
    public var gapsBefore: [Int] = []

    /// Creates an empty batch.
    public init() {}

    /// Number of samples in the batch.
    @inlinable public var count: Int { z.count }

    /// Reserves room for `capacity` samples.
    public mutating func reserveCapacity(_ capacity: Int) {
        time.reserveCapacity(capacity)
        x.reserveCapacity(capacity)
        y.reserveCapacity(capacity)
        z.reserveCapacity(capacity)
    }

    /// When sample `i` reached the host: its `delivered` time, or its own time when the log
    /// does not say.
    @inlinable public func deliveryTime(_ i: Int) -> Double {
        delivered.isEmpty ? time[i] : delivered[i]
    }

    /// Empties the batch, keeping its storage; the next sample appended is number
    /// `firstIndex + count` of the log.
    public mutating func removeAll() {
        firstIndex += count
        time.removeAll(keepingCapacity: true)
        x.removeAll(keepingCapacity: true)
        y.removeAll(keepingCapacity: true)
        z.removeAll(keepingCapacity: true)
        delivered.removeAll(keepingCapacity: true)
        labelled.removeAll(keepingCapacity: true)
        gapsBefore.removeAll(keepingCapacity: true)
    }

    /// Appends one sample.
    @inlinable
    public mutating func append(time t: Double, x xValue: Double, y yValue: Double, z zValue: Double) {
        time.append(t)
        x.append(xValue)
        y.append(yValue)
        z.append(zValue)
    }
}

extension HitDetector {
    /// Runs the detector over a batch, honouring its gaps, and appends the hits it fires.
    @inlinable
    public mutating func detect(_ batch: SensorBatch, into hits: inout [Hit]) {
        detect(batch) { hit, _ in hits.append(hit) }
    }

    /// Runs the detector over a batch, honouring its gaps, and appends the hits it fires and,
    /// for each, the index into the batch of the sample it fired on: where a live pad would
    /// send it (for a detector that scans after the onset, later than the hit's own sample).
    @inlinable
    public mutating func detect(_ batch: SensorBatch, into hits: inout [Hit], firedAt: inout [Int]) {
        detect(batch) { hit, i in
            hits.append(hit)
            firedAt.append(i)
        }
    }

    /// As `detect(_:into:firedAt:)`, and appends the pushes turned away as felt (`takeFelt`),
    /// each with the index of the sample it was turned away on.
    @inlinable
    public mutating func detect(_ batch: SensorBatch, into hits: inout [Hit], firedAt: inout [Int],
                                felt: inout [(hit: Hit, at: Int)]) {
        detect(batch, { hit, i in
            hits.append(hit)
            firedAt.append(i)
        }, felt: { push, i in felt.append((push, i)) })
    }

    /// Runs the detector over a batch, honouring its gaps, and hands each hit to `found` with
    /// the index into the batch of the sample it fired on, and each push felt to `felt`. The
    /// batch's x and y go with z when it was read with them (`SensorLogReader.Options.readXY`).
    @inlinable
    mutating func detect(_ batch: SensorBatch, _ found: (Hit, Int) -> Void, felt: (Hit, Int) -> Void = { _, _ in }) {
        batch.x.withUnsafeBufferPointer { xs in
            batch.y.withUnsafeBufferPointer { ys in
                batch.z.withUnsafeBufferPointer { zs in
                    batch.time.withUnsafeBufferPointer { ts in
                        batch.gapsBefore.withUnsafeBufferPointer { gaps in
                            detect(x: xs, y: ys, z: zs, time: ts, gapsBefore: gaps, found, felt: felt)
                        }
                    }
                }
            }
        }
    }
}

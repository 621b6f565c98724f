/// A streaming hit detector: one sample in, at most one hit out.
///
/// Conforming types are small value types whose `process` never allocates, so they can run on
/// a sensor thread at the sensor's full rate.
public protocol HitDetector {
    /// Feeds one sample of z acceleration in g taken at `time` seconds.
    ///
    /// Returns the hit that fires on this sample, if any. The sample's index is `sampleCount`
    /// before the call.
    mutating func process(z: Double, time: Double) -> Hit?

    /// As `process(z:time:)`, with the sample's other two axes (x and y where z is the strike's
    /// axis), g: 0 where a log or sensor has no such axis, nan where a value is unknown (either
    /// leaves the adaptive detector's lean test out). Detectors that use z alone ignore them.
    mutating func process(x: Double, y: Double, z: Double, time: Double) -> Hit?

    /// Tells the detector that samples were lost before the next one (the kernel reported
    /// dropped events, the sensor reconnected): the next sample primes instead of being
    /// compared across the gap.
    mutating func markGap()

    /// How many samples the detector has been given.
    var sampleCount: Int { get }

    /// The push felt through the stand that the last `process` call turned away as no strike,
    /// if any, dated and measured as a hit would be; then nil until the next. The brain learns
    /// its stands from these too, and never plays them (`/drum/felt`).
    mutating func takeFelt() -> Hit?
}

extension HitDetector {
    /// Detectors that turn nothing away as felt: nil.
    public mutating func takeFelt() -> Hit? { nil }

    /// Detectors that read z alone.
    public mutating func process(x: Double, y: Double, z: Double, time: Double) -> Hit? {
        process(z: z, time: time)
    }
}

extension HitDetector {
    /// Runs the detector over a buffer of samples and appends the hits it fires.
    ///
    /// `time` and `z` must have the same count. `gapsBefore` lists indices into the buffers
    /// (ascending) whose sample follows a gap. Appending to `hits` is the only allocation, and
    /// only when it outgrows its capacity.
    @inlinable
    public mutating func detect(
        z: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Double>,
        gapsBefore: UnsafeBufferPointer<Int> = UnsafeBufferPointer(start: nil, count: 0),
        into hits: inout [Hit]
    ) {
        detect(z: z, time: time, gapsBefore: gapsBefore) { hit, _ in hits.append(hit) }
    }

    /// Runs the detector over a buffer of samples, honouring the gaps, and hands each hit to
    /// `found` with the index into the buffers of the sample it fired on.
    @inlinable
    public mutating func detect(
        z: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Double>,
        gapsBefore: UnsafeBufferPointer<Int>, _ found: (Hit, Int) -> Void
    ) {
        detect(z: z, time: time, gapsBefore: gapsBefore, found, felt: { _, _ in })
    }

    /// As `detect(z:time:gapsBefore:_:)`, and hands each push turned away as felt
    /// (`takeFelt`) to `felt` with the index of the sample it was turned away on.
    @inlinable
    public mutating func detect(
        z: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Double>,
        gapsBefore: UnsafeBufferPointer<Int>, _ found: (Hit, Int) -> Void, felt: (Hit, Int) -> Void
    ) {
        detect(x: UnsafeBufferPointer(start: nil, count: 0), y: UnsafeBufferPointer(start: nil, count: 0), z: z, time: time,
               gapsBefore: gapsBefore, found, felt: felt)
    }

    /// As `detect(z:time:gapsBefore:_:felt:)`, with the other two axes (`process(x:y:z:time:)`)
    /// when `x` and `y` hold as many samples as `z` (empty: z alone).
    @inlinable
    public mutating func detect(
        x: UnsafeBufferPointer<Double>, y: UnsafeBufferPointer<Double>,
        z: UnsafeBufferPointer<Double>, time: UnsafeBufferPointer<Double>,
        gapsBefore: UnsafeBufferPointer<Int>, _ found: (Hit, Int) -> Void, felt: (Hit, Int) -> Void
    ) {
        precondition(z.count == time.count, "z and time buffers differ in length")
        let across = x.count == z.count && y.count == z.count
        var start = 0
        var nextGap = 0
        while start < z.count || nextGap < gapsBefore.count {
            let end = nextGap < gapsBefore.count ? gapsBefore[nextGap] : z.count
            precondition(end >= start && end <= z.count, "gap indices must ascend within the buffer")
            var i = start
            while i < end {
                if let hit = across ? process(x: x[i], y: y[i], z: z[i], time: time[i]) : process(z: z[i], time: time[i]) {
                    found(hit, i)
                } else if let push = takeFelt() {
                    felt(push, i)
                }
                i &+= 1
            }
            if nextGap < gapsBefore.count {
                markGap()
                nextGap &+= 1
            }
            start = end
            if start == z.count && nextGap == gapsBefore.count { break }
        }
    }

    /// Runs the detector over arrays of samples and returns the hits it fires.
    @inlinable
    public mutating func detect(z: [Double], time: [Double], gapsBefore: [Int] = []) -> [Hit] {
        var hits: [Hit] = []
        z.withUnsafeBufferPointer { zs in
            time.withUnsafeBufferPointer { ts in
                gapsBefore.withUnsafeBufferPointer { gaps in
                    detect(z: zs, time: ts, gapsBefore: gaps, into: &hits)
                }
            }
        }
        return hits
    }
}

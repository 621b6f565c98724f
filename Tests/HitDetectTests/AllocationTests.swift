import Foundation
import AllocationCounter
import Testing
import TestSupport
@testable import HitDetect

/// The detectors' per-sample path never allocates (docs/architecture.md, Brain audio, STYLE.md "Real time").
struct AllocationTests {
    static let z: [Double] = (0..<20_000).map { i in i % 40 == 0 ? 2.5 : (i % 40 == 1 ? 0.7 : 1.0) }
    static let times: [Double] = (0..<20_000).map { Double($0) * 0.004 }

    @Test func theCounterSeesAllocations() {
        allocation_counter_start()
        let array = Array(repeating: UInt8(1), count: Int.random(in: 100...200))
        let counted = allocation_counter_stop()
        #expect(array.count >= 100)
        #expect(counted >= 1)
    }

    /// Feeds every sample to `detector` one by one (with a gap before sample `gapAt`) while
    /// counting allocations; returns the allocations and the hits fired.
    static func countAllocations<D: HitDetector>(_ detector: inout D, gapAt: Int? = nil) -> (allocations: Int, fired: Int) {
        var fired = 0
        let z = Self.z, times = Self.times
        allocation_counter_start()
        for i in z.indices {
            if i == gapAt { detector.markGap() }
            if detector.process(z: z[i], time: times[i]) != nil { fired += 1 }
        }
        return (Int(allocation_counter_stop()), fired)
    }

    @Test func defaultDetectorProcessDoesNotAllocate() {
        var detector = SquaredDeltaDetector()
        let (counted, fired) = Self.countAllocations(&detector, gapAt: 10_000)
        #expect(counted == 0)
        #expect(fired == 500)
    }

    @Test func tvdrumsProcessDoesNotAllocate() {
        var detector = TVDrumsDetector()
        let (counted, fired) = Self.countAllocations(&detector)
        #expect(counted == 0)
        #expect(fired == 500)
    }

    /// Runs an adaptive detector once over a 100 Hz signal whose mount ringing both of its models
    /// learn, before any counting: in a debug build the Swift runtime instantiates a generic
    /// type's metadata (the two-mode model's `InlineArray`s) on its first use in the process, once
    /// (31 allocations here, counted by whichever adaptive test came first: every adaptive test
    /// here warms up, since parallel runs order them at random), which is no per-sample
    /// allocation.
    static func warmUp() {
        var detector = AdaptiveDetector()
        for i in z.indices { _ = detector.process(z: ringingZ[i], time: times[i] * 2.5) }
    }

    /// A strike every 0.4 s at 100 Hz, its mount ringing at 37 Hz after it.
    static let ringingZ: [Double] = z.indices.map { i in
        let n = Double(i % 40)
        return 1.0 + (n == 0 ? -1.5 : 0.8 * exp(-n / 4) * cos(2.3 * n))
    }

    @Test func adaptiveProcessDoesNotAllocate() {
        Self.warmUp()
        var detector = AdaptiveDetector()
        let (counted, fired) = Self.countAllocations(&detector)
        #expect(counted == 0)
        #expect(fired > 0)
    }

    /// At 100 Hz, where the ringing test learns the pad's mount from the quiet after its hits
    /// (`MountRinging`), still none.
    @Test func adaptiveProcessAt100HzDoesNotAllocate() {
        Self.warmUp()
        var detector = AdaptiveDetector()
        let times = Self.times.map { $0 * 2.5 }
        let z = Self.ringingZ
        var fired = 0
        allocation_counter_start()
        for i in z.indices where detector.process(z: z[i], time: times[i]) != nil { fired += 1 }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(fired > 0)
        #expect(detector.mountRinging.a1 != -AdaptiveDetector.ringingCarry, "the model learned")
        #expect(detector.mountRinging.twoModes.hasLearned, "the two-mode model learned too")
    }

    /// At 1.6 kHz (the bump test, the rescan, the ring rise's window and a ghost note over an
    /// accent's ringing), still none.
    @Test func adaptiveProcessAt1600HzDoesNotAllocate() {
        let accents = (0..<6).map { (onset: 0.5 + Double($0) * 0.6, amplitude: 12.0) }
        let signal = AdaptiveDetectorTests.strikes(accents + accents.map { ($0.onset + 0.08, 1.5) }, seconds: 4.2)
        Self.warmUp()
        var detector = AdaptiveDetector()
        var fired = 0
        allocation_counter_start()
        for i in signal.z.indices where detector.process(z: signal.z[i], time: signal.t[i]) != nil { fired += 1 }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(fired == 12)
    }

    /// With x and y (the lean test learning the way and turning shakes away), still none.
    @Test func adaptiveProcessAcrossThreeAxesDoesNotAllocate() {
        let s = LeaningPad(rate: 250).samples()
        Self.warmUp()
        var detector = AdaptiveDetector()
        var fired = 0, felt = 0
        allocation_counter_start()
        for i in s.t.indices {
            if detector.process(x: s.x[i], y: s.y[i], z: s.z[i], time: s.t[i]) != nil { fired += 1 }
            if detector.takeFelt() != nil { felt += 1 }
        }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(fired > 0 && felt > 0)
    }

    /// The brain decides every hit of a crosstalk group on its network thread.
    @Test func crosstalkCancellerAdmitDoesNotAllocate() {
        var canceller = CrosstalkCanceller()
        var admitted = 0
        var first = CrosstalkCanceller()  // its first use makes the runtime's type metadata, once
        _ = first.admit(source: 9, time: 0, velocity: 0)
        allocation_counter_start()
        for i in 0..<10_000 {
            // Pads 0-3 in turn, every 5 ms, loud then quiet: some cancelled, some not.
            if canceller.admit(source: i % 4, time: Double(i) * 0.005, velocity: i % 2 == 0 ? 0.9 : 0.3) {
                admitted += 1
            }
        }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(admitted > 0 && canceller.cancelled > 0)
    }

    /// `drumpad record` writes a row per sample: once the writer's bytes have grown to hold the
    /// rows between takes, a row costs no allocation (each number's digits are written in place).
    @Test func logWriterRowsDoNotAllocateOnceItsBytesHaveGrown() {
        var writer = SensorLogWriter()
        // The same kinds of value first (a NaN's text makes the runtime's metadata, once).
        for i in 0..<2000 { writer.append(time: 1234.5 + Double(i) * 0.004, x: -0.5, y: .nan, z: Self.z[i]) }
        _ = writer.take()  // the writer keeps a buffer of the capacity it had
        allocation_counter_start()
        for i in 0..<1000 { writer.append(time: 1234.5 + Double(i) * 0.004, x: -0.5, y: .nan, z: Self.z[i], hit: i % 7 == 0) }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(writer.bytes.count > 20_000)
    }

    @Test func batchDetectionIntoReservedStorageDoesNotAllocate() {
        var detector = SquaredDeltaDetector()
        var hits: [Hit] = []
        hits.reserveCapacity(1000)
        Self.z.withUnsafeBufferPointer { zs in
            Self.times.withUnsafeBufferPointer { ts in
                let gaps = [10_000]
                gaps.withUnsafeBufferPointer { gaps in
                    allocation_counter_start()
                    detector.detect(z: zs, time: ts, gapsBefore: gaps, into: &hits)
                    let counted = allocation_counter_stop()
                    #expect(counted == 0)
                }
            }
        }
        #expect(hits.count == 500)
    }
}

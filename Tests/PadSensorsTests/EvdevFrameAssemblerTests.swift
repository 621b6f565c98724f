import PadSensors
import Testing

/// Synthetic event sequences as the kernel delivers them.
struct EvdevFrameAssemblerTests {
    typealias C = InputEvent.Code

    static func axis(_ code: UInt16, _ value: Int32, at t: Int64) -> InputEvent {
        InputEvent(type: C.absType, code: code, value: value, timeMicros: t)
    }
    static func stamp(_ micros: UInt32, at t: Int64) -> InputEvent {
        InputEvent(type: C.mscType, code: C.mscTimestamp, value: Int32(bitPattern: micros), timeMicros: t)
    }
    static func report(at t: Int64) -> InputEvent {
        InputEvent(type: C.synType, code: C.synReport, value: 0, timeMicros: t)
    }
    static func dropped(at t: Int64) -> InputEvent {
        InputEvent(type: C.synType, code: C.synDropped, value: 0, timeMicros: t)
    }

    func samples(_ events: [InputEvent], unitsPerG: Double = 8192) -> [SensorEvent] {
        var assembler = EvdevFrameAssembler(unitsPerG: (unitsPerG, unitsPerG, unitsPerG))
        return events.compactMap { assembler.feed($0) }
    }

    func onlySamples(_ events: [SensorEvent]) -> [SensorSample] {
        events.compactMap { if case .sample(let s) = $0 { s } else { nil } }
    }

    @Test func valuesAreInGAndAxesNotResentKeepTheirLastValue() {
        let made = onlySamples(samples([
            Self.axis(C.absX, 8192, at: 0), Self.axis(C.absY, -4096, at: 0), Self.axis(C.absZ, 16384, at: 0),
            Self.report(at: 0),
            Self.axis(C.absZ, 0, at: 4000), Self.report(at: 4000),  // only z changed
        ]))
        #expect(made.count == 2)
        #expect(made[0].x == 1 && made[0].y == -0.5 && made[0].z == 2)
        #expect(made[1].x == 1 && made[1].y == -0.5 && made[1].z == 0)
    }

    @Test func timesComeFromTheWrappingMscTimestamp() {
        let start = UInt32.max - 5_999  // wraps between the 2nd and 3rd sample at 4 ms steps
        var events: [InputEvent] = []
        for i in 0..<4 {
            let device = start &+ UInt32(i * 4000)
            events += [Self.axis(C.absZ, Int32(i), at: 1_000_000 + Int64(i) * 4000),
                       Self.stamp(device, at: 1_000_000 + Int64(i) * 4000),
                       Self.report(at: 1_000_000 + Int64(i) * 4000)]
        }
        let made = onlySamples(samples(events))
        #expect(made.map { $0.deviceMicros - made[0].deviceMicros } == [0, 4000, 8000, 12000])
    }

    @Test func aBurstOfThreeSamplesWithOneKernelTimeStaysApart() {
        // A Joy-Con delivers three samples 5 ms apart in one report every 15 ms: all three get
        // the kernel time of the report, but their MSC_TIMESTAMPs differ.
        var events: [InputEvent] = []
        for burst in 0..<4 {
            let kernel = 5_000_000 + Int64(burst) * 15_000 + 12_000  // delivered 2 ms after the last
            for i in 0..<3 {
                let device = UInt32(100_000 + burst * 15_000 + i * 5_000)
                events += [Self.axis(C.absZ, Int32(burst * 3 + i), at: kernel), Self.stamp(device, at: kernel),
                           Self.report(at: kernel)]
            }
        }
        let made = onlySamples(samples(events))
        #expect(made.count == 12)
        let deviceSteps = zip(made.dropFirst(), made).map { $0.deviceMicros - $1.deviceMicros }
        #expect(deviceSteps.allSatisfy { $0 == 5_000 })
        // Once the least-delayed sample (the last of a burst) has been seen, the monotonic times
        // are the device times shifted by the 2 ms delivery delay: 5 ms apart, not bunched.
        let later = made.dropFirst(3)
        for sample in later {
            let expected = 5_000_000 + (sample.deviceMicros - 100_000) + 2_000
            #expect(abs(sample.monotonicMicros - expected) <= 5, "sample \(sample)")
        }
    }

    @Test func synDroppedIsAGapAndTheDroppedFrameIsDiscarded() {
        let made = samples([
            Self.axis(C.absZ, 100, at: 0), Self.report(at: 0),
            Self.axis(C.absZ, 200, at: 4000), Self.dropped(at: 4000),
            Self.axis(C.absZ, 300, at: 8000), Self.report(at: 8000),  // the rest of the broken frame
            Self.axis(C.absZ, 400, at: 12000), Self.report(at: 12000),
        ], unitsPerG: 100)
        #expect(made.count == 3)
        #expect(made[1] == .gap)
        guard case .sample(let first) = made[0], case .sample(let after) = made[2] else {
            Issue.record("expected sample, gap, sample: \(made)")
            return
        }
        #expect(first.z == 1)
        #expect(after.z == 4)
    }

    @Test func withoutTimestampsTheKernelTimeIsUsed() {
        let made = onlySamples(samples([
            Self.axis(C.absZ, 1, at: 10_000), Self.report(at: 10_000),
            Self.axis(C.absZ, 2, at: 20_000), Self.report(at: 20_000),
        ]))
        #expect(made.map(\.deviceMicros) == [10_000, 20_000])
        #expect(made.map(\.monotonicMicros) == [10_000, 20_000])
    }

    /// Found by the evemu fuzzer (Fuzz/corpus/evemu/time-jump): a recording whose event times
    /// jump by about 10¹⁸ µs overflowed the clock-offset creep and trapped.
    @Test func aHugeJumpInEventTimesDoesNotTrap() {
        let made = onlySamples(samples([
            Self.stamp(0, at: 10), Self.axis(C.absZ, 1, at: 10), Self.report(at: 10),
            Self.stamp(4000, at: 9_000_000_000_000_000_000), Self.axis(C.absZ, 2, at: 9_000_000_000_000_000_000),
            Self.report(at: 9_000_000_000_000_000_000),
            Self.axis(C.absZ, 3, at: 20), Self.report(at: 20),
        ]))
        #expect(made.count == 3)
        #expect(made.map(\.deviceMicros).prefix(2) == [0, 4000])
    }

    @Test func aResyncChangesValuesWithoutMakingASample() {
        var assembler = EvdevFrameAssembler(unitsPerG: (1, 1, 1))
        #expect(assembler.markDropped() == .gap)
        assembler.applySync(Self.axis(C.absZ, 7, at: 0))
        #expect(assembler.raw.z == 7)
        guard case .sample(let s) = assembler.feed(Self.axis(C.absX, 1, at: 1)) ?? assembler.feed(Self.report(at: 1)) else {
            Issue.record("no sample after the resync")
            return
        }
        #expect(s.x == 1 && s.z == 7)
    }
}

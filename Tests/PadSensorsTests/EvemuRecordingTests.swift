import PadSensors
import Testing

/// The evemu-record text format.
struct EvemuRecordingTests {
    static let text = """
        # EVEMU 1.3
        # Kernel: 6.1.0
        N: Drum Pad Test Motion Sensors
        I: 0003 054c 0ce6 8111
        P: 40 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00 00
        A: 00 -32768 32767 16 0 8192
        A: 01 -32768 32767 16 0 8192
        A: 02 -32768 32767 16 0 8192
        ################################
        #      Waiting for events      #
        ################################
        E: 0.000001 0003 0002 8192	# EV_ABS / ABS_Z                8192
        E: 0.000001 0004 0005 -4	# EV_MSC / MSC_TIMESTAMP        -4
        E: 0.000001 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
        E: 0.004001 0003 0002 -16384	# EV_ABS / ABS_Z            -16384
        E: 0.004001 0004 0005 3996	# EV_MSC / MSC_TIMESTAMP        3996
        E: 0.004001 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +4ms

        """

    @Test func readsTheDescriptionAndTheEvents() throws {
        let recording = try EvemuRecording(text: Self.text, fileName: "strikes.evemu")
        #expect(recording.name == "Drum Pad Test Motion Sensors")
        #expect(recording.isAccelerometer)
        #expect(recording.absAxes[2] == .init(minimum: -32768, maximum: 32767, fuzz: 16, flat: 0, resolution: 8192))
        #expect(recording.events.count == 6)
        let scale = try #require(recording.unitsPerG(override: nil))
        let samples = recording.samples(unitsPerG: scale).compactMap { event -> SensorSample? in
            if case .sample(let s) = event { s } else { nil }
        }
        #expect(samples.map(\.z) == [1, -2])
        // -4 is the u32 counter 2³² − 4: the next stamp, 3996, is 4 ms later across the wrap.
        #expect(samples[1].deviceMicros - samples[0].deviceMicros == 4000)
    }

    @Test(arguments: [
        ("E: 0.1 0003 0002 1", 1, "an event line is E: SECONDS.MICROS TYPE(hex) CODE(hex) VALUE"),
        ("N: x\nA: 02 -1 1 zz 0", 2, "an axis line is A: CODE(hex) MIN MAX FUZZ FLAT [RESOLUTION]"),
        ("P: 4g", 1, "property byte \"4g\" is not hex"),
        ("N: nothing recorded\n", 2, "no events (E: lines); record some with evemu-record"),
        // Found by the evemu fuzzer (Fuzz/corpus/evemu/time-overflow): seconds × 10⁶ overflowed
        // Int64 and trapped.
        ("E: 0.000100 0003 0000 5\nE: 099999999999999.000100 0000 0000 0", 2,
         "an event line is E: SECONDS.MICROS TYPE(hex) CODE(hex) VALUE"),
        ("E: 9223372036854.775808 0000 0000 0", 1, "an event line is E: SECONDS.MICROS TYPE(hex) CODE(hex) VALUE"),
    ])
    func malformedLinesAreNamed(text: String, line: Int, message: String) {
        let error = #expect(throws: SensorError.self) { try EvemuRecording(text: text, fileName: "r.evemu") }
        #expect(error?.description == "r.evemu:\(line): \(message)")
    }

    @Test func anOldRecordingWithoutResolutionNeedsUnitsPerG() throws {
        let text = "N: Some Sensor\nA: 02 -512 511 0 0\nE: 0.000001 0003 0002 256\nE: 0.000001 0000 0000 0000\n"
        let recording = try EvemuRecording(text: text, fileName: "old.evemu")
        #expect(recording.unitsPerG(override: nil) == nil)
        #expect(recording.unitsPerG(override: 256)?.z == 256)
    }
}

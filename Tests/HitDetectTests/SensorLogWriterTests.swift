import Testing
@testable import HitDetect

struct SensorLogWriterTests {
    @Test func writesTheDesignFormat() {
        var writer = SensorLogWriter(metadata: [(key: "device", value: "Test Pad"), (key: "rate_hz", value: "250")])
        writer.append(time: 0, x: 0.0012, y: -0.0031, z: 0.9987)
        writer.append(time: 0.004, x: -0.00001, y: 1.99995, z: -1)
        #expect(String(decoding: writer.take(), as: UTF8.self) == """
            # drumpad sensor log v1
            # device: Test Pad
            # rate_hz: 250
            t,x,y,z
            0.000000,0.0012,-0.0031,0.9987
            0.004000,0.0000,2.0000,-1.0000

            """)
        #expect(writer.bytes.isEmpty)
    }

    @Test func roundTripsThroughTheReaderWithGapsAndLabels() throws {
        var writer = SensorLogWriter(withHitColumn: true)
        var expectedZ: [Double] = []
        for i in 0..<300 {
            if i == 150 { writer.appendGap() }
            let z = Double((i * 7919) % 4001 - 2000) / 1000
            expectedZ.append(z)
            writer.append(time: Double(i) / 250, x: 0, y: 0, z: z, hit: i % 50 == 3)
        }
        let (reader, batch) = try readLog(String(decoding: writer.take(), as: UTF8.self))
        #expect(batch.z == expectedZ)
        #expect(batch.gapsBefore == [150])
        #expect(batch.labelled == [3, 53, 103, 153, 203, 253])
        #expect(LogSummary(reader: reader).rate.map { abs($0 - 250) < 1e-6 } == true)
    }

    @Test(arguments: [
        (value: 1.5, decimals: 0, text: "2"),
        (value: -1.5, decimals: 0, text: "-2"),
        (value: 0.00005, decimals: 4, text: "0.0001"),
        (value: -0.00004, decimals: 4, text: "0.0000"),
        (value: 12345.678901, decimals: 6, text: "12345.678901"),
        (value: 0.1, decimals: 9, text: "0.100000000"),
        (value: -7, decimals: 2, text: "-7.00"),
    ])
    func fixedDecimals(value: Double, decimals: Int, text: String) {
        #expect(DecimalFormatting.string(value, decimals: decimals) == text)
    }
}

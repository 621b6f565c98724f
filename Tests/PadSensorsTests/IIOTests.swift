#if canImport(Glibc)
import Glibc
#endif
import PadSensors
import TestSupport
import Testing

/// IIO scan elements, and IIO devices in a fake sysfs tree with a FIFO as the buffer node.
struct IIOTests {
    @Test(arguments: [
        ("le:s12/16>>4", false, true, 12, 16, 4),
        ("be:u10/16>>6", true, false, 10, 16, 6),
        ("le:s64/64>>0", false, true, 64, 64, 0),
        ("le:s13/16X2>>0", false, true, 13, 16, 0),
    ])
    func scanTypesParse(text: String, bigEndian: Bool, signed: Bool, bits: Int, storage: Int, shift: Int) throws {
        let type = try #require(IIOScanLayout.ScanType(text))
        #expect(type.bigEndian == bigEndian && type.signed == signed)
        #expect(type.realBits == bits && type.storageBits == storage && type.shift == shift)
    }

    @Test(arguments: ["", "le:s12", "xx:s12/16>>4", "le:q12/16>>4", "le:s17/16>>0", "le:s12/12>>0"])
    func malformedScanTypesAreRefused(text: String) {
        #expect(IIOScanLayout.ScanType(text) == nil)
    }

    @Test func valuesAreShiftedMaskedAndSignExtended() {
        let type = IIOScanLayout.ScanType("le:s12/16>>4")!
        // -3 in 12 bits, shifted up by 4, little-endian, with junk in the low nibble.
        let raw = UInt16(bitPattern: Int16(-3) << 4) | 0x000f
        let value = withUnsafeBytes(of: raw.littleEndian) { type.decode($0) }
        #expect(value == -3)
        let big = IIOScanLayout.ScanType("be:u10/16>>6")!
        let bytes: [UInt8] = [0xff, 0xc0]  // 1023 << 6
        #expect(bytes.withUnsafeBytes { big.decode($0) } == 1023)
    }

    @Test func channelsAreAlignedToTheirStorageSize() {
        let s16 = IIOScanLayout.ScanType("le:s16/16>>0")!
        let s64 = IIOScanLayout.ScanType("le:s64/64>>0")!
        let layout = IIOScanLayout([("in_timestamp", 3, s64), ("in_accel_z", 2, s16), ("in_accel_x", 0, s16)])
        #expect(layout.channels.map(\.name) == ["in_accel_x", "in_accel_z", "in_timestamp"])
        #expect(layout.channels.map(\.offsetBytes) == [0, 2, 8])
        #expect(layout.recordBytes == 16)
    }

    @Test func bufferedCaptureReadsRecordsWithTheirTimestamps() throws {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: true)
        let folder = "\(tree.root)/sys/bus/iio/devices/iio:device0"
        let device = try IIODevice(sysfsPath: folder, devicePath: "\(tree.root)/dev/iio:device0", rateHz: 200)
        #expect(device.buffered)
        #expect(device.recordBytes == 16)
        #expect(tree.read("sys/bus/iio/devices/iio:device0/sampling_frequency") == "200")
        #expect(tree.read("sys/bus/iio/devices/iio:device0/buffer/enable") == "1")
        #expect(tree.read("sys/bus/iio/devices/iio:device0/scan_elements/in_accel_z_en") == "1")
        #expect(tree.read("sys/bus/iio/devices/iio:device0/current_timestamp_clock") == "monotonic")

        // Three records as the kernel packs them: x, y, z as s16, 2 bytes padding, s64 ns.
        var bytes: [UInt8] = []
        for (i, z) in [256, -512, 4095].enumerated() {
            for value in [Int16(0), Int16(-128), Int16(z)] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
            bytes += [0, 0]
            withUnsafeBytes(of: Int64(1_000_000_000 + i * 5_000_000).littleEndian) { bytes += $0 }
        }
        let writer = open("\(tree.root)/dev/iio:device0", O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0)
        // Split mid-record: the partial record waits for the rest.
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress, 20) } == 20)
        var samples: [SensorSample] = []
        try device.read(timeoutMillis: 2000) { if case .sample(let s) = $0 { samples.append(s) } }
        #expect(samples.count == 1)
        #expect(bytes.withUnsafeBytes { write(writer, $0.baseAddress! + 20, $0.count - 20) } == bytes.count - 20)
        try device.read(timeoutMillis: 2000) { if case .sample(let s) = $0 { samples.append(s) } }
        #expect(samples.map(\.deviceMicros) == [1_000_000, 1_005_000, 1_010_000])
        #expect(samples.map { ($0.z * 1e9).rounded() / 1e9 } == [1, -2, 4095.0 / 256])
        #expect(samples.allSatisfy { abs($0.y + 0.5) < 1e-12 && $0.x == 0 })

        // The writer going away reads as an unplug.
        close(writer)
        #expect(throws: SensorError.self) {
            try device.read(timeoutMillis: 2000) { _ in }
        }
    }

    @Test func withoutScanElementsTheRawValuesArePolled() throws {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        let device = try IIODevice(sysfsPath: "\(tree.root)/sys/bus/iio/devices/iio:device0",
                                   devicePath: "\(tree.root)/dev/iio:device0", rateHz: 400)
        #expect(!device.buffered)
        // 60 ms at 400 Hz is 24 polls; a machine that holds the test thread for longer than that
        // (the whole suite runs at once) gets fewer in one read, so read until there are 10.
        var samples: [SensorSample] = []
        var reads = 0
        while samples.count < 10 && reads < 100 {
            try device.read(timeoutMillis: 60) { if case .sample(let s) = $0 { samples.append(s) } }
            reads += 1
        }
        #expect(samples.count >= 10, "\(samples.count) samples in \(reads) reads of 60 ms")
        #expect(samples.allSatisfy { abs($0.z - 1) < 1e-12 && abs($0.y + 0.5) < 1e-12 })
        let steps = zip(samples.dropFirst(), samples).map { $0.deviceMicros - $1.deviceMicros }
        #expect(steps.allSatisfy { $0 > 0 })
    }

    @Test func aRateTheDeviceRefusesIsAClearError() throws {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        let folder = "\(tree.root)/sys/bus/iio/devices/iio:device0"
        _ = system("chmod 0444 '\(folder)/sampling_frequency'")
        guard getuid() != 0 else {
            // root writes read-only files anyway; the message is still checked through a missing file
            _ = system("rm '\(folder)/sampling_frequency' && mkdir '\(folder)/sampling_frequency'")
            let error = #expect(throws: SensorError.self) {
                try IIODevice(sysfsPath: folder, devicePath: "/nonexistent", rateHz: 123)
            }
            #expect(error?.description.contains("cannot set 123 Hz") == true)
            #expect(error?.description.contains("100 200 400 800 1600 3200") == true)
            return
        }
        #expect(throws: SensorError.self) { try IIODevice(sysfsPath: folder, devicePath: "/nonexistent", rateHz: 123) }
    }
}

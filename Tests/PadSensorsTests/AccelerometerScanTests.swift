import PadSensors
import TestSupport
import Testing

/// Finding accelerometers in a fake /dev and /sys.
struct AccelerometerScanTests {
    @Test func findsEvdevByNameThroughSysfsAndIIOByItsChannels() {
        let tree = FakeSysfs()
        // Not real evdev nodes (regular files), so libevdev refuses them and sysfs is read.
        tree.addInputNode("event0", name: "AT Translated Set 2 keyboard", properties: "0", abs: "0")
        tree.addInputNode("event10", name: "ST LIS3LV02DL Accelerometer", properties: "0", abs: "7", msc: "0")
        tree.addInputNode("event2", name: "Drum Pad Motion Sensors", properties: "40", abs: "3f", msc: "20")
        tree.addADXL345(buffered: true)

        let found = AccelerometerScan(roots: tree.roots).all()
        #expect(found.map(\.name) == ["Drum Pad Motion Sensors", "ST LIS3LV02DL Accelerometer", "adxl345"])
        #expect(found.map(\.kind) == [.evdev, .evdev, .iio])
        #expect(found[0].timestamps == true)
        #expect(found[1].timestamps == false)
        #expect(found[1].resolution == "1000 units/g (lis3lv02d driver table)")
        #expect(found[0].problem?.contains("libevdev_new_from_fd failed") == true)
        #expect(found[2].resolution == "256 units/g (in_accel_scale), buffered")
        #expect(found[2].timestamps == true)
        #expect(found[2].rateHz == 100)
        #expect(found[2].problem == nil)
    }

    @Test func autoOpensTheFirstThatOpensAndSaysWhyWhenNoneDoes() throws {
        let tree = FakeSysfs()
        var options = SensorSource.Options()
        options.roots = tree.roots
        let none = #expect(throws: SensorError.self) { try SensorSource.open(options) }
        #expect(none?.description.hasPrefix("no accelerometer found") == true)

        tree.addADXL345(buffered: false)
        let source = try SensorSource.open(options)
        #expect(source.name == "adxl345")
        #expect(source.metadata.map(\.key) == ["device", "rate_hz", "source", "units_per_g", "time"])
        #expect(source.valueDecimals == 5)
    }

    @Test func sysfsBitmapsAreReadWordByWord() {
        let tree = FakeSysfs()
        // Two 64-bit words, most significant first: bit 64 + 6 is set, and bit 6 is too.
        tree.addInputNode("event4", name: "Wide Sensor", properties: "40 40", abs: "7")
        let found = AccelerometerScan(roots: tree.roots).evdev()
        #expect(found.count == 1)
    }
}

extension FakeSysfs {
    /// Roots pointing into this tree.
    var roots: AccelerometerScan.Roots {
        var roots = AccelerometerScan.Roots()
        roots.inputDevices = "\(root)/dev/input"
        roots.inputSysfs = "\(root)/sys/class/input"
        roots.iioSysfs = "\(root)/sys/bus/iio/devices"
        roots.devices = "\(root)/dev"
        return roots
    }
}

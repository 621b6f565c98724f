import PadCommandLine
import PadSensors

/// `drumpad devices`: the accelerometers this board has, and why any cannot be read.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the accelerometers drumpad can read (evdev and IIO).",
        discussion: """
            Lists evdev nodes that call themselves accelerometers (INPUT_PROP_ACCELEROMETER: the \
            motion sensors of PlayStation, Nintendo and Steam controllers) or carry an \
            accelerometer driver's name (lis3lv02d, adxl34x, mma8450, bma150), and IIO \
            accelerometers. For each: the path to give --device, its name, axes, range, \
            resolution, whether samples carry the sensor's own time, and any problem opening it \
            with the fix. `drumpad run` and `drumpad record` with --device auto take the first \
            one that opens.

            Example:
              drumpad devices
            """)

    @Option(help: ArgumentHelp("Raw units per g, for devices that do not say.", valueName: "N"))
    var unitsPerG: Double?

    func run() throws {
        let scan = AccelerometerScan(roots: .fromEnvironment(), unitsPerG: unitsPerG)
        let found = scan.all()
        var out = OutputBuffer(descriptor: 1, name: "the device list to standard output")
        if found.isEmpty {
            out.append("no accelerometer found (looked in \(scan.roots.inputDevices) and \(scan.roots.iioSysfs))\n")
            out.append("  a controller's motion sensor shows up when the controller is connected (USB or Bluetooth);\n")
            out.append("  an I²C sensor needs its driver loaded (and a device-tree overlay on most boards)\n")
            try out.flush()
            return
        }
        for device in found {
            out.append("\(device.path)  \(device.kind.rawValue)  \"\(device.name)\"\n")
            var facts = ["axes \(device.axes)"]
            if let range = device.rangeG { facts.append("range ±\(Self.number(range)) g") }
            facts.append(device.resolution)
            if let rate = device.rateHz { facts.append("\(Self.number(rate)) Hz") }
            if let stamps = device.timestamps {
                facts.append("\(device.kind == .evdev ? "MSC_TIMESTAMP" : "timestamp channel"): \(stamps ? "yes" : "no")")
            }
            out.append("  " + facts.joined(separator: ", ") + "\n")
            if let problem = device.problem { out.append("  problem: \(problem)\n") }
        }
        try out.flush()
    }

    static func number(_ value: Double) -> String {
        plainNumber((value * 100).rounded() / 100)
    }
}

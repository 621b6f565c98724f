import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
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
        var out = StandardOutputLines()
        if found.isEmpty {
            out.write("no accelerometer found (looked in \(scan.roots.inputDevices) and \(scan.roots.iioSysfs))")
            out.write("  a controller's motion sensor shows up when the controller is connected (USB or Bluetooth);")
            out.write("  an I²C sensor needs its driver loaded (and a device-tree overlay on most boards)")
            return
        }
        for device in found {
            out.write("\(device.path)  \(device.kind.rawValue)  \"\(device.name)\"")
            var facts = ["axes \(device.axes)"]
            if let range = device.rangeG { facts.append("range ±\(Self.number(range)) g") }
            facts.append(device.resolution)
            if let rate = device.rateHz { facts.append("\(Self.number(rate)) Hz") }
            if let stamps = device.timestamps {
                facts.append(stamps ? (device.kind == .evdev ? "MSC_TIMESTAMP: yes" : "timestamp channel: yes")
                             : (device.kind == .evdev ? "MSC_TIMESTAMP: no" : "timestamp channel: no"))
            }
            out.write("  " + facts.joined(separator: ", "))
            if let problem = device.problem { out.write("  problem: \(problem)") }
        }
    }

    static func number(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// Lines to standard output, written at once (no buffering left behind on exit).
struct StandardOutputLines {
    mutating func write(_ line: String) {
        var text = line + "\n"
        text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(1, bytes.baseAddress! + done, bytes.count - done)
                if n <= 0 { return }
                done += n
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Finds the accelerometers on this machine: evdev nodes with `INPUT_PROP_ACCELEROMETER` or an
/// accelerometer driver's name and x, y, z axes, and IIO devices with `in_accel_*` channels.
public struct AccelerometerScan: Sendable {
    /// Where to look (the defaults are the real places; tests point them at fake trees).
    public struct Roots: Sendable {
        public var inputDevices = "/dev/input"
        public var inputSysfs = "/sys/class/input"
        public var iioSysfs = "/sys/bus/iio/devices"
        public var devices = "/dev"
        public init() {}

        /// The real places, or a fake tree's when `DRUMPAD_SYSFS_ROOT` / `DRUMPAD_DEV_ROOT` name
        /// stand-ins for /sys and /dev (for tests, and for trying drumpad on a captured tree).
        public static func fromEnvironment() -> Roots {
            var roots = Roots()
            if let sys = getenv("DRUMPAD_SYSFS_ROOT").map({ String(cString: $0) }), !sys.isEmpty {
                roots.inputSysfs = "\(sys)/class/input"
                roots.iioSysfs = "\(sys)/bus/iio/devices"
            }
            if let dev = getenv("DRUMPAD_DEV_ROOT").map({ String(cString: $0) }), !dev.isEmpty {
                roots.inputDevices = "\(dev)/input"
                roots.devices = dev
            }
            return roots
        }
    }

    /// One accelerometer found.
    public struct Found: Sendable {
        public enum Kind: String, Sendable { case evdev, iio }
        /// evdev or IIO.
        public var kind: Kind
        /// The node to give `--device`: `/dev/input/eventN` or the IIO sysfs folder.
        public var path: String
        /// The device's name.
        public var name: String
        /// The axes present, such as `x y z`.
        public var axes: String
        /// Full scale of z in g, when known.
        public var rangeG: Double?
        /// Units per g and where that came from.
        public var resolution: String
        /// Whether samples carry the sensor's own time (MSC_TIMESTAMP or the IIO timestamp channel).
        public var timestamps: Bool?
        /// Samples per second, when the device says.
        public var rateHz: Double?
        /// Why it cannot be read now, with the fix; nil when it can.
        public var problem: String?
    }

    public var roots: Roots
    /// The `--units-per-g` override, which changes what the resolution column says.
    public var unitsPerG: Double?

    public init(roots: Roots = Roots(), unitsPerG: Double? = nil) {
        self.roots = roots
        self.unitsPerG = unitsPerG
    }

    /// Every accelerometer, evdev first, each list in natural order of its nodes.
    public func all() -> [Found] {
        evdev() + iio()
    }

    /// The evdev accelerometers.
    public func evdev() -> [Found] {
        var found: [Found] = []
        for node in SystemFiles.list(roots.inputDevices) where node.hasPrefix("event") {
            let path = "\(roots.inputDevices)/\(node)"
            do {
                let device = try EvdevDevice.probe(path: path)
                guard device.isAccelerometer else { continue }
                found.append(Found(
                    kind: .evdev, path: path, name: device.name, axes: Self.axesText(device.hasAxis),
                    rangeG: device.rangeG(override: unitsPerG), resolution: device.scaleText(override: unitsPerG),
                    timestamps: device.sendsTimestamps, rateHz: nil, problem: nil))
            } catch {
                // Cannot open it: sysfs still tells what it is, so the user learns why it is missing.
                guard let info = EvdevInfo(sysfs: roots.inputSysfs, node: node, path: path), info.isAccelerometer
                else { continue }
                found.append(Found(
                    kind: .evdev, path: path, name: info.name, axes: Self.axesText(info.hasAxis), rangeG: nil,
                    resolution: info.scaleText(override: unitsPerG), timestamps: info.sendsTimestamps, rateHz: nil,
                    problem: "\(error)"))
            }
        }
        return found
    }

    /// The IIO accelerometers.
    public func iio() -> [Found] {
        var found: [Found] = []
        for node in SystemFiles.list(roots.iioSysfs) where node.hasPrefix("iio:device") {
            let folder = "\(roots.iioSysfs)/\(node)"
            let files = SystemFiles.list(folder)
            let scanFiles = SystemFiles.list("\(folder)/scan_elements")
            let has = ["x", "y", "z"].map { axis in
                files.contains("in_accel_\(axis)_raw") || scanFiles.contains("in_accel_\(axis)_en")
            }
            guard has[2] else { continue }
            let name = SystemFiles.readName("\(folder)/name") ?? node
            let scale = IIODevice.number("\(folder)/in_accel_z_scale") ?? IIODevice.number("\(folder)/in_accel_scale")
            let unitsPerG = unitsPerGText(scale)
            let buffered = scanFiles.contains("in_accel_z_en") && SystemFiles.exists("\(roots.devices)/\(node)")
            var problem: String?
            if buffered && access("\(roots.devices)/\(node)", R_OK) != 0 {
                problem = "\(roots.devices)/\(node): cannot open: \(SystemErrorText.text(errno)); "
                    + EvdevDevice.fix(forOpenErrno: errno)
            } else if scale == nil {
                problem = "no in_accel_scale: values cannot be turned into g"
            }
            found.append(Found(
                kind: .iio, path: folder, name: name, axes: Self.axesText(has), rangeG: nil,
                resolution: unitsPerG + (buffered ? ", buffered" : ", polled"),
                timestamps: buffered ? scanFiles.contains("in_timestamp_en") : false,
                rateHz: IIODevice.number("\(folder)/sampling_frequency"), problem: problem))
        }
        return found
    }

    private func unitsPerGText(_ scale: Double?) -> String {
        guard let scale, scale > 0 else { return "scale unknown" }
        let units = IIODevice.standardGravity / scale
        return "\(plainNumber((units * 10).rounded() / 10)) units/g (in_accel_scale)"
    }

    static func axesText(_ has: [Bool]) -> String {
        zip(["x", "y", "z"], has).filter { $0.1 }.map { $0.0 }.joined(separator: " ")
    }
}

extension EvdevDevice {
    /// What a node says about itself, opened and closed at once; throws when it cannot be opened.
    static func probe(path: String) throws(SensorError) -> EvdevInfo {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw .cannotOpen(path: path, errno: code, fix: fix(forOpenErrno: code))
        }
        defer { close(fd) }
        return try EvdevInfo(descriptor: fd, path: path)
    }
}

import Console

/// A live accelerometer: an evdev node or an IIO device, opened from what the user gave
/// `--device` (a path, or `auto` for the first accelerometer that opens).
///
/// Thread safety: use each instance from one thread at a time.
public final class SensorSource {
    /// How to open a source.
    public struct Options: Sendable {
        /// `auto`, `/dev/input/eventN`, `/sys/bus/iio/devices/iio:deviceN` or `/dev/iio:deviceN`.
        public var device = "auto"
        /// Raw units per g, overriding what the device says (evdev) .
        public var unitsPerG: Double?
        /// Samples per second to ask an IIO device for.
        public var rateHz: Double?
        /// Where devices are looked for.
        public var roots = AccelerometerScan.Roots.fromEnvironment()
        public init() {}
    }

    private enum Device {
        case evdev(EvdevDevice)
        case iio(IIODevice)
    }

    private let device: Device
    /// The path opened.
    public let path: String
    /// The device's name.
    public let name: String

    private init(device: Device) {
        self.device = device
        switch device {
        case .evdev(let d):
            path = d.path
            name = d.info.name
        case .iio(let d):
            path = d.sysfsPath
            name = d.name
        }
    }

    /// Opens the source `options` name.
    public static func open(_ options: Options) throws(SensorError) -> SensorSource {
        if options.device != "auto" { return try openPath(options.device, options) }
        let scan = AccelerometerScan(roots: options.roots, unitsPerG: options.unitsPerG)
        let found = scan.all()
        var firstError: SensorError?
        for candidate in found {
            do {
                return try openPath(candidate.path, options)
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
        throw .noAccelerometer(looked: "\(options.roots.inputDevices) and \(options.roots.iioSysfs)")
    }

    private static func openPath(_ path: String, _ options: Options) throws(SensorError) -> SensorSource {
        var iioFolder: String?
        let last = path.split(separator: "/").last.map(String.init) ?? path
        if last.hasPrefix("iio:device") {
            // A sysfs folder as given (its name file is there), else the device's folder in sysfs
            // for a bare name or a /dev/iio:deviceN node.
            iioFolder = SystemFiles.exists("\(path)/name") ? path : "\(options.roots.iioSysfs)/\(last)"
        }
        if let iioFolder {
            let node = iioFolder.split(separator: "/").last.map(String.init) ?? last
            return SensorSource(device: .iio(try IIODevice(
                sysfsPath: iioFolder, devicePath: "\(options.roots.devices)/\(node)", rateHz: options.rateHz)))
        }
        return SensorSource(device: .evdev(try EvdevDevice(path: path, unitsPerG: options.unitsPerG)))
    }

    /// Waits up to `timeoutMillis` for samples and hands over each sample and gap read. Throws
    /// `.unplugged` when the device went away.
    public func read(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws(SensorError) {
        switch device {
        case .evdev(let d): try d.read(timeoutMillis: timeoutMillis, handle)
        case .iio(let d): try d.read(timeoutMillis: timeoutMillis, handle)
        }
    }

    /// Samples per second the device says it delivers, when it says.
    public var rateHz: Double? {
        switch device {
        case .evdev: nil
        case .iio(let d): d.rateHz
        }
    }

    /// `# key: value` metadata for a sensor log of this source: device, driver kind, units per g
    /// of z, whether times are the sensor's own. Each value is one line of printable text
    /// (`TerminalText.line`; the device's name already is): a device path given on the command
    /// line may hold anything.
    public var metadata: [(key: String, value: String)] {
        rawMetadata.map { ($0.key, TerminalText.line($0.value)) }
    }

    private var rawMetadata: [(key: String, value: String)] {
        switch device {
        case .evdev(let d):
            var items: [(key: String, value: String)] = [
                ("device", d.info.name), ("source", "evdev \(d.path)"),
                ("units_per_g", plainNumber(d.unitsPerG.z)),
                ("time", d.info.sendsTimestamps ? "MSC_TIMESTAMP" : "kernel event time"),
            ]
            if let range = d.info.rangeG(override: nil) { items.append(("range_g", plainNumber(range))) }
            return items
        case .iio(let d):
            var items: [(key: String, value: String)] = [
                ("device", d.name), ("source", "iio \(d.sysfsPath)"),
                ("units_per_g", plainNumber(IIODevice.standardGravity / d.scale[2])),
                ("time", d.buffered ? "IIO timestamp channel" : "read time (polled)"),
            ]
            if let rate = d.rateHz { items.insert(("rate_hz", plainNumber(rate)), at: 1) }
            return items
        }
    }

    /// Digits after the point that keep one raw unit apart in g (2 more than units per g has).
    public var valueDecimals: Int {
        let units: Double
        switch device {
        case .evdev(let d): units = max(d.unitsPerG.x, d.unitsPerG.y, d.unitsPerG.z)
        case .iio(let d): units = IIODevice.standardGravity / (d.scale.min() ?? 1)
        }
        var decimals = 2
        var power = 1.0
        while power < units && decimals < 9 {
            power *= 10
            decimals += 1
        }
        return decimals
    }
}

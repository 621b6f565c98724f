import Console
import CEvdev

/// What an evdev node says about itself, from libevdev when it can be opened, else from sysfs.
public struct EvdevInfo: Sendable {
    /// The node, such as `/dev/input/event5`.
    public var path: String
    /// The device name.
    public var name: String
    /// Whether `INPUT_PROP_ACCELEROMETER` is set.
    public var accelerometerProperty: Bool
    /// ABS_X, ABS_Y, ABS_Z, where present (nil when read from sysfs, which gives no ranges).
    public var axes: [AbsInfo?]
    /// Which of ABS_X/Y/Z the device has.
    public var hasAxis: [Bool]
    /// Whether the device sends `MSC_TIMESTAMP`.
    public var sendsTimestamps: Bool

    /// Whether all of x, y, z are there.
    public var hasXYZ: Bool { hasAxis.allSatisfy { $0 } }

    /// Whether this looks like an accelerometer: the property, or a known driver name with x, y, z.
    public var isAccelerometer: Bool {
        hasXYZ && (accelerometerProperty || UnitsPerG.nameLooksLikeAccelerometer(name))
    }

    /// The raw values of the axes now.
    var currentValues: (x: Int32, y: Int32, z: Int32) {
        (axes[0]?.value ?? 0, axes[1]?.value ?? 0, axes[2]?.value ?? 0)
    }

    /// The units per g of x, y, z, or nil when unknown.
    public func unitsPerG(override: Double?) -> (x: Double, y: Double, z: Double)? {
        UnitsPerG.resolve(resolutions: axes.map { $0?.resolution ?? 0 }, override: override, name: name)
    }

    /// Where the z scale comes from, in words, for `drumpad devices`.
    public func scaleText(override: Double?) -> String {
        guard let (scale, source) = UnitsPerG.resolve(override: override, resolution: axes[2]?.resolution ?? 0,
                                                      name: name) else {
            return axes[2] == nil ? "resolution unknown until the node can be opened"
                : "no resolution: give --units-per-g"
        }
        let number = plainNumber(scale)
        switch source {
        case .option: return "\(number) units/g (--units-per-g)"
        case .resolution: return "\(number) units/g (kernel)"
        case .driverTable(let driver): return "\(number) units/g (\(driver) driver table)"
        }
    }

    /// The range of z in g (from its minimum and maximum), when known.
    public func rangeG(override: Double?) -> Double? {
        guard let z = axes[2], let scale = unitsPerG(override: override)?.z else { return nil }
        return max(abs(Double(z.minimum)), abs(Double(z.maximum))) / scale
    }

    /// Reads an open libevdev device.
    init(device: OpaquePointer, path: String) {
        self.path = path
        // A device names itself (a USB controller's strings): made safe to print and to write.
        name = TerminalText.name(libevdev_get_name(device).map { String(cString: $0) } ?? "")
        accelerometerProperty = libevdev_has_property(device, UInt32(INPUT_PROP_ACCELEROMETER)) == 1
        var axes: [AbsInfo?] = []
        var has: [Bool] = []
        for code in [ABS_X, ABS_Y, ABS_Z] {
            let present = libevdev_has_event_code(device, UInt32(EV_ABS), UInt32(code)) == 1
            has.append(present)
            if present, let info = libevdev_get_abs_info(device, UInt32(code)) {
                axes.append(AbsInfo(value: info.pointee.value, minimum: info.pointee.minimum, maximum: info.pointee.maximum,
                                    fuzz: info.pointee.fuzz, flat: info.pointee.flat, resolution: info.pointee.resolution))
            } else {
                axes.append(nil)
            }
        }
        self.axes = axes
        hasAxis = has
        sendsTimestamps = libevdev_has_event_code(device, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP)) == 1
    }

    /// Reads what sysfs tells of `eventN` (used when the node cannot be opened): name, property
    /// bits and capability bits, but no ranges.
    init?(sysfs root: String, node: String, path: String) {
        let base = "\(root)/\(node)/device"
        guard let name = SystemFiles.readName("\(base)/name") else { return nil }
        self.path = path
        self.name = name
        let properties = Self.bits(SystemFiles.readText("\(base)/properties") ?? "")
        accelerometerProperty = properties.contains(InputEvent.Code.propAccelerometer)
        let abs = Self.bits(SystemFiles.readText("\(base)/capabilities/abs") ?? "")
        hasAxis = [0, 1, 2].map { abs.contains($0) }
        axes = [nil, nil, nil]
        sendsTimestamps = Self.bits(SystemFiles.readText("\(base)/capabilities/msc") ?? "")
            .contains(Int(InputEvent.Code.mscTimestamp))
    }

    /// The set bits of a sysfs bitmap: hex words separated by spaces, most significant first.
    static func bits(_ text: String) -> Set<Int> {
        var set: Set<Int> = []
        let words = text.split(separator: " ").reversed()
        for (wordIndex, word) in words.enumerated() {
            guard let value = UInt64(word, radix: 16) else { continue }
            for bit in 0..<64 where value & (1 << UInt64(bit)) != 0 {
                set.insert(wordIndex * 64 + bit)
            }
        }
        return set
    }
}

extension EvdevInfo {
    /// Reads an open node through a short-lived libevdev context.
    init(descriptor fd: Int32, path: String) throws(SensorError) {
        var device: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &device)
        guard rc >= 0, let device else {
            throw .deviceFailed(path: path, call: "libevdev_new_from_fd", errno: -rc)
        }
        defer { libevdev_free(device) }
        self.init(device: device, path: path)
    }
}

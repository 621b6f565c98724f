#if canImport(Glibc)
import Glibc
#endif

/// A throwaway folder tree standing in for /sys and /dev in tests.
public final class FakeSysfs {
    /// The tree's top folder.
    public let root: String

    public init() {
        var template = Array("/tmp/drumpad-sysfs-XXXXXX".utf8CString)
        root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    deinit { _ = system("rm -rf '\(root)'") }

    /// Writes `text` to `path` under the root, making folders on the way.
    public func write(_ path: String, _ text: String) {
        let full = "\(root)/\(path)"
        let folder = String(full[..<full.lastIndex(of: "/")!])
        _ = system("mkdir -p '\(folder)'")
        let file = fopen(full, "w")!
        fputs(text + "\n", file)
        fclose(file)
    }

    /// Makes a FIFO at `path` under the root.
    public func fifo(_ path: String) {
        let full = "\(root)/\(path)"
        _ = system("mkdir -p '\(String(full[..<full.lastIndex(of: "/")!]))'")
        mkfifo(full, 0o600)
    }

    /// The contents of `path` under the root.
    public func read(_ path: String) -> String {
        let text = Program.contents("\(root)/\(path)")
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// An evdev node `dev/input/NODE` (a plain file, so libevdev refuses it and sysfs is read)
    /// with its sysfs name, property bits and ABS / MSC capability bits (hex, as sysfs prints them).
    public func addInputNode(_ node: String, name: String, properties: String, abs: String, msc: String? = nil) {
        write("dev/input/\(node)", "")
        write("sys/class/input/\(node)/device/name", name)
        write("sys/class/input/\(node)/device/properties", properties)
        write("sys/class/input/\(node)/device/capabilities/abs", abs)
        if let msc { write("sys/class/input/\(node)/device/capabilities/msc", msc) }
    }

    /// An ADXL345-like IIO device: 256 units per g, scan elements x, y, z (le:s13/16>>0) and a
    /// timestamp; its buffer node is a FIFO.
    public func addADXL345(buffered: Bool) {
        let folder = "sys/bus/iio/devices/iio:device0"
        write("\(folder)/name", "adxl345")
        write("\(folder)/in_accel_scale", String(9.80665 / 256))
        write("\(folder)/in_accel_x_raw", "0")
        write("\(folder)/in_accel_y_raw", "-128")
        write("\(folder)/in_accel_z_raw", "256")
        write("\(folder)/sampling_frequency", "100.000000")
        write("\(folder)/sampling_frequency_available", "100 200 400 800 1600 3200")
        guard buffered else { return }
        for (index, axis) in ["x", "y", "z"].enumerated() {
            write("\(folder)/scan_elements/in_accel_\(axis)_en", "0")
            write("\(folder)/scan_elements/in_accel_\(axis)_index", String(index))
            write("\(folder)/scan_elements/in_accel_\(axis)_type", "le:s13/16>>0")
        }
        write("\(folder)/scan_elements/in_timestamp_en", "0")
        write("\(folder)/scan_elements/in_timestamp_index", "3")
        write("\(folder)/scan_elements/in_timestamp_type", "le:s64/64>>0")
        write("\(folder)/buffer/enable", "0")
        write("\(folder)/buffer/length", "0")
        write("\(folder)/current_timestamp_clock", "realtime")
        fifo("dev/iio:device0")
    }
}

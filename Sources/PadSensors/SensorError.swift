/// Errors of the sensor sources. Messages name the device or file and the fix.
public enum SensorError: Error, Sendable, CustomStringConvertible {
    /// A device node or sysfs file cannot be opened; `errno` from `open`.
    case cannotOpen(path: String, errno: Int32, fix: String)
    /// A C call on a device failed; the C function's name and `errno`.
    case deviceFailed(path: String, call: String, errno: Int32)
    /// The device went away (unplugged): `ENODEV` from a read.
    case unplugged(path: String)
    /// No accelerometer was found for `--device auto`.
    case noAccelerometer(looked: String)
    /// The device is not an accelerometer drumpad can read.
    case notAnAccelerometer(path: String, why: String)
    /// Raw values cannot be turned into g: no resolution, no table entry, no `--units-per-g`.
    case unknownScale(path: String, name: String)
    /// An IIO device's sysfs files are missing or malformed.
    case badIIO(path: String, message: String)
    /// An evemu recording is malformed at `line`.
    case badRecording(file: String, line: Int, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code, let fix):
            return "\(path): cannot open: \(SensorError.text(errno: code))" + (fix.isEmpty ? "" : "; \(fix)")
        case .deviceFailed(let path, let call, let code):
            return "\(path): \(call) failed: \(SensorError.text(errno: code))"
        case .unplugged(let path):
            return "\(path): the sensor was unplugged"
        case .noAccelerometer(let looked):
            return "no accelerometer found (looked in \(looked)); run `drumpad devices` to see what is there, "
                + "or give --device PATH, or --replay LOG.csv"
        case .notAnAccelerometer(let path, let why):
            return "\(path): not an accelerometer drumpad can read: \(why)"
        case .unknownScale(let path, let name):
            return "\(path) (\(name)): the kernel gives no resolution for its axes and the driver is not in "
                + "drumpad's table, so raw values cannot be turned into g; give --units-per-g N "
                + "(raw units per 1 g: rest the board flat and read the z value with `drumpad record`)"
        case .badIIO(let path, let message):
            return "\(path): \(message)"
        case .badRecording(let file, let line, let message):
            return "\(file):\(line): \(message)"
        }
    }

    /// The C library's message for an errno. The corresponding C function is `strerror`.
    static func text(errno code: Int32) -> String {
        SystemErrorText.text(code)
    }
}

import PadCommandLine
import HitDetect
import PadSensors

extension Axis: ExpressibleByArgument {}

/// Which axis feeds the detector and how raw values become g: shared by the commands that read
/// sensors or their recordings.
struct AxisOptions: ParsableArguments {
    @Option(help: "The axis that feeds the detector: x, y or z (the one at right angles to the drum's face).")
    var axis: Axis = .z

    @Option(help: ArgumentHelp(
        "Raw units per g, when the device does not say (evdev resolution, driver table).",
        valueName: "N"))
    var unitsPerG: Double?

    func validate() throws {
        if let unitsPerG, !(unitsPerG > 0 && unitsPerG.isFinite) {
            throw ValidationError("--units-per-g must be a number > 0, such as 8192 (raw units per 1 g)")
        }
    }
}

extension Axis {
    /// Puts this axis' values where the detectors read (`z`) in a batch read with x and y, and
    /// the other two axes in x and y, in order (`SensorSample.across`).
    func select(in batch: inout SensorBatch) {
        guard self != .z else { return }
        precondition(batch.x.count == batch.count && batch.y.count == batch.count, "select needs a batch read with x and y")
        switch self {
        case .x: swap(&batch.z, &batch.x); swap(&batch.x, &batch.y)  // (y, z) across, x read
        case .y: swap(&batch.z, &batch.y)  // (x, z) across, y read
        case .z: break
        }
    }
}

/// Which sensor to read and at what rate: shared by `run`, `record` and `calibrate`.
struct DeviceOptions: ParsableArguments {
    @Option(help: "The sensor: auto (the first accelerometer that opens; the default), /dev/input/eventN, or an IIO device (iio:deviceN).")
    var device: String?

    @Option(help: "Samples per second to ask an IIO sensor for (written to its sampling_frequency).")
    var rate: Double?

    func validate() throws {
        if let rate, !(rate > 0) { throw ValidationError("--rate must be > 0 Hz, such as 1600") }
    }

    /// Opens the sensor (`auto` when no --device), scaling raw values by `unitsPerG` when given;
    /// `say` hears about unplugs and returns.
    func open(unitsPerG: Double?, say: @escaping (String) -> Void) throws -> LiveSensor {
        var options = SensorSource.Options()
        options.device = device ?? "auto"
        options.unitsPerG = unitsPerG
        options.rateHz = rate
        return try LiveSensor(options: options, say: say)
    }
}

import TextSearch
/// How raw accelerometer values become g.
///
/// In order: the user's `--units-per-g`; the axis resolution the kernel reports (for nodes with
/// `INPUT_PROP_ACCELEROMETER` it is defined as units per g; other drivers that set it mean the
/// same); a table of drivers known to leave it at 0; else there is no answer and the caller asks
/// the user for `--units-per-g`.
public enum UnitsPerG {
    /// Drivers that report no resolution, by a lowercase fragment of the device name, with the
    /// units per g of their default configuration.
    public static let driverTable: [(nameContains: String, unitsPerG: Double, note: String)] = [
        ("lis3lv02d", 1000, "reports mg"),
        ("st lis3lv02dl", 1000, "reports mg"),
        ("adxl34x", 256, "full resolution, 3.9 mg per unit"),
        ("mma8450", 1024, "±2 g, 12 bits"),
        ("bma150", 256, "±2 g, 10 bits"),
    ]

    /// Where a scale came from, for `drumpad devices` and log metadata.
    public enum Source: Sendable, Equatable {
        case option
        case resolution
        case driverTable(String)
    }

    /// The units per g for an axis of a device named `name` reporting `resolution`, or nil.
    public static func resolve(override: Double?, resolution: Int32, name: String) -> (Double, Source)? {
        if let override { return (override, .option) }
        if resolution > 0 { return (Double(resolution), .resolution) }
        let lower = name.lowercased()
        for entry in driverTable where lower.includes(entry.nameContains) {
            return (entry.unitsPerG, .driverTable(entry.nameContains))
        }
        return nil
    }

    /// The units per g of x, y and z, whose axes report `resolutions`, or nil when any is unknown.
    public static func resolve(resolutions: [Int32], override: Double?, name: String) -> (x: Double, y: Double, z: Double)? {
        let scales = resolutions.compactMap { resolve(override: override, resolution: $0, name: name)?.0 }
        guard scales.count == 3 else { return nil }
        return (scales[0], scales[1], scales[2])
    }

    /// Whether a device name looks like an accelerometer driver's, for nodes without the property.
    public static func nameLooksLikeAccelerometer(_ name: String) -> Bool {
        let lower = name.lowercased()
        return driverTable.contains { lower.includes($0.nameContains) }
            || lower.includes("accelerometer") || lower.includes("motion sensors")
    }
}

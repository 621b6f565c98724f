/// Writes sensor logs in the format of docs/architecture.md, Sensor log CSV into bytes the caller writes out.
///
/// The writer never holds more than the caller lets it: call `take()` (or read `bytes` and
/// `clear()`) whenever convenient, for instance when `bytes.count` passes 64 KiB.
///
/// Thread safety: a value type; use each instance from one thread at a time.
public struct SensorLogWriter: Sendable {
    /// Digits after the point for `t` (seconds).
    public let timeDecimals: Int
    /// Digits after the point for x, y and z (g).
    public let valueDecimals: Int
    /// Whether rows carry a `hit` column.
    public let withHitColumn: Bool
    /// Encoded text not yet taken by the caller.
    public private(set) var bytes: [UInt8] = []

    /// Starts a log: the format line, `# key: value` metadata (such as `device`, `rate_hz`), and
    /// the header `t,x,y,z` (plus `,hit` when `withHitColumn`).
    public init(metadata: [(key: String, value: String)] = [], timeDecimals: Int = 6,
                valueDecimals: Int = 4, withHitColumn: Bool = false) {
        self.timeDecimals = timeDecimals
        self.valueDecimals = valueDecimals
        self.withHitColumn = withHitColumn
        bytes.append(contentsOf: Array("# drumpad sensor log v1\n".utf8))
        for (key, value) in metadata {
            precondition(!key.isEmpty && !key.contains(":") && !key.contains(" ")
                         && !key.contains("\n") && !value.contains("\n"),
                         "metadata keys are single words and values single lines")
            bytes.append(contentsOf: Array("# \(key): \(value)\n".utf8))
        }
        bytes.append(contentsOf: Array((withHitColumn ? "t,x,y,z,hit\n" : "t,x,y,z\n").utf8))
    }

    /// Appends one row.
    public mutating func append(time: Double, x: Double, y: Double, z: Double, hit: Bool = false) {
        DecimalFormatting.append(time, decimals: timeDecimals, to: &bytes)
        appendValue(x)
        appendValue(y)
        appendValue(z)
        if withHitColumn {
            bytes.append(UInt8(ascii: ","))
            bytes.append(hit ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        }
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Appends `,value` (no array of the row's values: a row allocates nothing once the bytes'
    /// capacity has grown to hold it).
    private mutating func appendValue(_ value: Double) {
        bytes.append(UInt8(ascii: ","))
        DecimalFormatting.append(value, decimals: valueDecimals, to: &bytes)
    }

    /// Marks lost samples before the next row (`# gap`), so replays prime again there.
    public mutating func appendGap() {
        bytes.append(contentsOf: Array("# gap\n".utf8))
    }

    /// Appends a `# text` comment line, such as `# rate_hz: 250` learned while recording.
    public mutating func appendComment(_ text: String) {
        precondition(!text.contains("\n"), "a comment is one line")
        bytes.append(contentsOf: Array("# \(text)\n".utf8))
    }

    /// Returns the encoded text so far and forgets it.
    public mutating func take() -> [UInt8] {
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes
    }
}

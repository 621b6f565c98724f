#if canImport(Glibc)
import Glibc
#endif
import HitDetect
import Monotonic
import Console

/// A recording in `evemu-record`'s text format: the device description and its events.
///
/// ```
/// # EVEMU 1.3
/// N: DualSense Wireless Controller Motion Sensors
/// I: 0003 054c 0ce6 8111
/// P: 40 00 00 00 00 00 00 00
/// B: 03 07 00 00 00 00 00 00 00
/// A: 02 -32768 32767 16 0 8192
/// E: 0.000001 0003 0002 8192	# EV_ABS / ABS_Z   8192
/// E: 0.000001 0004 0005 1000	# EV_MSC / MSC_TIMESTAMP 1000
/// E: 0.000001 0000 0000 0000	# ------------ SYN_REPORT (0) ---------- +0ms
/// ```
/// `N` is the name, `P` the property bits as bytes (hex, least significant first), `A` an
/// absolute axis (code in hex, then min, max, fuzz, flat, resolution), `E` an event (time as
/// seconds.microseconds, type and code in hex, value in decimal). Comments after `#` and other
/// line kinds (`I`, `B`, `L`, `S`) are read past.
public struct EvemuRecording: Sendable {
    /// The device name (`N:`).
    public var name = ""
    /// Property bits (`P:`), such as `InputEvent.Code.propAccelerometer`.
    public var properties: Set<Int> = []
    /// Absolute axes by code (`A:`).
    public var absAxes: [UInt16: AbsInfo] = [:]
    /// The events, in order.
    public var events: [InputEvent] = []

    /// Whether the recorded device calls itself an accelerometer.
    public var isAccelerometer: Bool { properties.contains(InputEvent.Code.propAccelerometer) }

    /// Whether the file at `path` is an evemu recording rather than a CSV log: by its name
    /// (`.evemu`), else by its first bytes where it is a regular file; a pipe is never sniffed
    /// (that would eat its start). What `drumpad` and `drumbrain replay` both ask. The
    /// corresponding C functions are `stat`, `open` and `read`.
    public static func isRecording(path: String) -> Bool {
        if path.hasSuffix(".evemu") { return true }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 64)
        let count = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 && looksLikeRecording(Array(head[..<count]))
    }

    /// Whether `text` starts like an evemu recording (so a CSV log is told apart).
    public static func looksLikeRecording(_ prefix: [UInt8]) -> Bool {
        let head = String(decoding: prefix.prefix(64), as: UTF8.self)
        return head.hasPrefix("# EVEMU") || head.hasPrefix("N: ") || head.hasPrefix("E: ")
    }

    /// Parses the text of a recording; errors name `fileName` and the line.
    public init(text: String, fileName: String) throws(SensorError) {
        var lineNumber = 0
        for line: Substring in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let content = line.firstIndex(of: "#").map { line[..<$0] } ?? line[...]
            let fields = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard let kind = fields.first else { continue }
            func bad(_ why: String) -> SensorError {
                .badRecording(file: fileName, line: lineNumber, message: why)
            }
            switch kind {
            case "N:":
                // Untrusted text, quoted into messages: made safe to print.
                name = TerminalText.name(Substring(line.dropFirst(2)).trimmingSpaces())
            case "P:":
                for (byteIndex, field) in fields.dropFirst().enumerated() {
                    guard let byte = UInt8(field, radix: 16) else { throw bad("property byte \"\(field)\" is not hex") }
                    for bit in 0..<8 where byte & (1 << bit) != 0 { properties.insert(byteIndex * 8 + bit) }
                }
            case "A:":
                // Older evemu versions write no resolution; it is then unknown (0).
                let numbers = fields.dropFirst(2).compactMap { Int32($0) }
                guard fields.count >= 6, let code = UInt16(fields[1], radix: 16), numbers.count == fields.count - 2
                else { throw bad("an axis line is A: CODE(hex) MIN MAX FUZZ FLAT [RESOLUTION]") }
                absAxes[code] = AbsInfo(minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2],
                                        flat: numbers[3], resolution: numbers.count > 4 ? numbers[4] : 0)
            case "E:":
                guard fields.count >= 5, let micros = Self.parseTime(fields[1]),
                      let type = UInt16(fields[2], radix: 16), let code = UInt16(fields[3], radix: 16),
                      let value = Int64(fields[4]), value >= Int64(Int32.min), value <= Int64(UInt32.max)
                else { throw bad("an event line is E: SECONDS.MICROS TYPE(hex) CODE(hex) VALUE") }
                // MSC_TIMESTAMP is u32; evemu prints the signed value, some tools the unsigned.
                events.append(InputEvent(type: type, code: code, value: Int32(truncatingIfNeeded: value),
                                         timeMicros: micros))
            default:
                continue
            }
        }
        if events.isEmpty {
            throw .badRecording(file: fileName, line: lineNumber, message: "no events (E: lines); record some with evemu-record")
        }
    }

    /// `1.000123` → 1_000_123 µs.
    static func parseTime(_ text: Substring) -> Int64? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let seconds = Int64(parts[0]), parts[1].count == 6, let micros = Int64(parts[1]),
              seconds >= 0, micros >= 0 else { return nil }
        // A time past Int64 µs (about 292,000 years) is malformed, not a trap (found by fuzzing).
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow, whole <= Int64.max - micros else { return nil }
        return whole + micros
    }

    /// The units per g of each axis for this recording, or nil when it says nothing about them.
    public func unitsPerG(override: Double?) -> (x: Double, y: Double, z: Double)? {
        UnitsPerG.resolve(resolutions: [InputEvent.Code.absX, InputEvent.Code.absY, InputEvent.Code.absZ]
                              .map { absAxes[$0]?.resolution ?? 0 },
                          override: override, name: name)
    }

    /// The samples of the recording, in order, with `.gap` where the kernel dropped events.
    public func samples(unitsPerG: (x: Double, y: Double, z: Double)) -> [SensorEvent] {
        var assembler = EvdevFrameAssembler(unitsPerG: unitsPerG)
        var out: [SensorEvent] = []
        out.reserveCapacity(events.count / 3)
        for event in events {
            if let made = assembler.feed(event) { out.append(made) }
        }
        return out
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" }).reversed())
    }
}

extension EvemuRecording {
    /// The recording as a sensor log: its samples in g, `axis` as the detector's z and the other
    /// two as x and y, with times from `MSC_TIMESTAMP` (else the recorded event times) relative to
    /// the first sample, and a `# gap` where the kernel dropped events; and each sample's device
    /// time in µs (for pacing). What `drumpad replay` and `drumbrain replay` read of a recording.
    public func sensorBatch(axis: Axis, unitsPerG: (x: Double, y: Double, z: Double)) -> (batch: SensorBatch, deviceMicros: [Int64]) {
        var batch = SensorBatch()
        var deviceMicros: [Int64] = []
        var first: Int64?
        var gapPending = false
        for event in samples(unitsPerG: unitsPerG) {
            switch event {
            case .gap:
                gapPending = true
            case .sample(let s):
                if first == nil { first = s.deviceMicros }
                if gapPending && batch.count > 0 { batch.gapsBefore.append(batch.count) }
                gapPending = false
                let t = Double(s.deviceMicros.saturatingSubtract(first!)) / 1e6
                let (a, b) = s.across(axis)
                batch.append(time: t, x: a, y: b, z: s.value(axis))
                deviceMicros.append(s.deviceMicros)
            }
        }
        return (batch, deviceMicros)
    }
}

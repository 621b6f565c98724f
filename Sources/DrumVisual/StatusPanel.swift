/// One connection as the status area shows it (from the brain server's `PadStatistics`).
public struct PadStatus: Sendable, Equatable {
    /// The name from `/drum/hello`; nil for a client that never said hello (not a pad).
    public var name: String?
    /// The drum from `/drum/hello`.
    public var drum: String?
    /// The peer's address and port.
    public var address: String
    /// The round trip the pad last reported, µs.
    public var roundTripMicros: Int64?
    /// The brain's clock minus the pad's, as the pad last reported it, µs.
    public var clockOffsetMicros: Int64?
    /// Hits received.
    public var hits: Int
    /// Hits missing by their sequence numbers.
    public var gaps: Int

    /// Creates a row.
    public init(name: String?, drum: String?, address: String, roundTripMicros: Int64? = nil,
                clockOffsetMicros: Int64? = nil, hits: Int = 0, gaps: Int = 0) {
        self.name = name
        self.drum = drum
        self.address = address
        self.roundTripMicros = roundTripMicros
        self.clockOffsetMicros = clockOffsetMicros
        self.hits = hits
        self.gaps = gaps
    }
}

/// What the brain reports to the status area, a few times a second.
public struct BrainStatus: Sendable, Equatable {
    /// The brain's name.
    public var brainName: String
    /// Where it listens, such as `0.0.0.0:7770`.
    public var listening: String
    /// The kit's name.
    public var kitName: String
    /// The output device, as the audio engine describes it.
    public var output: String
    /// Audio underruns so far.
    public var xruns: Int
    /// Every open connection, oldest first.
    public var connections: [PadStatus]

    /// Creates a status.
    public init(brainName: String = "", listening: String = "", kitName: String = "", output: String = "",
                xruns: Int = 0, connections: [PadStatus] = []) {
        self.brainName = brainName
        self.listening = listening
        self.kitName = kitName
        self.output = output
        self.xruns = xruns
        self.connections = connections
    }
}

/// The status area's text: pure formatting, so it is tested without a terminal.
public enum StatusPanel {
    /// Column widths of the pad table.
    static let columns: [(title: String, width: Int)] = [("PAD", 14), ("DRUM", 10), ("ADDRESS", 22), ("RTT", 10),
                                                         ("OFFSET", 12), ("HITS", 7), ("GAPS", 6)]

    /// The lines for `status`, each at most `width` columns, at most `maxLines` of them (pads
    /// beyond that are summarised as "… N more").
    public static func lines(_ status: BrainStatus, hits: HitStatistics.Summary, log: String?,
                             width: Int, maxLines: Int = .max) -> [String] {
        var lines: [String] = []
        lines.append("drumbrain \"\(status.brainName)\" on \(status.listening) | kit \"\(status.kitName)\" | out \(status.output)")
        var numbers = "hits/s \(format1(hits.hitsPerSecond)) | xruns \(status.xruns) | latency "
        numbers += hits.latencyP50.map { "p50 \(formatMicros($0)) p99 \(formatMicros(hits.latencyP99 ?? $0))" } ?? "-"
        if let p50 = hits.brainP50 {
            numbers += " | brain p50 \(formatMicros(p50)) p99 \(formatMicros(hits.brainP99 ?? p50))"
        }
        lines.append(numbers)
        let pads = status.connections.filter { $0.name != nil }
        let others = status.connections.count - pads.count
        let otherText = others > 0 ? " (+\(others) other connection\(others == 1 ? "" : "s"))" : ""
        if pads.isEmpty {
            lines.append("no pads connected" + otherText)
        } else {
            lines.append(row(columns.map(\.title)) + otherText)
        }
        let logLines = log == nil ? 0 : 1
        let room = maxLines - lines.count - logLines
        for (i, pad) in pads.enumerated() {
            if i == room - 1 && pads.count > room {
                lines.append("... \(pads.count - i) more pad\(pads.count - i == 1 ? "" : "s")")
                break
            }
            if i >= room { break }
            lines.append(row([pad.name ?? "-", pad.drum ?? "-", pad.address,
                              pad.roundTripMicros.map { formatMicros($0) } ?? "-",
                              pad.clockOffsetMicros.map { formatMicros($0, signed: true) } ?? "-",
                              "\(pad.hits)", "\(pad.gaps)"]))
        }
        if let log { lines.append(log) }
        return lines.prefix(max(0, maxLines)).map { String($0.prefix(max(0, width))) }
    }

    /// Cells padded (or cut) to the table's columns, one blank between.
    static func row(_ cells: [String]) -> String {
        var line = ""
        for (i, cell) in cells.enumerated() {
            let width = columns[i].width
            let text = cell.count >= width ? String(cell.prefix(width - 1)) : cell
            line += text + String(repeating: " ", count: width - text.count)
        }
        while line.hasSuffix(" ") { line.removeLast() }
        return line
    }

    /// A duration: `850 us`, `1.25 ms`, `3.2 s`, `5400 s`; with a sign when `signed`.
    public static func formatMicros(_ micros: Int64, signed: Bool = false) -> String {
        let sign = micros < 0 ? "-" : signed ? "+" : ""
        let m = micros.magnitude
        if m < 1000 { return "\(sign)\(m) us" }
        if m < 1_000_000 { return "\(sign)\(format2(Double(m) / 1000)) ms" }
        if m < 100_000_000 { return "\(sign)\(format1(Double(m) / 1_000_000)) s" }
        return "\(sign)\(m / 1_000_000) s"
    }

    static func format1(_ value: Double) -> String {
        let scaled = Int((value * 10).rounded())
        return "\(scaled / 10).\(scaled % 10)"
    }

    static func format2(_ value: Double) -> String {
        let scaled = Int((value * 100).rounded())
        let fraction = scaled % 100
        return "\(scaled / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}

/// Hits per second and latency percentiles, kept by the render thread from the hits it takes.
///
/// Thread safety: a value type, owned by the render thread. Storage is fixed at creation.
public struct HitStatistics: Sendable {
    /// What the status area shows.
    public struct Summary: Sendable, Equatable {
        /// Hits in the last second (counted up to 256).
        public var hitsPerSecond: Double = 0
        /// Network latency percentiles of recent hits (µs), when pads synchronised clocks.
        public var latencyP50: Int64?
        /// 99th percentile of the same.
        public var latencyP99: Int64?
        /// Receipt → period rendered percentiles (µs), when known.
        public var brainP50: Int64?
        /// 99th percentile of the same.
        public var brainP99: Int64?

        /// An empty summary.
        public init() {}
    }

    /// How many recent values the percentiles cover.
    public static let window = 512
    private var hitTimes: [Int64]
    private var nextHit = 0
    private var latencies: [Int64] = []
    private var nextLatency = 0
    private var brainTimes: [Int64] = []
    private var nextBrain = 0

    /// Creates empty statistics.
    public init() {
        hitTimes = Array(repeating: .min, count: 256)
        latencies.reserveCapacity(Self.window)
        brainTimes.reserveCapacity(Self.window)
    }

    /// A hit taken at `nowMicros`, with its network latency when known.
    public mutating func recordHit(atMicros nowMicros: Int64, latencyMicros: Int64?) {
        hitTimes[nextHit] = nowMicros
        nextHit = (nextHit + 1) % hitTimes.count
        if let latencyMicros { Self.add(latencyMicros, to: &latencies, next: &nextLatency) }
    }

    /// A hit's time from receipt to the period it starts in.
    public mutating func recordBrain(micros: Int64) {
        Self.add(micros, to: &brainTimes, next: &nextBrain)
    }

    private static func add(_ value: Int64, to values: inout [Int64], next: inout Int) {
        if values.count < window { values.append(value) } else { values[next] = value }
        next = (next + 1) % window
    }

    /// The summary at `nowMicros`.
    public func summary(nowMicros: Int64) -> Summary {
        var summary = Summary()
        var recent = 0
        for t in hitTimes where t != .min && t > nowMicros - 1_000_000 && t <= nowMicros { recent += 1 }
        summary.hitsPerSecond = Double(recent)
        (summary.latencyP50, summary.latencyP99) = Self.percentiles(latencies)
        (summary.brainP50, summary.brainP99) = Self.percentiles(brainTimes)
        return summary
    }

    /// The 50th and 99th percentiles by nearest rank.
    static func percentiles(_ values: [Int64]) -> (Int64?, Int64?) {
        guard !values.isEmpty else { return (nil, nil) }
        let sorted = values.sorted()
        func rank(_ p: Double) -> Int64 {
            sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
        }
        return (rank(0.5), rank(0.99))
    }
}

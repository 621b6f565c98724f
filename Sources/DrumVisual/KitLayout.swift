/// A drum as the visual places it: its name and where it sits (docs/architecture.md, Kits's azimuth).
public struct VisualDrum: Sendable, Equatable {
    /// The drum's name, its label.
    public var name: String
    /// Degrees, −90 hard left … +90 hard right.
    public var azimuth: Double

    /// Creates a drum.
    public init(name: String, azimuth: Double) {
        self.name = name
        self.azimuth = azimuth
    }
}

/// Where each drum's cluster sits in a drawing area of a given size: left to right by azimuth,
/// spaced partly by azimuth and partly evenly so near neighbours stay apart, labels shortened
/// only when the width cannot hold them all.
///
/// Thread safety: an immutable value.
public struct KitLayout: Sendable, Equatable {
    /// One drum's place.
    public struct Cluster: Sendable, Equatable {
        /// The drum's index in the kit's order (hits carry this index).
        public var drum: Int
        /// The label shown, the drum's name or its start when the width is short.
        public var label: String
        /// The column of the label's first character.
        public var labelX: Int
        /// The column particles fly out from (the body's middle).
        public var centerX: Int
        /// The row of the drum's body, where particles start.
        public var bodyY: Int
        /// The row of the label.
        public var labelY: Int
        /// The body's first column and width.
        public var bodyX: Int
        /// The body's width in columns.
        public var bodyWidth: Int
    }

    /// The clusters, left to right (ascending azimuth; equal azimuths keep the kit's order).
    public let clusters: [Cluster]
    /// The drawing area's width.
    public let width: Int
    /// The drawing area's height.
    public let height: Int
    /// For each drum in kit order, its position in `clusters`.
    private let slotOfDrum: [Int]

    /// Lays out `drums` in an area of `width × height` cells.
    public init(drums: [VisualDrum], width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        let order = drums.indices.sorted { (drums[$0].azimuth, $0) < (drums[$1].azimuth, $1) }
        var slots = [Int](repeating: 0, count: drums.count)
        for (slot, drum) in order.enumerated() { slots[drum] = slot }
        slotOfDrum = slots
        let n = order.count
        guard n > 0, width > 0, height > 0 else {
            clusters = []
            return
        }
        // Labels: as long as the names, or all cut to the longest length that fits with one
        // blank between neighbours.
        let names = order.map { Self.ascii(drums[$0].name) }
        let lengths = names.map { max(1, $0.count) }
        var cap = lengths.max()!
        while cap > 1 && lengths.map({ min($0, cap) }).reduce(0, +) + (n - 1) > width { cap -= 1 }
        let labels = names.map { String($0.prefix(cap)) }
        let bodies = labels.map { $0.count >= 3 ? min($0.count, 7) : max(1, $0.count) }
        let widths = zip(labels, bodies).map { max($0.count, $1, 1) }
        // Spacing between clusters when there is room for it.
        let total = widths.reduce(0, +)
        let gap = n > 1 ? min(4, max(1, (width - total) / (n + 1))) : 0
        // Ideal left edges: half by azimuth, half evenly spaced.
        let azimuths = order.map { drums[$0].azimuth }
        let lowest = azimuths.first!, highest = azimuths.last!
        let free = Double(max(0, width - total))
        var lefts = [Int](repeating: 0, count: n)
        var before = 0
        for i in 0..<n {
            let even = n > 1 ? Double(i) / Double(n - 1) : 0.5
            let byAzimuth = highest > lowest ? (azimuths[i] - lowest) / (highest - lowest) : even
            lefts[i] = before + Int(((even + byAzimuth) / 2 * free).rounded())
            before += widths[i]
        }
        // Keep them apart, then inside the area.
        for i in 1..<max(1, n) where lefts[i] < lefts[i - 1] + widths[i - 1] + gap {
            lefts[i] = lefts[i - 1] + widths[i - 1] + gap
        }
        if n > 0, lefts[n - 1] + widths[n - 1] > width { lefts[n - 1] = width - widths[n - 1] }
        for i in stride(from: n - 2, through: 0, by: -1) where lefts[i] + widths[i] + gap > lefts[i + 1] {
            lefts[i] = lefts[i + 1] - widths[i] - gap
        }
        for i in 0..<n where lefts[i] < 0 { lefts[i] = 0 }
        let bodyY = height >= 4 ? min(height - 2, max(1, height * 3 / 5)) : max(0, height - 2)
        let labelY = min(height - 1, bodyY + 1)
        clusters = (0..<n).map { i in
            let left = lefts[i]
            let center = left + widths[i] / 2
            return Cluster(drum: order[i], label: labels[i],
                           labelX: left + (widths[i] - labels[i].count) / 2,
                           centerX: center, bodyY: bodyY, labelY: labelY,
                           bodyX: left + (widths[i] - bodies[i]) / 2, bodyWidth: bodies[i])
        }
    }

    /// The cluster of the drum at `index` in kit order, if the kit has it.
    public func cluster(forDrum index: Int) -> Cluster? {
        guard index >= 0 && index < slotOfDrum.count, !clusters.isEmpty else { return nil }
        return clusters[slotOfDrum[index]]
    }

    /// The position left to right of the drum at `index` in kit order, if the kit has it.
    public func slot(forDrum index: Int) -> Int? {
        guard index >= 0 && index < slotOfDrum.count, !clusters.isEmpty else { return nil }
        return slotOfDrum[index]
    }

    /// Printable ASCII only: the visual draws one byte per cell.
    static func ascii(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? $0 : "?" }))
    }
}

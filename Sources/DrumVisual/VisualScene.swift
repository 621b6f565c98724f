/// Everything the visual shows, as a pure model: the kit's clusters laid out by azimuth, the
/// bursts, the kick's background colour and the status lines; drawn into a `CellBuffer`.
///
/// It never touches a terminal: the render thread feeds it hits and time, draws it, and hands
/// the frame to `FrameWriter`. Deterministic for a given seed.
///
/// Thread safety: a value type, owned by the render thread.
public struct VisualScene: Sendable {
    /// The kit, in kit order (hits carry indices into it).
    public private(set) var drums: [VisualDrum]
    /// How colours are shown.
    public let colorMode: ColorMode
    /// The whole screen's size.
    public private(set) var width: Int
    /// The whole screen's size.
    public private(set) var height: Int
    /// Where the clusters sit in the drawing area.
    public private(set) var layout: KitLayout
    /// The bursts.
    public private(set) var particles: ParticleSystem
    /// The background the last kick chose (nil: the terminal's own, until the first kick).
    public private(set) var background: RGB?
    /// Kicks seen, for tests.
    public private(set) var kicks = 0
    /// Status lines shown under the kit, top to bottom.
    public private(set) var statusLines: [String] = []

    private var random: SeededRandom
    private var isKick: [Bool]
    /// Seconds each drum's body stays lit after a hit.
    private var flash: [Float]
    /// Per-frame scratch: the brightest particle in each cell of the drawing area.
    private var brightness: [Float] = []
    private var brightest: [Int32] = []
    /// Each cluster's colour, by its place left to right.
    private var slotColor: [RGB] = []

    /// The fewest rows the kit's drawing area keeps when the status is long.
    public static let minimumDrawingRows = 6

    /// Creates a scene for `drums` on a `width × height` screen.
    public init(drums: [VisualDrum], colorMode: ColorMode, width: Int, height: Int, seed: UInt64,
                particleCapacity: Int = 1500) {
        self.drums = drums
        self.colorMode = colorMode
        self.width = max(0, width)
        self.height = max(0, height)
        random = SeededRandom(seed: seed ^ 0x5EED)
        particles = ParticleSystem(capacity: particleCapacity, seed: seed)
        isKick = drums.map(Self.isKick)
        flash = Array(repeating: 0, count: drums.count)
        layout = KitLayout(drums: drums, width: width, height: height)
        relayout()
    }

    /// Whether a drum's hits flip the background: its name says kick (or bass drum).
    public static func isKick(_ drum: VisualDrum) -> Bool {
        let name = drum.name.lowercased()
        return name.contains("kick") || name.contains("bass drum")
    }

    /// The rows the kit is drawn in (the rest, below, is the status).
    public var drawingRows: Int {
        let wanted = statusLines.isEmpty ? 0 : statusLines.count + 1  // + a rule above the status
        return max(min(height, Self.minimumDrawingRows), height - wanted)
    }

    /// A new kit (after a reload); bursts in flight keep going where their index still exists.
    public mutating func setKit(_ drums: [VisualDrum]) {
        self.drums = drums
        isKick = drums.map(Self.isKick)
        flash = Array(repeating: 0, count: drums.count)
        relayout()
    }

    /// A new screen size: the clusters reflow.
    public mutating func resize(width: Int, height: Int) {
        guard width != self.width || height != self.height else { return }
        self.width = max(0, width)
        self.height = max(0, height)
        relayout()
    }

    /// New status lines (the drawing area shrinks or grows with them).
    public mutating func setStatus(_ lines: [String]) {
        guard lines != statusLines else { return }
        let rows = drawingRows
        statusLines = lines
        if drawingRows != rows { relayout() }
    }

    private mutating func relayout() {
        layout = KitLayout(drums: drums, width: width, height: drawingRows)
        brightness = Array(repeating: 0, count: width * layout.height)
        brightest = Array(repeating: -1, count: width * layout.height)
        slotColor = layout.clusters.indices.map { drumColor(slot: $0) }
    }

    /// A hit on drum `drum` (kit index) at `velocity`: a burst, and a new background for a kick.
    /// Indices the kit lacks are ignored.
    public mutating func hit(drum: Int, velocity: Float) {
        guard drum >= 0 && drum < drums.count else { return }
        particles.hit(drum: drum, velocity: velocity)
        flash[drum] = ParticleSystem.burstSeconds
        if isKick[drum] {
            kicks += 1
            background = nextBackground()
        }
    }

    /// A random dark-to-middling colour (light text stays readable on it) that the terminal
    /// shows differently from the current one.
    private mutating func nextBackground() -> RGB {
        var candidate = RGB(0, 0, 0)
        for _ in 0..<16 {
            candidate = RGB(hue: random.unit(), saturation: random.float(in: 0.55...0.95),
                            value: random.float(in: 0.3...0.5))
            guard let current = background else { break }
            if colorMode.color(candidate) != colorMode.color(current) { break }
        }
        return candidate
    }

    /// Advances the animation by `seconds`.
    public mutating func step(seconds: Float) {
        particles.step(seconds: seconds)
        for i in flash.indices where flash[i] > 0 { flash[i] = max(0, flash[i] - seconds) }
    }

    /// The drum's own colour: hues around the wheel in azimuth order.
    public func drumColor(slot: Int) -> RGB {
        RGB(hue: Float(slot) / Float(max(1, layout.clusters.count)) + 0.02, saturation: 0.7, value: 1)
    }

    /// Glyphs for particle brightness, dimmest first.
    public static let particleGlyphs: [UInt8] = Array(".:+*#".utf8)

    /// Draws the scene into `frame`, resizing it to the screen.
    public mutating func draw(into frame: inout CellBuffer) {
        let backgroundColor = background.map { colorMode.color($0) } ?? .default
        frame.reset(width: width, height: height, fill: Cell(0x20, background: backgroundColor))
        guard width > 0 && height > 0 else { return }
        let rows = layout.height
        // Particles: the brightest in each cell wins.
        for i in brightness.indices {
            brightness[i] = 0
            brightest[i] = -1
        }
        let w = width
        let all = particles.allParticles
        for particle in all where particle.isAlive {
            guard let cluster = layout.cluster(forDrum: Int(particle.drum)) else { continue }
            let x = cluster.centerX + Int(particle.x.rounded())
            let y = cluster.bodyY + Int(particle.y.rounded())
            guard x >= 0 && x < w && y >= 0 && y < rows else { continue }
            let b = particle.brightness
            if b > brightness[y * w + x] {
                brightness[y * w + x] = b
                brightest[y * w + x] = particle.drum
            }
        }
        let fadeTarget = background ?? RGB(0, 0, 0)
        for y in 0..<rows {
            for x in 0..<w where brightest[y * w + x] >= 0 {
                let b = brightness[y * w + x]
                guard let slot = layout.slot(forDrum: Int(brightest[y * w + x])) else { continue }
                let glyphs = Self.particleGlyphs
                let glyph = glyphs[min(glyphs.count - 1, Int(b * Float(glyphs.count)))]
                // Eight steps of fade: a cell's colour changes only when its step does, which keeps
                // the bytes per frame down (each truecolor change costs about 20).
                let step = (b * 8).rounded(.up) / 8
                let color = slotColor[slot].mixed(with: fadeTarget, amount: 1 - step)
                frame.put(glyph, x: x, y: y, foreground: colorMode.color(color), bold: b > 0.7)
            }
        }
        // The clusters on top: body and label in the drum's colour; the body lights up on a hit.
        for (slot, cluster) in layout.clusters.enumerated() {
            let lit = cluster.drum < flash.count && flash[cluster.drum] > 0
            let color = colorMode.color(lit ? RGB(255, 255, 255) : slotColor[slot])
            for i in 0..<cluster.bodyWidth {
                let edge = cluster.bodyWidth >= 3 && (i == 0 || i == cluster.bodyWidth - 1)
                let glyph: UInt8 = edge ? (i == 0 ? 0x28 : 0x29) : (lit ? 0x40 : 0x3D)  // ( @ = )
                frame.put(glyph, x: cluster.bodyX + i, y: cluster.bodyY, foreground: color, bold: lit)
            }
            if cluster.labelY != cluster.bodyY {
                frame.text(cluster.label, x: cluster.labelX, y: cluster.labelY,
                           foreground: colorMode.color(slotColor[slot]), bold: true)
            }
        }
        // The status under a rule.
        guard !statusLines.isEmpty, rows < height else { return }
        let rule = colorMode.color(RGB(128, 128, 128))
        for x in 0..<w { frame.put(0x2D, x: x, y: rows, foreground: rule) }  // -
        for (i, line) in statusLines.enumerated() where rows + 1 + i < height {
            frame.text(line, x: 0, y: rows + 1 + i, foreground: .default, bold: i == 0)
        }
    }
}

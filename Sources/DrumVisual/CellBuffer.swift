/// One character cell of the terminal: an ASCII character and its colours.
public struct Cell: Sendable, Equatable {
    /// The character, ASCII (printable, 0x20…0x7E).
    public var character: UInt8
    /// Foreground colour.
    public var foreground: TerminalColor
    /// Background colour.
    public var background: TerminalColor
    /// Bold (brighter on most terminals).
    public var bold: Bool

    /// Creates a cell.
    public init(_ character: UInt8 = 0x20, foreground: TerminalColor = .default,
                background: TerminalColor = .default, bold: Bool = false) {
        self.character = character
        self.foreground = foreground
        self.background = background
        self.bold = bold
    }

    /// A blank with the terminal's default colours.
    public static let blank = Cell()
}

/// A frame: a grid of cells, row by row, drawn by the scene and diffed by `FrameWriter`.
///
/// Thread safety: a value type; the render thread owns its frames.
public struct CellBuffer: Sendable, Equatable {
    /// Columns.
    public private(set) var width: Int
    /// Rows.
    public private(set) var height: Int
    /// The cells, `width × height`, row-major.
    public private(set) var cells: [Cell]

    /// A frame of blanks.
    public init(width: Int, height: Int, fill: Cell = .blank) {
        precondition(width >= 0 && height >= 0, "a frame has no negative size")
        self.width = width
        self.height = height
        cells = Array(repeating: fill, count: width * height)
    }

    /// Changes the size, keeping the storage when it is large enough; every cell becomes `fill`.
    public mutating func reset(width: Int, height: Int, fill: Cell) {
        if width != self.width || height != self.height {
            self.width = width
            self.height = height
            cells = Array(repeating: fill, count: width * height)
        } else {
            for i in cells.indices { cells[i] = fill }
        }
    }

    /// Becomes a copy of `other`, reusing this buffer's storage when the sizes match (so a
    /// frame kept for diffing costs no allocation per frame).
    public mutating func assign(_ other: CellBuffer) {
        guard other.width == width && other.height == height else {
            self = other
            return
        }
        cells.withUnsafeMutableBufferPointer { target in
            other.cells.withUnsafeBufferPointer { source in
                _ = target.update(fromContentsOf: source)
            }
        }
    }

    /// The cell at column `x`, row `y` (0-based).
    public subscript(x: Int, y: Int) -> Cell {
        get { cells[y * width + x] }
        set { cells[y * width + x] = newValue }
    }

    /// Whether (`x`, `y`) lies on the frame.
    @inline(__always)
    public func contains(x: Int, y: Int) -> Bool { x >= 0 && y >= 0 && x < width && y < height }

    /// Sets one cell's character and foreground, keeping its background; off-frame is ignored.
    public mutating func put(_ character: UInt8, x: Int, y: Int, foreground: TerminalColor, bold: Bool = false) {
        guard contains(x: x, y: y) else { return }
        let i = y * width + x
        cells[i].character = character
        cells[i].foreground = foreground
        cells[i].bold = bold
    }

    /// Writes `text` from column `x` on row `y`, clipped to the frame and to `maxWidth`; non-ASCII
    /// characters show as `?`. Returns the columns written.
    @discardableResult
    public mutating func text(_ text: String, x: Int, y: Int, foreground: TerminalColor = .default,
                              bold: Bool = false, maxWidth: Int = .max) -> Int {
        guard y >= 0 && y < height else { return 0 }
        var column = x
        var written = 0
        for scalar in text.unicodeScalars {
            if written >= maxWidth || column >= width { break }
            let byte: UInt8 = scalar.value >= 0x20 && scalar.value < 0x7F ? UInt8(scalar.value) : 0x3F
            put(byte, x: column, y: y, foreground: foreground, bold: bold)
            column += 1
            written += 1
        }
        return written
    }

    /// Row `y` as text (for tests and debugging).
    public func row(_ y: Int) -> String {
        String(decoding: cells[(y * width)..<((y + 1) * width)].map(\.character), as: UTF8.self)
    }
}

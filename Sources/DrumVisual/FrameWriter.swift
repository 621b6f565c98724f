/// Turns frames into the bytes that bring a terminal from the previous frame to the next: only
/// the cells that changed, with the shortest cursor moves and only the SGR changes needed.
///
/// The first frame, and the first after `invalidate()` or a size change, clears the screen and
/// draws every cell. After a cell in the last column the cursor position is unknown (terminals
/// differ in how they hold a pending wrap), so the next write moves it explicitly.
///
/// Thread safety: a value type, owned by the render thread.
public struct FrameWriter: Sendable {
    private var previous: CellBuffer?
    /// The cursor's column and row, when known.
    private var cursor: (x: Int, y: Int)?
    /// The attributes the terminal is drawing with, when known.
    private var pen: Cell?

    /// Creates a writer; its first frame is drawn in full.
    public init() {}

    /// Makes the next frame a full redraw (after a resize, or when something else wrote).
    public mutating func invalidate() {
        previous = nil
        cursor = nil
        pen = nil
    }

    /// Appends to `out` what draws `frame` over the previous one (nothing when they are equal).
    public mutating func write(_ frame: CellBuffer, into out: inout [UInt8]) {
        let full = previous.map { $0.width != frame.width || $0.height != frame.height } ?? true
        if full {
            // Reset first so the clear uses the default background, then draw every cell.
            out.append(contentsOf: Self.resetAndClear)
            pen = .blank
            cursor = (0, 0)
        }
        let width = frame.width
        frame.cells.withUnsafeBufferPointer { cells in
            previous?.cells.withUnsafeBufferPointer { old in
                emit(cells, old: full ? nil : old, width: width, height: frame.height, into: &out)
            } ?? emit(cells, old: nil, width: width, height: frame.height, into: &out)
        }
        if previous == nil { previous = CellBuffer(width: 0, height: 0) }
        previous!.assign(frame)
    }

    private mutating func emit(_ cells: UnsafeBufferPointer<Cell>, old: UnsafeBufferPointer<Cell>?,
                               width: Int, height: Int, into out: inout [UInt8]) {
        for y in 0..<height {
            let rowStart = y * width
            for x in 0..<width {
                let cell = cells[rowStart + x]
                if let old, old[rowStart + x] == cell { continue }
                // After the clear every cell is already a default blank.
                if old == nil && cell == .blank { continue }
                moveCursor(toX: x, y: y, cells: cells, old: old, width: width, into: &out)
                setPen(cell, into: &out)
                out.append(cell.character)
                cursor = x + 1 < width ? (x + 1, y) : nil
            }
        }
    }

    /// Moves the cursor to (`x`, `y`): nothing if it is there; rewriting up to 4 unchanged cells
    /// that share the pen; a forward move on the same row; else an absolute move.
    private mutating func moveCursor(toX x: Int, y: Int, cells: UnsafeBufferPointer<Cell>,
                                     old: UnsafeBufferPointer<Cell>?, width: Int, into out: inout [UInt8]) {
        if let cursor, cursor.y == y, cursor.x == x { return }
        if let cursor, cursor.y == y, cursor.x < x {
            let gap = x - cursor.x
            if gap <= 4, let pen {
                var same = true
                for i in cursor.x..<x where !Self.samePen(cells[y * width + i], pen) { same = false; break }
                if same {
                    for i in cursor.x..<x { out.append(cells[y * width + i].character) }
                    self.cursor = (x, y)
                    return
                }
            }
            out.append(contentsOf: [0x1B, 0x5B])  // ESC [
            Self.appendNumber(gap, to: &out)
            out.append(0x43)  // C: cursor forward
        } else {
            out.append(contentsOf: [0x1B, 0x5B])
            Self.appendNumber(y + 1, to: &out)
            out.append(0x3B)
            Self.appendNumber(x + 1, to: &out)
            out.append(0x48)  // H: cursor position
        }
        cursor = (x, y)
    }

    @inline(__always)
    private static func samePen(_ a: Cell, _ b: Cell) -> Bool {
        a.foreground == b.foreground && a.background == b.background && a.bold == b.bold
    }

    /// Emits one SGR sequence with only the attributes that differ from the pen's.
    private mutating func setPen(_ cell: Cell, into out: inout [UInt8]) {
        if let pen, Self.samePen(pen, cell) { return }
        out.append(contentsOf: [0x1B, 0x5B])
        var first = true
        func separator() {
            if !first { out.append(0x3B) }
            first = false
        }
        var known = pen
        if let current = known, current.bold && !cell.bold {
            // Turning bold off portably means a reset; the colours are set again after it.
            out.append(0x30)
            first = false
            known = .blank
        }
        if known == nil || known!.bold != cell.bold, cell.bold {
            separator()
            out.append(0x31)
        }
        if known == nil || known!.foreground != cell.foreground {
            separator()
            Self.appendColor(cell.foreground, foreground: true, to: &out)
        }
        if known == nil || known!.background != cell.background {
            separator()
            Self.appendColor(cell.background, foreground: false, to: &out)
        }
        out.append(0x6D)  // m
        pen = cell
    }

    private static func appendColor(_ color: TerminalColor, foreground: Bool, to out: inout [UInt8]) {
        switch color {
        case .default:
            out.append(foreground ? 0x33 : 0x34)
            out.append(0x39)
        case .indexed(let n) where n < 8:
            out.append(foreground ? 0x33 : 0x34)
            out.append(0x30 + n)
        case .indexed(let n):
            out.append(contentsOf: foreground ? [0x33, 0x38, 0x3B, 0x35, 0x3B] : [0x34, 0x38, 0x3B, 0x35, 0x3B])
            appendNumber(Int(n), to: &out)
        case .rgb(let c):
            out.append(contentsOf: foreground ? [0x33, 0x38, 0x3B, 0x32, 0x3B] : [0x34, 0x38, 0x3B, 0x32, 0x3B])
            appendNumber(Int(c.r), to: &out)
            out.append(0x3B)
            appendNumber(Int(c.g), to: &out)
            out.append(0x3B)
            appendNumber(Int(c.b), to: &out)
        }
    }

    /// Decimal digits of a non-negative number, without allocating.
    @inline(__always)
    static func appendNumber(_ value: Int, to out: inout [UInt8]) {
        if value >= 10 { appendNumber(value / 10, to: &out) }
        out.append(0x30 + UInt8(value % 10))
    }

    /// SGR reset, cursor home, clear screen.
    static let resetAndClear: [UInt8] = Array("\u{1B}[0m\u{1B}[H\u{1B}[2J".utf8)
}

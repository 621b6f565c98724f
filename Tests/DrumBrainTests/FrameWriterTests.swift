import DrumVisual
import Testing

/// A tiny terminal: just what `FrameWriter` emits (CUP, CUF, SGR, clear, printable bytes).
struct ScreenModel {
    var cells: [[Cell]]
    var x = 0, y = 0
    var pen = Cell.blank

    init(width: Int, height: Int) {
        cells = Array(repeating: Array(repeating: .blank, count: width), count: height)
    }

    mutating func apply(_ bytes: [UInt8]) {
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x1B {
                precondition(bytes[i + 1] == 0x5B, "only CSI sequences")
                var j = i + 2
                while !(0x40...0x7E).contains(bytes[j]) { j += 1 }
                let parameters = String(decoding: bytes[(i + 2)..<j], as: UTF8.self)
                    .split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
                csi(bytes[j], parameters)
                i = j + 1
            } else {
                if y < cells.count && x < cells[y].count {
                    var cell = pen
                    cell.character = byte
                    cells[y][x] = cell
                }
                x = min(x + 1, cells[0].count - 1)  // a pending wrap stays on the row here
                i += 1
            }
        }
    }

    mutating func csi(_ final: UInt8, _ p: [Int]) {
        switch final {
        case 0x48: (y, x) = (max(1, p.first ?? 1) - 1, max(1, p.count > 1 ? p[1] : 1) - 1)  // H
        case 0x43: x += max(1, p.first ?? 1)  // C
        case 0x4A:  // J (2: all), with the pen's background
            cells = cells.map { $0.map { _ in Cell(0x20, background: pen.background) } }
        case 0x6D:  // m
            var k = 0
            while k < p.count {
                switch p[k] {
                case 0: pen = .blank
                case 1: pen.bold = true
                case 30...37: pen.foreground = .indexed(UInt8(p[k] - 30))
                case 39: pen.foreground = .default
                case 40...47: pen.background = .indexed(UInt8(p[k] - 40))
                case 49: pen.background = .default
                case 38, 48:
                    let foreground = p[k] == 38
                    let color: TerminalColor
                    if p[k + 1] == 5 {
                        color = .indexed(UInt8(p[k + 2]))
                        k += 2
                    } else {
                        color = .rgb(RGB(UInt8(p[k + 2]), UInt8(p[k + 3]), UInt8(p[k + 4])))
                        k += 4
                    }
                    if foreground { pen.foreground = color } else { pen.background = color }
                default: break
                }
                k += 1
            }
        default: break
        }
    }
}

/// The diff renderer: nothing for an unchanged frame, a short sequence for one changed cell,
/// and the screen always ends up showing the frame.
struct FrameWriterTests {
    func frame(_ width: Int, _ height: Int, seed: UInt64, density: Int) -> CellBuffer {
        var random = SeededRandom(seed: seed)
        var frame = CellBuffer(width: width, height: height)
        let colors: [TerminalColor] = [.default, .indexed(3), .indexed(200), .rgb(RGB(10, 200, 30))]
        for y in 0..<height {
            for x in 0..<width where Int(random.next() % 100) < density {
                frame[x, y] = Cell(UInt8(0x21 + random.next() % 90), foreground: colors[Int(random.next() % 4)],
                                   background: colors[Int(random.next() % 4)], bold: random.next() % 2 == 0)
            }
        }
        return frame
    }

    @Test func aSecondIdenticalFrameWritesNothing() {
        var writer = FrameWriter()
        let picture = frame(80, 24, seed: 1, density: 30)
        var out: [UInt8] = []
        writer.write(picture, into: &out)
        #expect(out.count > 500)
        out.removeAll()
        writer.write(picture, into: &out)
        #expect(out.isEmpty)
    }

    @Test func oneChangedCellWritesAShortSequence() {
        var writer = FrameWriter()
        var picture = CellBuffer(width: 80, height: 24)
        var out: [UInt8] = []
        writer.write(picture, into: &out)
        picture[10, 5] = Cell(0x2A, foreground: .indexed(2))
        out.removeAll()
        writer.write(picture, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "\u{1B}[6;11H\u{1B}[32m*")
        // Changing it back: move there, back to the default colour, a blank.
        picture[10, 5] = .blank
        out.removeAll()
        writer.write(picture, into: &out)
        #expect(String(decoding: out, as: UTF8.self) == "\u{1B}[6;11H\u{1B}[39m ")
    }

    @Test func nearbyChangesOnARowUseShortMoves() {
        var writer = FrameWriter()
        var picture = CellBuffer(width: 80, height: 24)
        var out: [UInt8] = []
        writer.write(picture, into: &out)
        picture[10, 5] = Cell(0x2A)
        picture[12, 5] = Cell(0x2B)
        picture[40, 5] = Cell(0x2C)
        out.removeAll()
        writer.write(picture, into: &out)
        // The unchanged blank between is rewritten (1 byte); the long gap is a forward move.
        #expect(String(decoding: out, as: UTF8.self) == "\u{1B}[6;11H* +\u{1B}[27C,")
    }

    @Test func theScreenAlwaysShowsTheLatestFrame() {
        var writer = FrameWriter()
        var screen = ScreenModel(width: 37, height: 11)
        for step in 0..<40 {
            // Sparse and dense frames, and a resize half way (a full redraw).
            let width = step < 20 ? 37 : 23
            if step == 20 { screen = ScreenModel(width: 23, height: 11) }
            let picture = frame(width, 11, seed: UInt64(step), density: step % 3 == 0 ? 90 : 10)
            var out: [UInt8] = []
            writer.write(picture, into: &out)
            screen.apply(out)
            for y in 0..<11 {
                for x in 0..<width where screen.cells[y][x] != picture[x, y] {
                    Issue.record("step \(step): cell \(x),\(y) shows \(screen.cells[y][x]), frame has \(picture[x, y])")
                    return
                }
            }
        }
    }
}

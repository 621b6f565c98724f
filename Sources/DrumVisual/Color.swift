/// A colour as 8-bit red, green and blue.
public struct RGB: Sendable, Equatable, Hashable {
    /// Red, 0…255.
    public var r: UInt8
    /// Green, 0…255.
    public var g: UInt8
    /// Blue, 0…255.
    public var b: UInt8

    /// Creates a colour.
    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// A colour from hue (0…1, wrapping), saturation and value (0…1).
    public init(hue: Float, saturation: Float, value: Float) {
        let h = (hue - hue.rounded(.down)) * 6
        let sector = Int(h) % 6
        let f = h - Float(Int(h))
        let v = value, s = saturation
        let p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f))
        let (r, g, b): (Float, Float, Float)
        switch sector {
        case 0: (r, g, b) = (v, t, p)
        case 1: (r, g, b) = (q, v, p)
        case 2: (r, g, b) = (p, v, t)
        case 3: (r, g, b) = (p, q, v)
        case 4: (r, g, b) = (t, p, v)
        default: (r, g, b) = (v, p, q)
        }
        self.init(Self.byte(r), Self.byte(g), Self.byte(b))
    }

    /// `self` moved towards `other` by `amount` (0: self, 1: other).
    public func mixed(with other: RGB, amount: Float) -> RGB {
        let a = min(1, max(0, amount))
        func mix(_ x: UInt8, _ y: UInt8) -> UInt8 { Self.byte((Float(x) + (Float(y) - Float(x)) * a) / 255) }
        return RGB(mix(r, other.r), mix(g, other.g), mix(b, other.b))
    }

    static func byte(_ unit: Float) -> UInt8 { UInt8(min(255, max(0, (unit * 255).rounded()))) }
}

/// How many colours the terminal shows, from its environment.
public enum ColorMode: Sendable, Equatable, CustomStringConvertible {
    /// No colour at all (`NO_COLOR` set): shapes and characters only.
    case none
    /// The 8 basic ANSI colours (SGR 30–37, 40–47).
    case basic
    /// The xterm 256-colour palette (SGR 38;5;N).
    case palette256
    /// 24-bit colour (SGR 38;2;R;G;B).
    case truecolor

    /// The mode a terminal with this environment shows:
    /// - `NO_COLOR` set and not empty: none (no-color.org);
    /// - `COLORTERM` of `truecolor` or `24bit`: truecolor;
    /// - `TERM` containing `256color`: 256 colours;
    /// - otherwise the 8 basic colours.
    public static func select(environment: [String: String]) -> ColorMode {
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return .none }
        let colorTerm = (environment["COLORTERM"] ?? "").lowercased()
        if colorTerm == "truecolor" || colorTerm == "24bit" { return .truecolor }
        if (environment["TERM"] ?? "").contains("256color") { return .palette256 }
        return .basic
    }

    public var description: String {
        switch self {
        case .none: "no colour"
        case .basic: "8 colours"
        case .palette256: "256 colours"
        case .truecolor: "truecolor"
        }
    }

    /// `rgb` as this mode shows it (`.default` when the mode has no colour).
    public func color(_ rgb: RGB) -> TerminalColor {
        switch self {
        case .none: .default
        case .basic: .indexed(Self.basicIndex(rgb))
        case .palette256: .indexed(Self.paletteIndex(rgb))
        case .truecolor: .rgb(rgb)
        }
    }

    /// The nearest of the 8 basic colours: each channel is on when it is at least half the
    /// brightest channel, so dark but saturated colours keep their hue; near-black is black.
    static func basicIndex(_ c: RGB) -> UInt8 {
        let top = max(c.r, c.g, c.b)
        guard top >= 40 else { return 0 }
        let half = top / 2
        return (c.r > half ? 1 : 0) | (c.g > half ? 2 : 0) | (c.b > half ? 4 : 0)
    }

    /// The nearest entry of xterm's 6×6×6 cube (16–231) or grey ramp (232–255).
    static func paletteIndex(_ c: RGB) -> UInt8 {
        func level(_ v: UInt8) -> Int { v < 48 ? 0 : v < 115 ? 1 : (Int(v) - 35) / 40 }
        let steps = [0, 95, 135, 175, 215, 255]
        let (lr, lg, lb) = (level(c.r), level(c.g), level(c.b))
        let cube = 16 + 36 * lr + 6 * lg + lb
        func distance(_ r: Int, _ g: Int, _ b: Int) -> Int {
            (r - Int(c.r)) * (r - Int(c.r)) + (g - Int(c.g)) * (g - Int(c.g)) + (b - Int(c.b)) * (b - Int(c.b))
        }
        let cubeDistance = distance(steps[lr], steps[lg], steps[lb])
        let average = (Int(c.r) + Int(c.g) + Int(c.b)) / 3
        let grey = average > 238 ? 23 : max(0, (average - 3) / 10)
        let greyValue = 8 + 10 * grey
        return distance(greyValue, greyValue, greyValue) < cubeDistance ? UInt8(232 + grey) : UInt8(cube)
    }
}

/// A colour as a terminal is told it: the terminal's default, a palette index, or 24-bit.
public enum TerminalColor: Sendable, Equatable, Hashable {
    /// The terminal's own foreground or background (SGR 39 / 49).
    case `default`
    /// A palette entry: 0–7 are the basic colours (SGR 30–37 / 40–47), others SGR 38;5;N.
    case indexed(UInt8)
    /// 24-bit colour (SGR 38;2;R;G;B / 48;2;R;G;B).
    case rgb(RGB)
}

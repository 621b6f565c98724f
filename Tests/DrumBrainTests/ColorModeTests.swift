import DrumVisual
import Testing

/// Which colours the terminal gets, from its environment.
struct ColorModeTests {
    @Test(arguments: [
        (["NO_COLOR": "1", "COLORTERM": "truecolor", "TERM": "xterm-256color"], ColorMode.none),
        (["NO_COLOR": "", "COLORTERM": "truecolor"], .truecolor),
        (["COLORTERM": "truecolor", "TERM": "xterm"], .truecolor),
        (["COLORTERM": "24bit"], .truecolor),
        (["COLORTERM": "yes", "TERM": "xterm-256color"], .palette256),
        (["TERM": "tmux-256color"], .palette256),
        (["TERM": "xterm"], .basic),
        (["TERM": "linux"], .basic),
        ([:], .basic),
    ])
    func modeFromEnvironment(environment: [String: String], expected: ColorMode) {
        #expect(ColorMode.select(environment: environment) == expected)
    }

    @Test func coloursAsEachModeShowsThem() {
        let red = RGB(255, 0, 0), darkGreen = RGB(20, 90, 30), grey = RGB(128, 128, 128)
        #expect(ColorMode.none.color(red) == .default)
        #expect(ColorMode.basic.color(red) == .indexed(1))
        #expect(ColorMode.basic.color(darkGreen) == .indexed(2), "dark but saturated keeps its hue")
        #expect(ColorMode.basic.color(RGB(10, 10, 10)) == .indexed(0))
        #expect(ColorMode.palette256.color(red) == .indexed(196))
        #expect(ColorMode.palette256.color(RGB(0, 0, 255)) == .indexed(21))
        #expect(ColorMode.palette256.color(grey) == .indexed(244))
        #expect(ColorMode.truecolor.color(darkGreen) == .rgb(darkGreen))
    }
}

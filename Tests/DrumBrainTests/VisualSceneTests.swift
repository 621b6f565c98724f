import DrumVisual
import Testing

/// The scene as a whole: a burst drawn at the drum hit, a kick's background, the status area,
/// and no colour at all without colours.
struct VisualSceneTests {
    func frames(_ scene: inout VisualScene, seconds: Double) -> CellBuffer {
        var frame = CellBuffer(width: 0, height: 0)
        for _ in 0..<Int(seconds * 60) { scene.step(seconds: 1 / 60) }
        scene.draw(into: &frame)
        return frame
    }

    /// Mean column of the particle glyphs in the drawing area.
    func burstCenter(_ frame: CellBuffer, rows: Int) -> Double? {
        var sum = 0, count = 0
        for y in 0..<rows {
            for x in 0..<frame.width where VisualScene.particleGlyphs.contains(frame[x, y].character) {
                sum += x
                count += 1
            }
        }
        return count == 0 ? nil : Double(sum) / Double(count)
    }

    @Test(arguments: ["hihat", "snare", "ride", "floortom"])
    func aBurstIsDrawnAroundTheDrumHit(drum: String) throws {
        var scene = VisualScene(drums: bundledDrums, colorMode: .truecolor, width: 120, height: 30, seed: 5)
        let index = bundledDrums.firstIndex { $0.name == drum }!
        scene.hit(drum: index, velocity: 1)
        let frame = frames(&scene, seconds: 0.3)
        let center = try #require(burstCenter(frame, rows: scene.layout.height))
        let nearest = scene.layout.clusters.min { abs(Double($0.centerX) - center) < abs(Double($1.centerX) - center) }!
        #expect(nearest.label == drum, "burst centred at column \(center)")
        // Faded out a second later.
        #expect(burstCenter(frames(&scene, seconds: 1.0), rows: scene.layout.height) == nil)
    }

    @Test func aKickFlipsTheWholeBackgroundOtherDrumsDoNot() {
        var scene = VisualScene(drums: bundledDrums, colorMode: .truecolor, width: 60, height: 20, seed: 6)
        scene.hit(drum: 1, velocity: 1)  // snare
        #expect(scene.background == nil)
        var colors: [RGB] = []
        for _ in 0..<5 {
            scene.hit(drum: 0, velocity: 1)  // kick
            colors.append(scene.background!)
            let frame = frames(&scene, seconds: 0.05)
            #expect(frame[0, 0].background == .rgb(colors.last!))
            #expect(frame[59, 19].background == .rgb(colors.last!))
        }
        #expect(Set(colors).count == 5, "each kick a new colour: \(colors)")
    }

    @Test func withoutColourNothingIsColoured() {
        var scene = VisualScene(drums: bundledDrums, colorMode: .none, width: 60, height: 20, seed: 7)
        scene.setStatus(["one", "two"])
        for drum in 0..<7 { scene.hit(drum: drum, velocity: 1) }
        let frame = frames(&scene, seconds: 0.2)
        #expect(frame.cells.allSatisfy { $0.foreground == .default && $0.background == .default })
        #expect(burstCenter(frame, rows: scene.layout.height) != nil, "the bursts still show, as characters")
    }

    @Test func hitsOnDrumsTheKitLacksAreIgnored() {
        var scene = VisualScene(drums: bundledDrums, colorMode: .basic, width: 60, height: 20, seed: 8)
        scene.hit(drum: 7, velocity: 1)
        scene.hit(drum: -1, velocity: 1)
        #expect(!scene.particles.isActive)
    }

    @Test func theStatusSitsUnderTheKitAndShrinksItsArea() {
        var scene = VisualScene(drums: bundledDrums, colorMode: .basic, width: 80, height: 24, seed: 9)
        #expect(scene.layout.height == 24)
        scene.setStatus(["first line", "second line", "third"])
        #expect(scene.layout.height == 20)
        var frame = CellBuffer(width: 0, height: 0)
        scene.draw(into: &frame)
        #expect(frame.row(20) == String(repeating: "-", count: 80))
        #expect(frame.row(21).hasPrefix("first line"))
        #expect(frame.row(23).hasPrefix("third"))
        // A long status never takes the kit's last rows.
        scene.setStatus((0..<40).map { "line \($0)" })
        #expect(scene.layout.height == VisualScene.minimumDrawingRows)
    }
}

/// The status area's text.
struct StatusPanelTests {
    let status = BrainStatus(
        brainName: "studio", listening: "0.0.0.0:7770", kitName: "Default", output: "null (48000 Hz, real time)",
        xruns: 3,
        connections: [
            PadStatus(name: "pad-snare", drum: "snare", address: "192.168.1.20:40001", roundTripMicros: 650,
                      clockOffsetMicros: 12, hits: 25, gaps: 1),
            PadStatus(name: nil, drum: nil, address: "127.0.0.1:5000", hits: 1),
            PadStatus(name: "pad-kick", drum: "kick", address: "192.168.1.21:40002", roundTripMicros: 2_500,
                      clockOffsetMicros: -1_700_000_000_123, hits: 7, gaps: 0),
        ])

    @Test func showsPadsAndNumbers() {
        var hits = HitStatistics.Summary()
        hits.hitsPerSecond = 12
        hits.latencyP50 = 280
        hits.latencyP99 = 1_370
        let lines = StatusPanel.lines(status, hits: hits, log: "log: hello", width: 120)
        #expect(lines[0] == "drumbrain \"studio\" on 0.0.0.0:7770 | kit \"Default\" | out null (48000 Hz, real time)")
        #expect(lines[1] == "hits/s 12.0 | xruns 3 | latency p50 280 us p99 1.37 ms")
        #expect(lines[2] == "PAD           DRUM      ADDRESS               RTT       OFFSET      HITS   GAPS (+1 other connection)")
        #expect(lines[3] == "pad-snare     snare     192.168.1.20:40001    650 us    +12 us      25     1")
        #expect(lines[4] == "pad-kick      kick      192.168.1.21:40002    2.50 ms   -1700000 s  7      0")
        #expect(lines[5] == "log: hello")
        #expect(lines.count == 6)
    }

    @Test func fitsTheWidthAndHeight() {
        let many = BrainStatus(connections: (0..<30).map { PadStatus(name: "pad-\($0)", drum: "snare", address: "a") })
        let lines = StatusPanel.lines(many, hits: .init(), log: nil, width: 30, maxLines: 8)
        #expect(lines.count == 8)
        #expect(lines.allSatisfy { $0.count <= 30 })
        #expect(lines[7] == "... 26 more pads")
        #expect(StatusPanel.lines(BrainStatus(), hits: .init(), log: nil, width: 80)[2] == "no pads connected")
    }

    @Test(arguments: [(Int64(0), false, "0 us"), (999, false, "999 us"), (1_000, false, "1.00 ms"),
                      (12_345, true, "+12.35 ms"), (-250, true, "-250 us"), (3_200_000, false, "3.2 s"), (-5_400_123_456, true, "-5400 s")])
    func durations(micros: Int64, signed: Bool, text: String) {
        #expect(StatusPanel.formatMicros(micros, signed: signed) == text)
    }

    @Test func hitRateAndPercentiles() {
        var statistics = HitStatistics()
        for i in 0..<100 { statistics.recordHit(atMicros: Int64(i) * 50_000, latencyMicros: Int64(i + 1) * 10) }
        statistics.recordHit(atMicros: 4_990_000, latencyMicros: nil)
        let summary = statistics.summary(nowMicros: 5_000_000)
        #expect(summary.hitsPerSecond == 20)  // 4.05 s … 4.95 s and the last
        #expect(summary.latencyP50 == 500 && summary.latencyP99 == 990)
        #expect(summary.brainP50 == nil)
    }
}

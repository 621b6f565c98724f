import DrumVisual
import Testing

/// The bundled kit's drums, in kit.json's order.
let bundledDrums = [("kick", 0.0), ("snare", -15.0), ("hihat", -45.0), ("racktom", 15.0), ("floortom", 45.0),
                    ("crash", -35.0), ("ride", 40.0)].map { VisualDrum(name: $0.0, azimuth: $0.1) }
let azimuthOrder = ["hihat", "crash", "snare", "kick", "racktom", "ride", "floortom"]

/// Clusters left to right by azimuth, labels that fit, and reflow for other sizes.
struct KitLayoutTests {
    func expectSane(_ layout: KitLayout, width: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for (i, cluster) in layout.clusters.enumerated() {
            #expect(cluster.labelX >= 0 && cluster.labelX + cluster.label.count <= width, sourceLocation: sourceLocation)
            #expect(cluster.bodyX >= 0 && cluster.bodyX + cluster.bodyWidth <= width, sourceLocation: sourceLocation)
            #expect(cluster.bodyY < cluster.labelY && cluster.labelY < layout.height, sourceLocation: sourceLocation)
            if i > 0 {
                let left = layout.clusters[i - 1]
                #expect(left.labelX + left.label.count < cluster.labelX, "labels \(left.label) and \(cluster.label) overlap",
                        sourceLocation: sourceLocation)
                #expect(left.centerX < cluster.centerX, sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: [200, 120, 80, 60])
    func wideEnoughKeepsWholeLabelsInAzimuthOrder(width: Int) {
        let layout = KitLayout(drums: bundledDrums, width: width, height: 20)
        #expect(layout.clusters.map(\.label) == azimuthOrder)
        expectSane(layout, width: width)
        // Each cluster knows its drum's index in kit order.
        #expect(layout.clusters.map { bundledDrums[$0.drum].name } == azimuthOrder)
    }

    @Test func azimuthSetsTheSpacing() {
        // hihat −45° and crash −35° sit closer together than ride +40° and... kick 0° and racktom +15°
        // are 15° apart, snare −15° to kick 0° too: equal gaps by azimuth come out equal-ish, the
        // 45° jump from the left pair to snare comes out wider.
        let layout = KitLayout(drums: bundledDrums, width: 200, height: 20)
        let x = Dictionary(uniqueKeysWithValues: layout.clusters.map { ($0.label, $0.centerX) })
        #expect(x["crash"]! - x["hihat"]! < x["racktom"]! - x["kick"]!)
        #expect(x["ride"]! - x["racktom"]! > x["floortom"]! - x["ride"]!)
    }

    @Test(arguments: [40, 30, 20, 13])
    func narrowWidthsShortenLabelsAndKeepOrder(width: Int) {
        let layout = KitLayout(drums: bundledDrums, width: width, height: 10)
        #expect(layout.clusters.count == 7)
        expectSane(layout, width: width)
        for (cluster, name) in zip(layout.clusters, azimuthOrder) {
            #expect(name.hasPrefix(cluster.label) && !cluster.label.isEmpty)
        }
    }

    @Test func tinyScreensDoNotBreakIt() {
        for (width, height) in [(1, 1), (3, 2), (7, 1), (0, 0)] {
            let layout = KitLayout(drums: bundledDrums, width: width, height: height)
            for cluster in layout.clusters {
                #expect(cluster.centerX >= 0 && cluster.centerX < max(1, width))
                #expect(cluster.labelY < max(1, height))
            }
        }
    }

    @Test func equalAzimuthsKeepTheKitsOrder() {
        let drums = ["a", "b", "c"].map { VisualDrum(name: $0, azimuth: 10) }
        #expect(KitLayout(drums: drums, width: 50, height: 10).clusters.map(\.label) == ["a", "b", "c"])
    }

    @Test func aResizeReflowsTheScene() {
        var scene = VisualScene(drums: bundledDrums, colorMode: .none, width: 120, height: 30, seed: 1)
        let wide = scene.layout.clusters.map(\.centerX)
        scene.resize(width: 50, height: 12)
        let narrow = scene.layout.clusters.map(\.centerX)
        #expect(narrow.max()! < 50 && wide.max()! > 100)
        var frame = CellBuffer(width: 0, height: 0)
        scene.draw(into: &frame)
        #expect(frame.width == 50 && frame.height == 12)
        let labels = frame.row(scene.layout.clusters[0].labelY)
        var position = labels.startIndex
        for cluster in scene.layout.clusters {
            let found = labels[position...].range(of: cluster.label)
            #expect(found != nil, "\(cluster.label) in \(labels)")
            if let found { position = found.upperBound }
        }
    }
}

extension Substring {
    func range(of part: String) -> Range<Index>? {
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(part) { return start..<index(start, offsetBy: part.count) }
            start = index(after: start)
        }
        return nil
    }
}

import Testing
@testable import HitDetect

struct SweepTests {
    /// Strikes of one size every 50 samples with ringing that fires a short refractory twice.
    static func ringingLog() -> (SensorBatch, [Double]) {
        var batch = SensorBatch()
        var labels: [Double] = []
        for i in 0..<1000 {
            let phase = i % 50
            var z = 1.0
            if phase == 10 { z = 2.0; labels.append(Double(i) / 250) }
            if phase == 11 { z = 1.3 }
            if phase == 14 { z = 2.0 }  // ringing: a second jump 4 samples after the strike
            batch.append(time: Double(i) / 250, x: 0, y: 0, z: z)
        }
        return (batch, labels)
    }

    @Test func findsTheSettingThatFiresOncePerStrike() {
        let (batch, labels) = Self.ringingLog()
        let grid = SweepGrid(thresholds: [0.1, 0.4, 0.8], refractories: [2, 6])
        let cells = Sweep.run(.card, grid: grid, over: batch, labelTimes: labels,
                              tolerance: 0.010)
        #expect(cells.count == 6)
        #expect(cells.map(\.threshold) == [0.1, 0.1, 0.4, 0.4, 0.8, 0.8])
        // Refractory 2 lets the ringing at +4 fire; 6 does not.
        let r2 = cells.first { $0.threshold == 0.4 && $0.refractory == 2 }!
        let r6 = cells.first { $0.threshold == 0.4 && $0.refractory == 6 }!
        #expect(r2.hits > r6.hits)
        #expect(r6.score?.f1 == 1)
        // 0.8 g² needs |Δz| > 0.89: the 1 g strikes still fire; the best is the highest of the
        // perfect thresholds.
        let best = Sweep.best(of: cells)
        #expect(best?.threshold == 0.8 && best?.refractory == 6)
    }

    @Test func withoutLabelsThereIsNoBest() {
        let (batch, _) = Self.ringingLog()
        let cells = Sweep.run(.tvdrums, grid: SweepGrid(thresholds: [0.4], refractories: [8]),
                              over: batch, labelTimes: nil, tolerance: 0.01)
        #expect(cells.count == 1 && cells[0].score == nil && cells[0].hits > 0)
        #expect(Sweep.best(of: cells) == nil)
    }

    @Test func parsesRangesAndLists() throws {
        #expect(try SweepGrid.parseValues("0.1:0.5:0.1", name: "t") == [0.1, 0.2, 0.3, 0.4, 0.5])
        #expect(try SweepGrid.parseValues("2:10:4", name: "r") == [2, 6, 10])
        #expect(try SweepGrid.parseValues("0.2, 0.4,0.8", name: "t") == [0.2, 0.4, 0.8])
        #expect(throws: HitDetectError.self) { try SweepGrid.parseValues("1:0:0.1", name: "t") }
        #expect(throws: HitDetectError.self) { try SweepGrid.parseValues("a,b", name: "t") }
        #expect(throws: HitDetectError.self) { try SweepGrid.parseValues("0:1:0", name: "t") }
    }
}

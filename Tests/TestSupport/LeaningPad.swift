import HitDetect

/// A pad on a stand that strikes and stand shakes move in different directions (the adaptive
/// detector's lean test): each event is a stick's strike as a sensor sees it at 200–250 Hz (a
/// 2 ms shock into the pad, then its mount swinging back at 40 Hz with 0.6 of it), moving the
/// pad along (dx, dy, 1). The pad's own strikes move it along `strikeWay` (give or take 0.03
/// per axis); the shakes that come through its stand, with the very same shape in z (so z
/// alone cannot tell them apart), along `standWay`.
///
/// First `loud` strikes of 3–8 g, 0.2 s apart (they teach the way a strike moves the pad); then,
/// 0.2 s apart in turn, `count` ghost notes of 1.2–2 g and `count` stand shakes of 0.4–1 g.
public struct LeaningPad: Sendable {
    public var rate: Double
    public var strikeWay: (x: Double, y: Double) = (0.15, -0.1)
    public var standWay: (x: Double, y: Double) = (-0.25, 0.2)
    /// How far each strike's way strays from `strikeWay`, per axis (±).
    public var strikeStray = 0.03
    public var loud = 10
    public var count = 12

    /// The pad at `rate` Hz.
    public init(rate: Double) {
        self.rate = rate
    }

    /// The strikes' times: loud, ghost notes; and the stand's shakes.
    public var times: (loud: [Double], ghosts: [Double], shakes: [Double]) {
        let loudTimes = (0..<loud).map { 0.5 + 0.2 * Double($0) }
        let from = 0.5 + 0.2 * Double(loud) + 0.2
        let ghosts = (0..<count).map { from + 0.4 * Double($0) }
        return (loudTimes, ghosts, ghosts.map { $0 + 0.2 })
    }

    /// How long the signal lasts, s.
    public var seconds: Double { (times.shakes.last ?? 0) + 0.5 }

    /// (t, x, y, z) at `rate`: 1 g of gravity in z, the events through a second-order low-pass at
    /// 0.4 × `rate` run at 8 kHz, and 4 mg of noise on each axis.
    public func samples() -> (t: [Double], x: [Double], y: [Double], z: [Double]) {
        let (loudTimes, ghosts, shakes) = times
        var events: [(time: Double, amplitude: Double, dx: Double, dy: Double)] = []
        for (k, time) in loudTimes.enumerated() {
            events.append((time, 3 + 5 * Double(k % 5) / 4, strikeWay.x + stray(k), strikeWay.y - stray(k + 2)))
        }
        for (k, time) in ghosts.enumerated() {
            events.append((time, 1.2 + 0.8 * Double(k % 4) / 3, strikeWay.x - stray(k + 1), strikeWay.y + stray(k + 3)))
        }
        for (k, time) in shakes.enumerated() {
            events.append((time, 0.4 + 0.6 * Double(k % 4) / 3, standWay.x, standWay.y))
        }
        let fine = 8000.0
        var lowPasses = (SensorLowPass(cutoff: 0.4 * rate, rate: fine), SensorLowPass(cutoff: 0.4 * rate, rate: fine),
                         SensorLowPass(cutoff: 0.4 * rate, rate: fine, initial: 1))
        var noise = Noise(state: 0x2545_F491_4F6C_DD1D)
        var out: (t: [Double], x: [Double], y: [Double], z: [Double]) = ([], [], [], [])
        let step = Int((fine / rate).rounded())
        for i in 0..<Int(seconds * fine) {
            let time = Double(i) / fine
            var motion = (x: 0.0, y: 0.0, z: 0.0)
            for event in events where time >= event.time && time < event.time + 0.15 {
                let m = strikeMotion(age: time - event.time, amplitude: event.amplitude)
                motion = (motion.x + event.dx * m, motion.y + event.dy * m, motion.z + m)
            }
            let filtered = (lowPasses.0.filter(motion.x), lowPasses.1.filter(motion.y), lowPasses.2.filter(1 + motion.z))
            if i % step == 0 {
                out.t.append(time)
                out.x.append(filtered.0 + 0.004 * noise.next())
                out.y.append(filtered.1 + 0.004 * noise.next())
                out.z.append(filtered.2 + 0.004 * noise.next())
            }
        }
        return out
    }

    /// The samples as a sensor log (`# drumpad sensor log v1`), with x and y or without.
    public func log(withXY: Bool = true) -> String {
        let s = samples()
        var text = "# drumpad sensor log v1\n# device: simulated pad (TestSupport.LeaningPad)\n# rate_hz: \(Int(rate))\n"
        text += withXY ? "t,x,y,z\n" : "t,z\n"
        func six(_ value: Double) -> String { DecimalFormatting.string(value, decimals: 6) }
        for i in s.t.indices {
            text += withXY ? "\(six(s.t[i])),\(six(s.x[i])),\(six(s.y[i])),\(six(s.z[i]))\n" : "\(six(s.t[i])),\(six(s.z[i]))\n"
        }
        return text
    }

    /// A per-event stray within ±`strikeStray`, the same on every run.
    private func stray(_ k: Int) -> Double {
        strikeStray * (Double((k * 7) % 5) / 2 - 1)
    }
}

#if canImport(Glibc)
import Glibc
#endif

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
        let k = tan(Double.pi * 0.4 * rate / fine), norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        let b0 = k * k * norm, b1 = 2 * b0, b2 = b0
        let a1 = 2 * (k * k - 1) * norm, a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
        typealias State = (x1: Double, x2: Double, y1: Double, y2: Double)
        var filters: [State] = [(0, 0, 0, 0), (0, 0, 0, 0), (1, 1, 1, 1)]
        var noise: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double {
            noise ^= noise << 13
            noise ^= noise >> 7
            noise ^= noise << 17
            return Double(noise % 2_000_001) / 1_000_000 - 1
        }
        var out: (t: [Double], x: [Double], y: [Double], z: [Double]) = ([], [], [], [])
        let step = Int((fine / rate).rounded())
        for i in 0..<Int(seconds * fine) {
            let time = Double(i) / fine
            var motion = (x: 0.0, y: 0.0, z: 0.0)
            for event in events where time >= event.time && time < event.time + 0.15 {
                let age = time - event.time
                var m = 0.0
                if age < 0.002 { m -= event.amplitude * sin(.pi * age / 0.002) }
                let swing = age - 0.002
                if swing >= 0 { m += 0.6 * event.amplitude * sin(2 * .pi * 40 * swing) * exp(-swing / 0.02) }
                motion = (motion.x + event.dx * m, motion.y + event.dy * m, motion.z + m)
            }
            let inputs = [motion.x, motion.y, 1 + motion.z]
            var filtered = [0.0, 0.0, 0.0]
            for axis in 0..<3 {
                var f = filters[axis]
                let value = b0 * inputs[axis] + b1 * f.x1 + b2 * f.x2 - a1 * f.y1 - a2 * f.y2
                (f.x2, f.x1, f.y2, f.y1) = (f.x1, inputs[axis], f.y1, value)
                filters[axis] = f
                filtered[axis] = value
            }
            if i % step == 0 {
                out.t.append(time)
                out.x.append(filtered[0] + 0.004 * next())
                out.y.append(filtered[1] + 0.004 * next())
                out.z.append(filtered[2] + 0.004 * next())
            }
        }
        return out
    }

    /// The samples as a sensor log (`# drumpad sensor log v1`), with x and y or without.
    public func log(withXY: Bool = true) -> String {
        let s = samples()
        var text = "# drumpad sensor log v1\n# device: simulated pad (TestSupport.LeaningPad)\n# rate_hz: \(Int(rate))\n"
        text += withXY ? "t,x,y,z\n" : "t,z\n"
        for i in s.t.indices {
            let t = String(format6(s.t[i]))
            text += withXY ? "\(t),\(format6(s.x[i])),\(format6(s.y[i])),\(format6(s.z[i]))\n" : "\(t),\(format6(s.z[i]))\n"
        }
        return text
    }

    /// A per-event stray within ±`strikeStray`, the same on every run.
    private func stray(_ k: Int) -> Double {
        strikeStray * (Double((k * 7) % 5) / 2 - 1)
    }

    /// `value` with six decimals.
    private func format6(_ value: Double) -> String {
        let scaled = (value * 1e6).rounded()
        let sign = scaled < 0 ? "-" : ""
        let whole = Int64(abs(scaled))
        let fraction = String(whole % 1_000_000)
        return sign + String(whole / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}

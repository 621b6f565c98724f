// hitdetect-bench: throughput of the detectors and the sensor-log reader, on one core.
//
//   swift run -c release hitdetect-bench [--samples N] [--runs N]
//
// Each figure is the best of several runs over the same in-memory data, so the machine's noise
// shows as little as possible; tools/bench/run runs this beside the end-to-end replay benchmark.
import HitDetect
#if canImport(Glibc)
import Glibc
#endif

var samples = 10_000_000
var runs = 7
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--samples": samples = Int(arguments.next() ?? "") ?? samples
    case "--runs": runs = Int(arguments.next() ?? "") ?? runs
    default:
        print("usage: hitdetect-bench [--samples N] [--runs N]")
        exit(argument == "--help" ? 0 : 2)
    }
}

/// A 250 Hz-like signal: gravity, noise, and a strike with ringing every 120 samples.
func makeSignal(count: Int) -> (z: [Double], time: [Double]) {
    var z = [Double](repeating: 0, count: count)
    var time = [Double](repeating: 0, count: count)
    var state: UInt64 = 0x9E3779B97F4A7C15
    for i in 0..<count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let noise = (Double(state >> 11) / Double(1 << 53) - 0.5) * 0.02
        let phase = i % 120
        let ring = phase < 12 ? 2.0 * Double(12 - phase) / 12 * (phase % 2 == 0 ? 1 : -1) : 0
        z[i] = 1.0 + noise + ring
        time[i] = Double(i) * 0.004
    }
    return (z, time)
}

/// Best time of `runs` calls of `body`, in seconds, and the last result (kept so the work is
/// not optimised away).
func best(_ runs: Int, _ body: () -> Int) -> (seconds: Double, result: Int) {
    var bestSeconds = Double.infinity
    var result = 0
    let clock = ContinuousClock()
    for _ in 0..<runs {
        let start = clock.now
        result = body()
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        bestSeconds = min(bestSeconds, seconds)
    }
    return (bestSeconds, result)
}

@MainActor
func report(_ name: String, items: Int, unit: String, _ measured: (seconds: Double, result: Int),
            bytes: Int? = nil, result: String = "hits") {
    let perSecond = Double(items) / measured.seconds
    var line = name.padding(to: 44) + formatted(perSecond / 1e6, 1).leftPadded(to: 9) + " M \(unit)/s"
    if let bytes { line += "   " + formatted(Double(bytes) / measured.seconds / 1e6, 0) + " MB/s" }
    line += "   (\(measured.result) \(result), best of \(runs))"
    print(line)
}

func formatted(_ value: Double, _ decimals: Int) -> String {
    DecimalFormatting.string(value, decimals: decimals)
}

extension String {
    func padding(to width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

let (z, time) = makeSignal(count: samples)
print("hitdetect-bench: \(samples) samples, one core")

report("default detector, streaming process()", items: samples, unit: "samples", best(runs) {
    var detector = SquaredDeltaDetector()
    var hits = 0
    for i in 0..<z.count where detector.process(z: z[i], time: time[i]) != nil { hits += 1 }
    return hits
})

report("default detector, batch detect()", items: samples, unit: "samples", best(runs) {
    var detector = SquaredDeltaDetector()
    var hits: [Hit] = []
    hits.reserveCapacity(samples / 50)
    z.withUnsafeBufferPointer { zs in
        time.withUnsafeBufferPointer { ts in detector.detect(z: zs, time: ts, into: &hits) }
    }
    return hits.count
})

report("tvdrums detector, streaming process()", items: samples, unit: "samples", best(runs) {
    var detector = TVDrumsDetector()
    var hits = 0
    for i in 0..<z.count where detector.process(z: z[i], time: time[i]) != nil { hits += 1 }
    return hits
})

/// The adaptive detector, streaming, over `z` at the sample times `times`: the hits it fires.
func adaptiveStreaming(_ times: [Double]) -> Int {
    var detector = AdaptiveDetector()
    var hits = 0
    for i in 0..<z.count where detector.process(z: z[i], time: times[i]) != nil { hits += 1 }
    return hits
}

report("adaptive detector, streaming process()", items: samples, unit: "samples", best(runs) { adaptiveStreaming(time) })

// The same samples 10 ms apart: a 100 Hz phone's rate, where the slow-rate tests (the ringing
// test, with its learned model of the mount, the rebound test) run.
let time100 = time.map { $0 * 2.5 }
report("adaptive detector at 100 Hz, streaming", items: samples, unit: "samples", best(runs) { adaptiveStreaming(time100) })

// The same samples 0.625 ms apart: a 1.6 kHz ADXL345's rate, where the bump test and the ring
// hold (`fastRingHold`) run and the ringing test does not.
let time1600 = time.map { $0 * 0.15625 }
report("adaptive detector at 1.6 kHz, streaming", items: samples, unit: "samples", best(runs) { adaptiveStreaming(time1600) })

// The reader over an in-memory log in the format drumpad record writes (t,x,y,z), fed in 1 MiB
// chunks as drumpad replay does, with the default detector on each batch.
let readerRows = min(samples, 2_400_000)
var writer = SensorLogWriter(metadata: [(key: "rate_hz", value: "250")])
for i in 0..<readerRows { writer.append(time: time[i], x: 0.0012, y: -0.0031, z: z[i]) }
let log = writer.take()

func replayInMemory(readXY: Bool) -> Int {
    var reader = SensorLogReader(fileName: "bench.csv", options: .init(readXY: readXY))
    var batch = SensorBatch()
    var detector = SquaredDeltaDetector()
    var hits: [Hit] = []
    var offset = 0
    log.withUnsafeBytes { raw in
        while offset < raw.count {
            let end = min(raw.count, offset + (1 << 20))
            let consumed = try! reader.read(UnsafeRawBufferPointer(rebasing: raw[offset..<end]),
                                            isEnd: end == raw.count, into: &batch)
            detector.detect(batch, into: &hits)
            batch.removeAll()
            offset += consumed
        }
    }
    return hits.count
}

// drumpad record's writer: rows of t,x,y,z as the recorder formats them, taken every 64 KiB.
report("log writer, t,x,y,z rows (record)", items: readerRows, unit: "rows", best(runs) {
    var rows = SensorLogWriter()
    var written = 0
    for i in 0..<readerRows {
        rows.append(time: time[i], x: 0.0012, y: -0.0031, z: z[i])
        if rows.bytes.count >= 1 << 16 { written += rows.take().count }
    }
    return written + rows.take().count
}, result: "bytes")

report("reader + detector, t,z columns (replay)", items: readerRows, unit: "rows",
       best(runs) { replayInMemory(readXY: false) }, bytes: log.count)
report("reader + detector, all columns", items: readerRows, unit: "rows",
       best(runs) { replayInMemory(readXY: true) }, bytes: log.count)

// audio-bench: the mixer's render path on one core, as real-time factors (issue 5).
//
//   swift run -c release audio-bench [--seconds S]
//
// Renders S seconds of audio in 128-frame periods, as the audio thread does, with (a) the
// bundled kit's seven drums all sounding (each retriggered every 0.3 s) and (b) 64 drums all
// sounding, and reports how many times faster than real time that is (best of 5).
import DrumAudio
#if canImport(Glibc)
import Glibc
#endif

var seconds = 20.0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    if argument == "--seconds", let value = arguments.next().flatMap(Double.init) { seconds = value }
}

func bundledKit() -> Kit {
    for path in ["Samples/kit/kit.json", "../Samples/kit/kit.json"] {
        if let kit = try? KitLoader.load(path) { return kit }
    }
    print("audio-bench: run from the repository root (needs Samples/kit)")
    exit(2)
}

/// A kit of `count` drums, each a 1 s noise burst at 48 kHz.
func wideKit(_ count: Int) -> Kit {
    var state: UInt32 = 1
    let samples = (0..<48_000).map { _ -> Float in
        state = state &* 1_664_525 &+ 1_013_904_223
        return Float(Int32(bitPattern: state)) / Float(Int32.max) * 0.2
    }
    let buffer = AudioBuffer(interleaved: samples, channels: 1, sampleRate: 48_000)
    return Kit(name: "wide", drums: (0..<count).map {
        Kit.Drum(name: "d\($0)", azimuth: Double($0 % 181) - 90, gain: 0.1, layers: [Kit.Layer(buffer: buffer, source: "noise")])
    }, sampleRate: 48_000)
}

@MainActor
func realTimeFactor(kit: Kit, retriggerSeconds: Double) -> Double {
    let queue = HitQueue(capacity: 4096)
    let mixer = Mixer(kit: kit, queue: queue)
    let period = 128
    let out = UnsafeMutablePointer<Float>.allocate(capacity: period * 2)
    defer { out.deallocate() }
    let periods = Int(seconds * 48_000) / period
    let retrigger = max(1, Int(retriggerSeconds * 48_000) / period)
    var best = Double.infinity
    let clock = ContinuousClock()
    for _ in 0..<5 {
        let start = clock.now
        for p in 0..<periods {
            if p % retrigger == 0 {
                for drum in 0..<kit.drums.count { queue.push(ScheduledHit(drum: Int32(drum), velocity: 0.9)) }
            }
            mixer.render(into: out, frames: period)
        }
        let elapsed = clock.now - start
        best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    }
    return seconds / best
}

func rssMegabytes() -> Double {
    guard let file = fopen("/proc/self/status", "r") else { return 0 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, 256, file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("VmRSS:") {
            return Double(text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0) / 1024
        }
    }
    return 0
}

let kit = bundledKit()
print("audio-bench: \(seconds) s of 48 kHz stereo in 128-frame periods, one core, best of 5")
print("bundled kit, all 7 voices busy:  \(Int(realTimeFactor(kit: kit, retriggerSeconds: 0.3)))× real time")
print("64 voices busy:                  \(Int(realTimeFactor(kit: wideKit(64), retriggerSeconds: 0.5)))× real time")
print("resident memory with the bundled kit loaded: \(Int(rssMegabytes().rounded())) MB")

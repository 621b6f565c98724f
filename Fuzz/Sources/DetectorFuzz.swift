// libFuzzer target: the hit detectors (HitDetect) on any stream a sensor could give, finite or
// not quite: each input is a sensor rate, a clock origin and samples (z, and x and y for the
// adaptive detector's lean test) with gaps, stalls, bursts, steps back in time and values from
// a few micro-g to a million g. Every detector runs over it sample by sample, as a pad does. A
// trap, or a hit (or felt push) whose index is out of range, whose time or strength is not
// finite, or whose velocity is outside 0...1, is a finding.
// Built with the HitDetect sources by scripts/fuzz (swiftc -sanitize=fuzzer,address).

/// Checks one hit of a detector given `count` samples so far.
func check(_ hit: Hit, count: Int, _ what: String) {
    precondition(hit.index >= 0 && hit.index < count, "\(what): index \(hit.index) of \(count) samples")
    precondition(hit.time.isFinite, "\(what): time \(hit.time)")
    precondition(hit.strength.isFinite && hit.strength >= 0, "\(what): strength \(hit.strength)")
    precondition(hit.velocity >= 0 && hit.velocity <= 1, "\(what): velocity \(hit.velocity)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func detectorFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let flags = data[0]
    let period = [0.01, 0.005, 0.004, 0.000625][Int(flags & 3)]  // 100, 200, 250, 1600 Hz
    let origin = [0.0, 259_200.123456, 1.0e9, 1234.5][Int(flags >> 2 & 3)]
    let axes = flags & 16 != 0
    var adaptive = AdaptiveDetector()
    var kept = AdaptiveDetector.Configuration()
    kept.feltProofWithdrawn = false
    kept.reboundFromRestOnly = true
    var older = AdaptiveDetector(kept)
    var card = SquaredDeltaDetector()
    var tvdrums = TVDrumsDetector()
    var time = origin
    var offset = 1
    // Each sample: an op byte (how long since the last sample, a gap, the scale of z), z as a
    // signed 16-bit count of 1/2048 g, then x and y as signed bytes of 1/32 g if `axes`.
    let record = axes ? 5 : 3
    while offset + record <= size {
        let op = data[offset]
        let raw = Double(Int16(bitPattern: UInt16(data[offset + 1]) << 8 | UInt16(data[offset + 2]))) / 2048
        let scale = [1.0, 1.0, 1.0, 0.001, 30.0, 1e6][Int(op >> 5) % 6]
        let z = raw * scale
        let x = axes ? Double(Int8(bitPattern: data[offset + 3])) / 32 : 0
        let y = axes ? Double(Int8(bitPattern: data[offset + 4])) / 32 : 0
        offset += record
        switch op & 7 {
        case 0, 1, 2: time += period
        case 3: time += period * (0.5 + Double(op >> 3 & 3) / 2)  // jitter
        case 4: time += 0  // a burst's samples on one timestamp
        case 5: time += period * Double(1 + Int(op >> 3 & 31) * 50)  // a stall
        case 6: time -= period * Double(1 + Int(op >> 3 & 3))  // a clock that stepped back
        default:
            adaptive.markGap(); older.markGap(); card.markGap(); tvdrums.markGap()
            time += period * 10
        }
        if let hit = adaptive.process(x: x, y: y, z: z, time: time) { check(hit, count: adaptive.sampleCount, "adaptive") }
        if let felt = adaptive.takeFelt() { check(felt, count: adaptive.sampleCount, "adaptive, felt") }
        if let hit = older.process(x: x, y: y, z: z, time: time) { check(hit, count: older.sampleCount, "adaptive (older rules)") }
        if let felt = older.takeFelt() { check(felt, count: older.sampleCount, "adaptive (older rules), felt") }
        if let hit = card.process(z: z, time: time) { check(hit, count: card.sampleCount, "card") }
        if let hit = tvdrums.process(z: z, time: time) { check(hit, count: tvdrums.sampleCount, "tvdrums") }
    }
    return 0
}

// libFuzzer target: the brain's whole handling of what a client sends, with its options. The
// input is a TCP byte stream after two bytes of settings: the first picks the read size, the
// second the brain's options (jitter buffer 0, 30 or 200 ms; a crosstalk group, or the learned
// stands; where
// the audio clock's origin lies). Each read goes through the brain's per-connection state
// machine (BrainConnection: decoding, the clock checks), each hit it delivers through the hit
// router that drumbrain runs (drum lookup, crosstalk, times to frames), into a real mixer that
// renders between reads, and each routed hit and its start report through the printed lines.
// Any trap is a finding; so is a printed line or notice with a control character in it (a name
// from the wire reaching the terminal raw), or a hit scheduled beyond its jitter buffer.
// Built by scripts/fuzz with the sources of DrumNet's brain side, BrainCore, DrumAudio, HitDetect,
// SPSCRing and Monotonic in one module (swiftc -sanitize=fuzzer,address).

/// The fuzzer's audio side: the engine's mapping of times to frames, into a real mixer's queue.
final class FuzzPlayer: HitPlayer, @unchecked Sendable {
    // @unchecked: one fuzzing thread.
    let mixer: Mixer
    let originMicros: Int64
    let rate: Int64 = 48_000
    var latestAllowedMicros: Int64 = .max

    init(mixer: Mixer, originMicros: Int64) {
        self.mixer = mixer
        self.originMicros = originMicros
    }

    func play(drum: Int, velocity: Float, id: UInt32, kitGeneration: UInt32) -> Bool {
        mixer.queue.push(ScheduledHit(drum: Int32(drum), velocity: velocity, id: id, kitGeneration: kitGeneration))
    }

    func play(drum: Int, velocity: Float, atMicros brainMicros: Int64, delayMicros: Int64,
              id: UInt32, kitGeneration: UInt32) -> Bool {
        let at = brainMicros.saturatingAdd(delayMicros)
        precondition(at <= latestAllowedMicros, "a hit scheduled past its arrival plus the jitter buffer")
        let frame = FrameClock.frame(atMicros: at, originMicros: originMicros, rate: rate)
        return mixer.queue.push(ScheduledHit(drum: Int32(drum), velocity: velocity, frame: max(0, frame), id: id,
                                             kitGeneration: kitGeneration))
    }

    func takeBack(id: UInt32) -> Bool { mixer.queue.push(.takeBack(id: id)) }
}

/// The kit the fuzzed brain plays: three short drums, made once.
let fuzzKit: Kit = {
    let drums = ["kick", "snare", "racktom"].enumerated().map { i, name in
        Kit.Drum(name: name, azimuth: Double(i * 30 - 30), gain: 1,
                 layers: [Kit.Layer(buffer: AudioBuffer(interleaved: (0..<64).map { Float($0 % 7) / 7 }, channels: 1,
                                                        sampleRate: 48_000), source: "\(name).wav")])
    }
    return Kit(name: "Fuzz", drums: drums, sampleRate: 48_000)
}()

/// Every printed line must be one line of printable text.
func checkPrintable(_ line: String) {
    for byte in line.utf8 {
        precondition(byte >= 0x20 && byte != 0x7F, "a control character reached a printed line: \(Array(line.utf8))")
    }
    for scalar in line.unicodeScalars {
        precondition(!(0x80...0x9F).contains(scalar.value), "a C1 control reached a printed line: \(Array(line.utf8))")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func serveFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard input.count >= 2 else { return 0 }
    let readSize = Int(input[0] % 64) + 1
    let options = input[1]
    let jitterMicros: Int64 = [0, 30_000, 200_000, 0][Int(options & 3)]
    // The fourth: no buffer set, so the brain chooses the latency from the hits' times (its default).
    let latency = options & 3 == 3 ? LatencyChooser(.init(periodMicros: 2_667)) : nil
    let longestWait = latency?.configuration.maxMicros ?? jitterMicros
    let groups: [[String]] = options & 4 != 0 ? [["snare", "racktom"]] : []
    // The audio clock's origin: at the brain's start, or far from the network's clock.
    var now: Int64 = 5_000_000_000
    let origin: Int64 = [now - 1_000_000, now + 3_000_000, 1, Int64.max / 2][Int(options >> 3 & 3)]
    let mixer = Mixer(kit: fuzzKit, queue: HitQueue(capacity: 64))
    let player = FuzzPlayer(mixer: mixer, originMicros: origin)
    let drums = DrumMap(kit: fuzzKit, generation: mixer.kit.generation)
    let crosstalk = groups.isEmpty ? nil : CrosstalkGroups(groups, CrosstalkCanceller.Configuration(hold: Double(jitterMicros) / 1e6))
    // Without a group, the learned stands decide (the brain's default), keyed by pad name.
    let router = HitRouter(player: player, drums: drums, crosstalk: crosstalk,
                           stands: crosstalk == nil ? StandCrosstalk() : nil, jitterMicros: jitterMicros, latency: latency)
    var connection = BrainConnection(connectionID: 1, address: "fuzz", brainName: "b", kitName: "k", nowMicros: now)
    var actions: [BrainConnection.Action] = []
    var routed: [UInt32: RoutedHit] = [:]
    let out = UnsafeMutablePointer<Float>.allocate(capacity: 128 * 2)
    defer { out.deallocate() }
    let stream = input.dropFirst(2)
    var offset = stream.startIndex
    while offset < stream.endIndex && !connection.isClosed {
        let end = min(offset + readSize, stream.endIndex)
        actions.removeAll(keepingCapacity: true)
        Array(stream[offset..<end]).withUnsafeBytes { connection.receive($0, nowMicros: now, into: &actions) }
        for action in actions {
            switch action {
            case .deliver(let hit, let latency):
                if let latency { precondition(latency.magnitude <= 10_000_000, "a latency beyond the limit was trusted") }
                let received = ReceivedHit(hit: hit, connectionID: 1, padName: connection.statistics.padName,
                                           receivedMicros: now, latencyMicros: latency, rateHz: connection.statistics.rateHz)
                player.latestAllowedMicros = now.saturatingAdd(longestWait)
                let result = router.route(received)
                switch result.disposition {
                case .queued(let number): routed[number] = result
                case .crosstalk: checkPrintable(BrainLines.crosstalk(result, takenBack: false))
                case .unknownDrum: checkPrintable(BrainLines.unknown(result, kitDrums: drums.names))
                case .queueFull: checkPrintable(BrainLines.dropped(result, reason: "queue_full"))
                case .felt: break  // a push felt through the stand: learned from, never played or shown
                }
            case .greeted:
                // As the brain's onHello: the pad known before its hits, whatever rate it claims.
                if let name = connection.statistics.padName {
                    router.greet(padName: name, connectionID: 1, rateHz: connection.statistics.rateHz.map(Double.init),
                                 strengths: (connection.statistics.version ?? 1) >= 2, atMicros: now)
                }
            case .notice(let text):
                checkPrintable(text)
            case .send, .sendErrorAndClose:
                break
            }
        }
        // The audio thread renders between reads; each report is printed with its hit.
        mixer.render(into: out, frames: 128)
        while let report = mixer.started.pop() {
            guard let hit = routed.removeValue(forKey: report.id) else { continue }
            checkPrintable(report.outcome == .takenBack ? BrainLines.crosstalk(hit, takenBack: true)
                           : BrainLines.hit(hit, started: report, rate: 48_000))
        }
        offset = end
        now += Int64(input[offset - 1]) * 100  // 0–25 ms between reads
        _ = connection.checkIdle(nowMicros: now)
    }
    for hit in routed.values { checkPrintable(BrainLines.hit(hit, started: nil, rate: 48_000)) }
    checkPrintable("pad \(connection.statistics.padName.map { WireText.printable($0) } ?? "-")")
    return 0
}

#if canImport(Glibc)
import Glibc
#endif
import DrumNet
import Monotonic
import Testing
import TestSupport

/// A client sending wild times and names full of control characters, under every timing option
/// of the brain: the brain lives, keeps playing the other pads, and nothing raw reaches its
/// output. (Before the fix, the first two packets below killed `drumbrain --jitter-buffer-ms 30`
/// and any `--crosstalk-group` with "arithmetic overflow", and a drum name with a newline printed
/// a forged hit line.)
@Suite(.serialized)
struct HostileClientTests {
    static let optionSets: [[String]] = [
        [],
        ["--jitter-buffer-ms", "30"],
        ["--jitter-buffer-ms", "200"],
        ["--crosstalk-group", "snare,racktom"],
        ["--jitter-buffer-ms", "30", "--crosstalk-group", "snare,racktom,floortom"],
    ]

    static func hit(_ drum: String, _ velocity: Float = 1, time: Int64? = nil, seq: Int32? = nil) -> [UInt8] {
        DrumMessage.hit(DrumHit(drum: drum, velocity: velocity, padTimeMicros: time, sequence: seq)).packet
    }

    static func ping(_ time: Int64, offset: Int64, roundTrip: Int64) -> [UInt8] {
        DrumMessage.ping(timeMicros: time, offsetMicros: offset, roundTripMicros: roundTrip).packet
    }

    /// What a hostile client sends: the packets, then a sensible clock followed by pad
    /// times at every extreme, then names built to forge lines and drive the terminal.
    static func hostileStream() -> [[UInt8]] {
        let now = MonotonicClock.nowMicros()  // the brain's clock too: the same host
        let extremes: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max, now + 9_000_000, now - 9_000_000,
                                 now + 11_000_000, now - 11_000_000, now &* 1000]
        var stream: [[UInt8]] = [ping(1, offset: 0, roundTrip: 100), hit("snare", time: .min)]
        stream.append(ping(now, offset: 0, roundTrip: 300))  // sensible: latency 0
        for (k, time) in extremes.enumerated() {
            stream.append(hit(k % 2 == 0 ? "snare" : "racktom", Float(k % 5) / 4, time: time, seq: Int32(k)))
        }
        for (offset, roundTrip) in [(Int64.max, Int64(1)), (.min, 1), (0, -5), (0, .max), (1 << 62, 100)] {
            stream.append(ping(now, offset: offset, roundTrip: roundTrip))
            stream.append(hit("floortom", 0.5, time: now, seq: 100))
        }
        let evil = ["snare\nhit drum=forged velocity=1.000 pad=x", "\u{1B}[2J\u{1B}]0;pwned\u{07}", "kick\r\u{1B}[1A",
                    "\u{9B}31m\u{7F}", "\u{202E}ecnars", String(repeating: "\u{1B}[5m", count: 300)]
        stream.append(DrumMessage.hello(version: 1, padName: "pad\u{1B}[31m\nhit drum=fake", drum: evil[1]).packet)
        for name in evil { stream.append(hit(name, 1, time: now, seq: 200)) }
        stream.append(DrumMessage.error("\u{1B}c reset").packet)
        stream.append(OSCEncoding.packet(OSCMessage("/\u{1B}[2J", [.string("\u{07}")])))
        return stream
    }

    @Test(arguments: optionSets)
    func wildValuesLeaveTheBrainAliveAndPlaying(options: [String]) throws {
        let port = freePort()
        let brain = BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(port)", "--output", "null",
                                       "--no-visual"] + options)!
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        let hostile = try #require(RawSocket(port: port))
        for packet in Self.hostileStream() { hostile.send(packet) }
        // A well-behaved pad on another connection is still heard.
        let pad = try #require(RawSocket(port: port))
        pad.send(DrumMessage.hello(version: 1, padName: "good-pad", drum: "kick").packet)
        usleep(100_000)
        pad.send(Self.hit("kick", 0.75))
        #expect(brain.waitForOutput("hit drum=kick velocity=0.750 pad=good-pad", within: 30), "\(brain.output)")
        #expect(!brain.hasExited, "\(brain.output)")
        hostile.close()
        pad.close()
        let status = brain.stop(signal: SIGINT)
        let output = brain.output
        #expect(status == 0, "\(output)")
        // Every line whole and printable: only newlines end lines, no escape or control reaches
        // the output, and no hit line was forged.
        let bad = output.utf8.filter { ($0 < 0x20 && $0 != 0x0A) || $0 == 0x7F }
        #expect(bad.isEmpty, "control bytes \(bad) in:\n\(output)")
        #expect(!output.unicodeScalars.contains { (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
        #expect(!output.contains("hit drum=forged") && !output.contains("\nhit drum=fake"))
        #expect(output.contains("implausible times refused"), "\(output)")
        #expect(output.contains("snare\\x0Ahit\\x20drum=forged"), "\(output)")
    }
}

import DrumNet
import Testing
import TestSupport

/// The live brain makes a pad known at its hello, before any hit. A protocol 2 pad says hello
/// twice on one connection: first with no rate (counted as a 250 Hz pad's first hit would be:
/// 4 × 4 ms + 2 ms, the 128-frame period at 48 kHz and 1 ms, 21.7 ms), then, once it has measured
/// its rate, again with it (100 Hz: 4 × 10 ms + 2 ms, the period, 1 ms and the stands' hold while
/// it is new, 53.0 ms). The brain says each rise, naming the pad. A hello claiming 1 Hz counts
/// as one with no rate: it moves nothing past what the pads need.
@Suite(.serialized)
struct HelloLatencyTests {
    let brain = Program.productsFolder + "/drumbrain"

    @Test func aPadsHelloRaisesTheLatencyBeforeItsFirstHit() throws {
        let port = freePort()
        let process = try #require(BackgroundProcess([brain, "--output", "null", "--port", "\(port)", "--stand-state", "none"]))
        #expect(process.waitForOutput("listening on"), "\(process.output)")
        let pad = try #require(RawSocket(port: port))
        defer { pad.close() }
        let first = "drumbrain: latency from strike to sound 21.7 ms (pad \"phone-pad\" needs it"
        let rated = "drumbrain: latency from strike to sound 53.0 ms (pad \"phone-pad\" needs it"
        pad.send(DrumMessage.hello(version: 2, padName: "phone-pad", drum: "snare").packet)
        #expect(eventually(within: 10) { process.output.contains(first) }, "\(process.output)")
        pad.send(DrumMessage.hello(version: 2, padName: "phone-pad", drum: "snare", rateHz: 100).packet)
        #expect(eventually(within: 10) { process.output.contains(rated) }, "\(process.output)")
        let liar = try #require(RawSocket(port: port))
        defer { liar.close() }
        liar.send(DrumMessage.hello(version: 2, padName: "liar", drum: "kick", rateHz: 1).packet)
        // The brain makes a pad known before it welcomes it: the welcome says the hello counted.
        #expect(!liar.readSome().isEmpty, "welcomed")
        process.stop()
        let output = process.output
        #expect(output.components("latency from strike to sound") == 3, "two rises, and the exit summary: \(output)")
        #expect(output.contains("latency from strike to sound 53.0 ms (chosen)"), "\(output)")
    }
}

import Testing
import TestSupport

/// The live brain makes a pad known at its hello, before any hit: a 100 Hz pad's hello alone
/// raises the latency to what its first hit would (4 × 10 ms + 2 ms, the 128-frame period at
/// 48 kHz, 1 ms, and the stands' hold while it is new: 53.0 ms) and the brain says so, naming
/// the pad. A protocol 1 pad's hello, with no rate, counts as a pad's of 250 Hz would (18 ms
/// + the period + 1 ms: 21.7 ms), as its first hit would.
@Suite(.serialized)
struct HelloLatencyTests {
    let brain = Program.productsFolder + "/drumbrain"

    @Test(.enabled(if: toolAvailable("oscsend"), "needs liblo's oscsend (apt-get install liblo-tools)"))
    func aPadsHelloRaisesTheLatencyBeforeItsFirstHit() throws {
        let port = freePort()
        let process = try #require(BackgroundProcess([brain, "--output", "null", "--port", "\(port)", "--stand-state", "none"]))
        #expect(process.waitForOutput("listening on"), "\(process.output)")
        let url = "osc.tcp://127.0.0.1:\(port)"
        #expect(Program.runTool("oscsend", [url, "/drum/hello", "iss", "1", "old-pad", "kick"]).status == 0)
        #expect(Program.runTool("oscsend", [url, "/drum/hello", "issf", "2", "phone-pad", "snare", "100"]).status == 0)
        let old = "drumbrain: latency from strike to sound 21.7 ms (pad \"old-pad\" needs it"
        let phone = "drumbrain: latency from strike to sound 53.0 ms (pad \"phone-pad\" needs it"
        #expect(eventually(within: 10) { process.output.contains(phone) }, "\(process.output)")
        process.stop()
        let output = process.output
        #expect(output.contains(old), "\(output)")
        #expect(output.components("latency from strike to sound") == 3, "two rises, and the exit summary: \(output)")
        #expect(output.contains("latency from strike to sound 53.0 ms (chosen)"), "\(output)")
        #expect(!output.contains("hit drum="), "\(output)")
    }
}

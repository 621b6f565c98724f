import HitDetect
import Testing
import TestSupport

/// A large file is parsed on two cores (mapped); a pipe is read in order. Both must give the
/// same hits, summary and errors, byte for byte.
struct ParallelReplayTests {
    /// About 6 MB: many 1 MiB chunks, with gaps, comments and labels scattered through it.
    static func bigLog(badLine: Int? = nil) -> String {
        var writer = SensorLogWriter(metadata: [(key: "rate_hz", value: "250")], withHitColumn: true)
        var text: [UInt8] = []
        var line = 4  // after the format line, the metadata line and the header
        for i in 0..<180_000 {
            if i % 7919 == 0 && i > 0 {
                writer.appendGap()
                line += 1
            }
            if i % 5003 == 0 {
                text += writer.take() + Array("# note: row \(i)\n".utf8)
                line += 1
            }
            let strike = i % 97 == 0
            let z = strike ? 2.5 : 1.0 + Double((i * 7) % 13) / 1000
            if let badLine, line == badLine {
                text += writer.take() + Array("\(Double(i) / 250),0,0,oops,0\n".utf8)
            } else {
                writer.append(time: Double(i) / 250, x: 0.001, y: -0.002, z: z, hit: strike)
            }
            line += 1
        }
        text += writer.take()
        return String(decoding: text, as: UTF8.self)
    }

    @Test func mappedAndPipedReadsAgree() {
        let path = Program.temporaryFile(Self.bigLog())
        let mapped = Program.run("drumpad", ["replay", path])
        let piped = Program.runTool("sh", ["-c", "cat \(path) | \(Program.productsFolder)/drumpad replay /dev/stdin"])
        #expect(mapped.status == 0 && piped.status == 0)
        #expect(mapped.stdout == piped.stdout)
        #expect(mapped.stdout.split(separator: "\n").count > 1500)
        #expect(mapped.stderr.replacingPath(path) == piped.stderr.replacingPath("/dev/stdin"))
        #expect(mapped.stderr.contains("180000 samples"))
        #expect(mapped.stderr.contains("0 false hits"))
    }

    @Test func aBadRowDeepInTheFileNamesTheSameLineEitherWay() {
        let path = Program.temporaryFile(Self.bigLog(badLine: 150_001))
        let mapped = Program.run("drumpad", ["replay", path])
        let piped = Program.runTool("sh", ["-c", "cat \(path) | \(Program.productsFolder)/drumpad replay /dev/stdin"])
        #expect(mapped.status == 1 && piped.status == 1)
        #expect(mapped.stderr.contains("\(path):150001: column \"z\": \"oops\" is not a number"))
        #expect(piped.stderr.contains("/dev/stdin:150001: column \"z\": \"oops\" is not a number"))
        #expect(mapped.stdout == piped.stdout)
        #expect(mapped.stdout.split(separator: "\n").count > 1000)
    }
}

extension String {
    func replacingPath(_ path: String) -> String {
        split(separator: path, omittingEmptySubsequences: false).joined(separator: "LOG")
    }
}

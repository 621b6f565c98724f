#if canImport(Glibc)
import Glibc
#endif
import HitDetect
import Testing
import TestSupport

/// The whole network (issue 9): a brain and three pads in a network namespace with a private
/// avahi-daemon; the pads find the brain by name and replay logs with known strikes; the brain
/// plays them into a WAV file with a 20 ms jitter buffer. `scripts/test` runs this suite on its
/// own, after the others: it measures timing, which other tests on the same cores would disturb.
@Suite(.serialized, .enabled(if: avahiSandboxAvailable,
                             "needs root, avahi-daemon, dbus-daemon, avahi-utils and iproute2 for a private Avahi"))
struct EndToEndTests {
    static let drums = ["kick", "snare", "hihat"]

    /// The strike times of a bundled groove log (its hit column).
    static func strikes(_ drum: String) throws -> [Double] {
        let text = Program.contents(Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv")
        var reader = SensorLogReader(fileName: drum)
        var batch = SensorBatch()
        _ = try Array(text.utf8).withUnsafeBytes { try reader.read($0, isEnd: true, into: &batch) }
        return batch.labelled.map { batch.time[$0] }
    }

    @Test func threePadsFoundThroughAvahiPlayEveryHitOnceAndOnTime() throws {
        let avahi = try AvahiSandbox()
        let wav = "/tmp/drumtest-e2e-\(getpid()).wav"
        defer { unlink(wav) }
        let brain = BackgroundProcess(avahi.inside([
            Program.productsFolder + "/drumbrain", "--name", "e2e", "--port", "7811",
            "--output", "wav:" + wav, "--jitter-buffer-ms", "20"]))!
        #expect(eventually(within: 10) { brain.output.contains("published as \"e2e\"") })
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // Far enough ahead that every pad has found the brain first, even on a loaded machine.
        let start = String(now.tv_sec + 10)
        let pads = Self.drums.map { drum in
            BackgroundProcess(avahi.inside([
                Program.productsFolder + "/drumpad", "run", "--drum", drum,
                "--replay", Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv",
                "--brain-name", "e2e", "--name", "e2e-\(drum)", "--start-at", start,
                "--wait-for-brain", "30"]))!
        }
        for pad in pads {
            #expect(pad.wait() == 0, "\(pad.output)")
            #expect(pad.output.contains(" 0 dropped while disconnected"), "\(pad.output)")
        }
        usleep(300_000)
        brain.stop(signal: SIGINT)
        let output = brain.output
        for drum in Self.drums {
            let expected = try Self.strikes(drum)
            // The brain's own line for each hit: drum, pad and the frame where the sound starts.
            let frames = output.split(separator: "\n")
                .filter { $0.hasPrefix("hit drum=\(drum) ") && $0.contains("pad=e2e-\(drum) ") }
                .compactMap { line in line.split(separator: " ").first { $0.hasPrefix("frame=") }.flatMap { Int64($0.dropFirst(6)) } }
            #expect(frames.count == expected.count, "\(drum): \(frames.count) played, \(expected.count) in the log")
            guard frames.count == expected.count, !frames.isEmpty else { continue }
            // Timing against the log's own strike times, one constant offset removed.
            var deviations = zip(frames, expected).map { Double($0) / 48_000 - $1 }
            let median = deviations.sorted()[deviations.count / 2]
            deviations = deviations.map { abs($0 - median) * 1000 }.sorted()
            let p99 = deviations[min(deviations.count - 1, Int(Double(deviations.count) * 0.99))]
            #expect(p99 <= 1.0, "\(drum): p99 timing deviation \(p99) ms")
        }
        #expect(output.contains("pad e2e-kick ") && output.contains("pad e2e-snare ") && output.contains("pad e2e-hihat "))
        #expect(output.contains("audio: 88 sounds started"))
        // Something was heard: the WAV holds the groove's length and sound.
        let heard = Program.runTool("sh", ["-c", "stat -c %s \(wav)"])
        #expect((Int(heard.stdout.split(separator: "\n").first ?? "0") ?? 0) > 16 * 48_000 * 8)
    }
}

@Suite(.serialized, .enabled(if: avahiSandboxAvailable,
                             "needs root, avahi-daemon, dbus-daemon, avahi-utils and iproute2 for a private Avahi"))
struct EndToEndFaultTests {
    /// Hit lines the brain printed for a pad.
    static func hits(_ output: String, pad: String) -> Int {
        output.split(separator: "\n").filter { $0.hasPrefix("hit drum=") && $0.contains("pad=\(pad) ") }.count
    }

    @Test func padAndBrainKilledAndRestartedMidwayRecover() throws {
        let avahi = try AvahiSandbox()
        let brainArguments = avahi.inside([Program.productsFolder + "/drumbrain", "--name", "e2e", "--port", "7812",
                                           "--output", "null"])
        let first = BackgroundProcess(brainArguments)!
        #expect(eventually(within: 10) { first.output.contains("published as \"e2e\"") })
        func pad(_ drum: String) -> BackgroundProcess {
            BackgroundProcess(avahi.inside([
                Program.productsFolder + "/drumpad", "run", "--drum", drum,
                "--replay", Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv",
                "--brain-name", "e2e", "--name", "e2e-\(drum)"]))!
        }
        let kick = pad("kick"), hihat = pad("hihat")
        var snare = pad("snare")
        #expect(eventually(within: 10) { Self.hits(first.output, pad: "e2e-snare") >= 2 })
        // A pad killed and started again: a new connection, the brain unharmed.
        snare.stop(signal: SIGKILL)
        snare = pad("snare")
        #expect(eventually(within: 10) { Self.hits(first.output, pad: "e2e-snare") >= 4 })
        // The brain killed without warning, and a new one started in its place.
        #expect(first.stop(signal: SIGKILL) == 128 + SIGKILL)
        usleep(300_000)
        let second = BackgroundProcess(brainArguments)!
        #expect(eventually(within: 10) { second.output.contains("published as \"e2e\"") })
        // Every pad comes back and its later hits are played by the new brain.
        for name in ["e2e-kick", "e2e-hihat", "e2e-snare"] {
            #expect(eventually(within: 10) { Self.hits(second.output, pad: name) >= 1 }, "\(name) never came back")
        }
        for process in [kick, hihat, snare] {
            #expect(process.wait() == 0)
            #expect(process.output.contains("lost the brain"))
            #expect(process.output.components("connected to") >= 2)
        }
        #expect(second.stop(signal: SIGINT) == 0)
        #expect(second.output.contains("audio: "))
    }
}

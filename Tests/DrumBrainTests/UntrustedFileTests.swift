import DrumAudio
import Foundation
import Testing
import TestSupport

/// Files a user hands the programs, made hostile (found by an audit of the built programs): each
/// was a trap, an abort, a hang or a silent wrong result before, and is now a clear error that
/// names the file and line, or the right result (docs/reliability.md, "Files").
struct UntrustedFileTests {
    static let stand = Program.repositoryRoot + "/Tests/Fixtures/stands/kit4-seed101"

    /// `stand/NAME.csv` with `offset` added to every time, in a new folder.
    static func shiftedLog(_ name: String, by offset: Double, into folder: String) -> String {
        let lines = Program.contents("\(stand)/\(name).csv").split(separator: "\n", omittingEmptySubsequences: false)
        var seenHeader = false
        let shifted = lines.map { line -> String in
            guard !line.hasPrefix("#"), !line.isEmpty else { return String(line) }
            guard seenHeader else { seenHeader = true; return String(line) }
            var fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[0] = String(format: "%.6f", Double(fields[0])! + offset)
            return fields.joined(separator: ",")
        }
        mkdir(folder, 0o755)
        let path = "\(folder)/\(name).csv"
        FileManager.default.createFile(atPath: path, contents: Data(shifted.joined(separator: "\n").utf8))
        return path
    }

    static func scratchFolder() -> String {
        "/tmp/drumbrain-untrusted-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    }

    /// A log timed in epoch µs (1.7·10¹⁵ "seconds") trapped converting its times to µs (exit
    /// 132); now the reader refuses it where it stands, naming the file, line and column, and
    /// the error is the file's (exit 1, no usage after it).
    @Test func aTimeBeyondAnyClockIsAnErrorNamingItsLineNotATrap() {
        let folder = Self.scratchFolder()
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let log = Self.shiftedLog("snare", by: 1.7e15, into: folder)
        let run = Program.run("drumbrain", ["replay", log])
        #expect(run.status == 1, "\(run.stderr)")
        // Line 16: the fixture's first row, under its comments and header.
        #expect(run.stderr.contains("snare.csv:16: column \"t\": \"1700000000000000.000000\" is beyond ±1e12"), "\(run.stderr)")
        #expect(!run.stderr.contains("Usage:"), "\(run.stderr)")
        let pad = Program.run("drumpad", ["replay", log])
        #expect(pad.status == 1 && pad.stderr.contains("snare.csv:16: column \"t\""), "\(pad.stderr)")
    }

    /// Logs timed by the epoch (1.7·10⁹ s) asked `--out` for 1.7 billion seconds of silence
    /// before the first hit (an abort allocating terabytes); the WAV now begins at the second the
    /// logs begin in, and holds the stand's hits in its 20 s.
    @Test func aStandTimedByTheEpochRendersFromItsOwnStart() throws {
        let folder = Self.scratchFolder()
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let logs = ["snare", "racktom"].map { Self.shiftedLog($0, by: 1.7e9, into: folder) }
        let run = Program.run("drumbrain", ["replay"] + logs + ["--out", "\(folder)/kit.wav", "--hits-dir", "\(folder)/hits"])
        #expect(run.status == 0, "\(run.stderr)")
        let rendered = try #require(run.stderr.firstMatch(of: #/(\d+) hits rendered to/#).flatMap { Int($0.1) }, "\(run.stderr)")
        #expect(rendered > 40, "\(run.stderr)")
        let size = (try? FileManager.default.attributesOfItem(atPath: "\(folder)/kit.wav")[.size] as? Int) ?? 0
        // 20 s of 48 kHz stereo float is 7.7 MB; the sounds' tails add a little.
        #expect(size > 5_000_000 && size < 12_000_000, "\(size) bytes")
        // The hits keep the logs' own times.
        #expect(Program.contents("\(folder)/hits/snare.hits.csv").contains("\n17000000"))
    }

    /// A log starting a billion seconds after the other cannot be rendered in an hour: a clear
    /// error once the hits are written (nothing already decided is lost), not an abort.
    @Test func aRenderLongerThanAnHourIsAnErrorAfterTheHitsAreWritten() {
        let folder = Self.scratchFolder()
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let logs = [Self.shiftedLog("snare", by: 0, into: folder), Self.shiftedLog("racktom", by: 1e9, into: folder)]
        let run = Program.run("drumbrain", ["replay"] + logs + ["--out", "\(folder)/kit.wav", "--hits-dir", "\(folder)/hits"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("at most 3600 s (one hour) is rendered"), "\(run.stderr)")
        #expect(Program.contents("\(folder)/hits/snare.hits.csv").split(separator: "\n").count > 40)
        #expect(Program.contents("\(folder)/hits/racktom.hits.csv").split(separator: "\n").count > 10)

        // The MIDI file likewise (its ticks overflowed Int64 and trapped past 4.8·10⁹ s).
        let midi = Program.run("drumbrain", ["replay"] + logs + ["--midi-out", "\(folder)/kit.mid"])
        #expect(midi.status == 1 && midi.stderr.contains("at most 3600 s (one hour)"), "exit \(midi.status): \(midi.stderr)")

        let hits = Program.temporaryFile("t,drum,velocity\n0.5,kick,1\n1.93e14,kick,1\n")
        defer { unlink(hits) }
        let render = Program.run("drumbrain", ["render", "--hits", hits, "--out", "\(folder)/r.wav"])
        #expect(render.status == 1, "\(render.stderr)")
        #expect(render.stderr.contains(":3: t 1.93e14 is past the 3600 s"), "\(render.stderr)")
    }

    /// CRLF line ends: a hit list read as one line rendered nothing (exit 0, a silent WAV), and a
    /// sensor log's header read whole was taken for a labels file and skipped.
    @Test func windowsLineEndsAreLineEnds() throws {
        let folder = Self.scratchFolder()
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let hits = "\(folder)/hits.csv"
        FileManager.default.createFile(atPath: hits, contents: Data("t,drum,velocity\r\n0,kick,1\r\n0.5,snare,0.8\r\n".utf8))
        let render = Program.run("drumbrain", ["render", "--hits", hits, "--out", "\(folder)/r.wav"])
        #expect(render.status == 0 && render.stderr.contains("2 hits with kit"), "\(render.stderr)")

        let log = Program.contents("\(Self.stand)/snare.csv").split(separator: "\n").joined(separator: "\r\n") + "\r\n"
        FileManager.default.createFile(atPath: "\(folder)/snare.csv", contents: Data(log.utf8))
        let replay = Program.run("drumbrain", ["replay", "\(folder)/snare.csv", "--hits-dir", "\(folder)/h"])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!replay.stderr.contains("skipped"), "\(replay.stderr)")
        #expect(Program.contents("\(folder)/h/snare.hits.csv").split(separator: "\n").count > 40)
    }

    /// An endless input (`/dev/zero`) was read whole before parsing: 4 GB in 10 s, and on. It now
    /// stops at the reader's longest line.
    @Test func anEndlessInputStopsAtTheLongestLine() {
        let run = Program.runTool("timeout", ["-k", "5", "60", Program.productsFolder + "/drumbrain", "replay", "/dev/zero"])
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("/dev/zero:1: line longer than 65536 bytes"), "\(run.stderr)")
    }

    /// A file name holding a line break printed a second line that passed for an error of its
    /// own; drumpad's errors are one line now, as drumbrain's are.
    @Test func aFileNameWithALineBreakForgesNoErrorLine() {
        let folder = Self.scratchFolder()
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let path = "\(folder)/a\nError: forged.csv"
        FileManager.default.createFile(atPath: path, contents: Data("t,z\n0,1\n0.004,nan\n".utf8))
        let run = Program.run("drumpad", ["replay", path])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("Error: forged") }, "\(run.stderr)")
        #expect(run.stderr.contains("a\\x0AError: forged.csv:3: column \"z\""), "\(run.stderr)")
    }

    /// A negative threshold or an absurd refractory in a sweep's grid stopped drumpad on a
    /// precondition or a conversion (exit 132); each is a usage error now.
    @Test func aSweepGridOutOfRangeIsAUsageError() {
        let log = Program.repositoryRoot + "/Samples/logs/snare-250hz.csv"
        for (option, says) in [("--thresholds=-1", "--thresholds: -1.0 is negative"),
                               ("--refractories=1e300", "--refractories: 1e+300 is not a whole number")] {
            let run = Program.run("drumpad", ["replay", log, "--sweep", option])
            #expect(run.status == 64, "\(option): exit \(run.status): \(run.stderr)")
            #expect(run.stderr.contains(says), "\(run.stderr)")
        }
    }
}

/// Kits made hostile: sound files whose header lies, samples that are not numbers, XML nested
/// past reason, a field of the wrong type.
struct UntrustedKitFileTests {
    /// A RIFF WAV: `format` 1 (PCM, 16-bit) or 3 (IEEE float, 32-bit), mono, at `rate`.
    static func wav(rate: UInt32, format: UInt16, frames: [Float]) -> Data {
        let bits: UInt16 = format == 3 ? 32 : 16
        var data = Data()
        for x in frames {
            if format == 3 { withUnsafeBytes(of: x.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
            else { withUnsafeBytes(of: Int16(max(-1, min(1, x.isNaN ? 0 : x)) * 32767).littleEndian) { data.append(contentsOf: $0) } }
        }
        var out = Data("RIFF".utf8)
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u32(UInt32(36 + data.count)); out.append(contentsOf: Data("WAVEfmt ".utf8)); u32(16)
        u16(format); u16(1); u32(rate); u32(rate * UInt32(bits / 8)); u16(bits / 8); u16(bits)
        out.append(contentsOf: Data("data".utf8)); u32(UInt32(data.count)); out.append(data)
        return out
    }

    /// A kit folder with `kit.json` naming one drum, kick, whose sample is `sample`.
    static func kit(_ sample: Data, drum: String = #"{"name": "kick", "sample": "kick.wav"}"#) -> String {
        let folder = "/tmp/drumbrain-kit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        FileManager.default.createFile(atPath: folder + "/kick.wav", contents: sample)
        FileManager.default.createFile(atPath: folder + "/kit.json", contents: Data(#"{"name": "hostile", "drums": [\#(drum)]}"#.utf8))
        return folder
    }

    /// A WAV saying 1 Hz asked the resampler for 48,000 times its frames (an abort allocating
    /// 192 GB for a 2 MB file): its rate is refused before anything is sized.
    @Test func aSoundFileAtARateNoCardRunsAtIsRefused() {
        let folder = Self.kit(Self.wav(rate: 1, format: 1, frames: [Float](repeating: 0.1, count: 100_000)))
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let run = Program.run("drumbrain", ["check-kit", folder])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("kick.wav: a sample rate of 1 Hz is not an audio rate (1000–768000 Hz)"), "\(run.stderr)")
    }

    /// Float samples that are NaN or infinite were mixed into the output as they were; they are
    /// silence now (and a huge one is held at ±16), so the render holds numbers only.
    @Test func aSampleThatIsNotANumberIsSilence() throws {
        var frames = [Float](repeating: 0.25, count: 4_800)
        frames[10] = .nan; frames[20] = .infinity; frames[30] = -.infinity; frames[40] = 1e30
        let folder = Self.kit(Self.wav(rate: 48_000, format: 3, frames: frames))
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let hits = Program.temporaryFile("t,drum,velocity\n0,kick,1\n0.05,kick,1\n")
        defer { unlink(hits) }
        let render = Program.run("drumbrain", ["render", "--kit", folder, "--hits", hits, "--out", folder + "/out.wav"])
        #expect(render.status == 0, "\(render.stderr)")
        // The render's own floats, from its data chunk (SoundFile.read would clean them itself).
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/out.wav")))
        var at = 12, samples: [Float] = []
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            if bytes[at..<(at + 4)].elementsEqual("data".utf8) {
                samples = stride(from: at + 8, to: min(bytes.count, at + 8 + size) - 3, by: 4).map { i in
                    Float(bitPattern: UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24)
                }
                break
            }
            at += 8 + size + size % 2
        }
        #expect(samples.count > 9_000)
        #expect(samples.allSatisfy { $0.isFinite }, "\(samples.count { !$0.isFinite }) samples not finite")
        // The 1e30 sample is held at ±16 where the kit is read (the mix's limiter hides it after).
        let read = try SoundFile.read(folder + "/kick.wav")
        #expect(read.samples[40] == 16 && read.samples[10] == 0 && read.samples[20] == 16 && read.samples[30] == -16,
                "\(read.samples[10]), \(read.samples[20]), \(read.samples[30]), \(read.samples[40])")
        #expect(samples.contains { $0 != 0 })
    }

    /// A Hydrogen drumkit.xml nested 60,000 deep overflowed the stack as its tree was freed
    /// (exit 139); past 64 levels it is not a drumkit.xml.
    @Test func aKitNestedPastReasonIsRefused() {
        let folder = "/tmp/drumbrain-deep-\(getpid())"
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let xml = "<drumkit_info>" + String(repeating: "<a>", count: 60_000) + String(repeating: "</a>", count: 60_000) + "</drumkit_info>"
        FileManager.default.createFile(atPath: folder + "/drumkit.xml", contents: Data(xml.utf8))
        let run = Program.run("drumbrain", ["check-kit", folder])
        #expect(run.status == 1, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("elements nested deeper than 64"), "\(run.stderr)")
    }

    /// `"gain": "loud"` (or null) was read as the default gain, silently.
    @Test func aKitsNumberOfTheWrongTypeIsAnError() {
        for (field, value) in [("gain", #""loud""#), ("azimuth", "null")] {
            let folder = Self.kit(Self.wav(rate: 48_000, format: 1, frames: [Float](repeating: 0.1, count: 480)),
                                  drum: #"{"name": "kick", "sample": "kick.wav", "\#(field)": \#(value)}"#)
            defer { _ = Program.runTool("rm", ["-rf", folder]) }
            let run = Program.run("drumbrain", ["check-kit", folder])
            #expect(run.status == 1, "\(field): \(run.stderr)")
            #expect(run.stderr.contains("drum \"kick\": \"\(field)\" must be a number"), "\(run.stderr)")
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import DrumAudio
import Testing
import TestSupport

/// The brain's MIDI files played by real peers, each started by the test: fluidsynth with the
/// General MIDI soundfont renders `drumbrain replay --midi-out` of the bundled groove logs, and
/// its onsets fall on the hits; a live brain's `--record-midi` holds every hit it played, and
/// killed outright it leaves a file that parses.
@Suite(.serialized)
struct MIDIPeerTests {
    static let soundfont = "/usr/share/sounds/sf2/FluidR3_GM.sf2"
    static let fluidsynthAvailable = toolAvailable("fluidsynth") && access(soundfont, R_OK) == 0

    static func folder() -> String {
        let path = "/tmp/drumtest-midi-peer-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(path, 0o755)
        return path
    }

    /// The bundled groove logs (kick, snare, hihat) replayed in `dir` with `--midi-out
    /// dir/take.mid --hits-dir dir/hits`.
    static func recordGroove(in dir: String) -> ProgramRun {
        for drum in ["kick", "snare", "hihat"] {
            _ = Program.runTool("cp", [Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv", "\(dir)/\(drum).csv"])
        }
        return Program.run("drumbrain", ["replay", "\(dir)/kick.csv", "\(dir)/snare.csv", "\(dir)/hihat.csv",
                                         "--midi-out", "\(dir)/take.mid", "--hits-dir", "\(dir)/hits"])
    }

    /// The times of the hits `recordGroove` played on `drum`.
    static func played(_ drum: String, in dir: String) -> [Double] {
        Program.contents("\(dir)/hits/\(drum).hits.csv").split(separator: "\n").dropFirst()
            .compactMap { $0.split(separator: ",").first.flatMap { Double($0) } }
    }

    /// Where the sound of a render begins anew: a 1 ms span (four 0.25 ms frames) whose peak is
    /// four times the previous 10 ms's and over `floor`, dated at its first sample over a quarter
    /// of that peak (and twice the 10 ms before); then 30 ms on. Drum tails overlap, so a rise
    /// against what came just before is what marks an onset, not silence before it.
    static func attackOnsets(_ buffer: AudioBuffer, floor: Float = 0.003) -> [Double] {
        var peak = [Float](repeating: 0, count: buffer.frames)
        for f in 0..<buffer.frames {
            for c in 0..<buffer.channels { peak[f] = max(peak[f], abs(buffer[f, c])) }
        }
        let size = 12, count = buffer.frames / size
        var frames = [Float](repeating: 0, count: count)
        for i in 0..<count { frames[i] = peak[i * size..<(i + 1) * size].max()! }
        var onsets: [Double] = [], i = 40
        while i < count - 4 {
            let before = frames[(i - 40)..<i].max()!, next = frames[i..<(i + 4)].max()!
            if next > floor && next > 4 * before {
                let start = i * size
                let first = peak[start..<(start + 4 * size)].firstIndex { $0 > max(2 * before, next / 4) } ?? start
                onsets.append(Double(first) / buffer.sampleRate)
                i += 120
            } else {
                i += 1
            }
        }
        return onsets
    }

    @Test(.enabled(if: fluidsynthAvailable, "needs fluidsynth and fluid-soundfont-gm (scripts/setup installs them)"))
    func fluidsynthPlaysARecordedPerformanceWithEachHitInPlace() throws {
        let dir = Self.folder()
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        let replay = Self.recordGroove(in: dir)
        #expect(replay.status == 0, "\(replay.stderr)")
        let hits = ["kick", "snare", "hihat"].flatMap { Self.played($0, in: dir) }
        #expect(replay.stderr.contains("\(hits.count) notes written to \(dir)/take.mid"), "\(replay.stderr)")
        // fluidsynth without reverb and chorus (their tails would hide the next strike).
        let render = Program.runTool("fluidsynth", ["-ni", "-R", "0", "-C", "0", "-r", "48000", "-F", "\(dir)/take.wav",
                                                    Self.soundfont, "\(dir)/take.mid"])
        #expect(render.status == 0, "\(render.stderr)")
        let heard = Self.attackOnsets(try SoundFile.read("\(dir)/take.wav"))
        // Strikes within 5 ms of each other sound as one onset.
        var groups: [Double] = []
        for t in hits.sorted() where groups.last.map({ t - $0 > 0.005 }) ?? true { groups.append(t) }
        // fluidsynth's own offset (its samples' attack): the median of each group's nearest onset.
        let nearest = groups.map { g in heard.min { abs($0 - g) < abs($1 - g) }.map { $0 - g } ?? 1 }
        let offset = nearest.sorted()[nearest.count / 2]
        let found = zip(groups, nearest).filter { abs($0.1 - offset) <= 0.003 }.count
        let explained = heard.filter { h in groups.contains { abs(h - $0 - offset) <= 0.003 } }.count
        // Every onset is a hit (none from nowhere); each hit has its onset within 3 ms, but for
        // a soft note under a loud tail (measured: 56 of 57).
        #expect(offset >= 0 && offset < 0.010, "fluidsynth's offset \(offset * 1000) ms")
        #expect(explained == heard.count, "\(heard.count - explained) onsets match no hit")
        #expect(found * 100 >= groups.count * 95, "\(found) of \(groups.count) hits have their onset within 3 ms")
    }

    /// A DrumGizmo kit of two instruments made from the bundled samples, and its midimap
    /// (kick 36, snare 38), in `dir`.
    static func writeDrumGizmoKit(_ dir: String) {
        for drum in ["kick", "snare"] {
            _ = Program.runTool("cp", [Program.repositoryRoot + "/Samples/kit/\(drum).wav", "\(dir)/\(drum).wav"])
            MIDIFileTests.write("""
                <?xml version="1.0" encoding="UTF-8"?>
                <instrument version="2.0" name="\(drum)">
                  <samples>
                    <sample name="\(drum)-1" power="1"><audiofile channel="\(drum)" file="\(drum).wav" filechannel="1"/></sample>
                  </samples>
                </instrument>
                """, to: "\(dir)/\(drum).xml")
        }
        MIDIFileTests.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <drumkit name="drumtest" description="the bundled kick and snare">
              <channels><channel name="kick"/><channel name="snare"/></channels>
              <instruments>
                <instrument name="kick" file="kick.xml"><channelmap in="kick" out="kick"/></instrument>
                <instrument name="snare" file="snare.xml"><channelmap in="snare" out="snare"/></instrument>
              </instruments>
            </drumkit>
            """, to: "\(dir)/drumkit.xml")
        MIDIFileTests.write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <midimap><map note="36" instr="kick"/><map note="38" instr="snare"/></midimap>
            """, to: "\(dir)/midimap.xml")
    }

    @Test(.enabled(if: toolAvailable("drumgizmo"), "needs drumgizmo (scripts/setup installs it)"))
    func drumGizmoPlaysARecordedPerformanceOnTheRightInstruments() throws {
        let dir = Self.folder()
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        let replay = Self.recordGroove(in: dir)
        #expect(replay.status == 0, "\(replay.stderr)")
        Self.writeDrumGizmoKit(dir)
        // DrumGizmo 0.9.20's midifile input plays a 120 BPM file at half speed unless told
        // speed=2.0; each channel goes to its own file, outkick-0.wav and outsnare-1.wav.
        let render = Program.runTool("drumgizmo", ["-i", "midifile", "-I", "file=\(dir)/take.mid,midimap=\(dir)/midimap.xml,speed=2.0",
                                                   "-o", "wavfile", "-O", "file=\(dir)/out,srate=48000", "-e", "960000",
                                                   "\(dir)/drumkit.xml"])
        #expect(render.status == 0, "\(render.stdout)\(render.stderr)")
        for (drum, file) in [("kick", "outkick-0.wav"), ("snare", "outsnare-1.wav")] {
            let hits = Self.played(drum, in: dir).filter { $0 < 19.5 }
            let heard = Self.attackOnsets(try SoundFile.read("\(dir)/\(file)"))
            let nearest = heard.map { h in hits.map { h - $0 }.min { abs($0) < abs($1) } ?? 1 }
            let offset = nearest.sorted()[nearest.count / 2]
            // Every onset on the drum's channel is one of its hits: the right instrument. Its
            // timing wanders in a sawtooth of about ±9 ms around a fixed offset (DrumGizmo's
            // midifile input, measured), so within 12 ms of it.
            #expect(!heard.isEmpty && nearest.allSatisfy { abs($0 - offset) <= 0.012 },
                    "\(drum): onsets off their hits by \(nearest.map { Int(($0 - offset) * 1000) }) ms")
            if drum == "snare" {
                // The snare's strokes are far apart: each one's onset is there.
                #expect(heard.count == hits.count, "\(heard.count) snare onsets for \(hits.count) hits")
            }
        }
    }

    @Test func aLiveBrainRecordsEveryHitAndAKillLeavesAPlayableFile() throws {
        try #require(toolAvailable("oscsend"), "needs liblo-tools (scripts/setup installs it)")
        let dir = Self.folder()
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        let port = freePort()
        let brain = try #require(BackgroundProcess([Program.productsFolder + "/drumbrain", "--port", "\(port)", "--output", "null",
                                                    "--no-visual", "--record-midi", "\(dir)/live.mid",
                                                    "--midi-channel", "3", "--stand-state", "none"]))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        let sent: [(String, String)] = [("snare", "1.0"), ("kick", "0.5"), ("hihat", "0.25"), ("crash", "1.0"), ("snare", "0.1")]
        for (drum, velocity) in sent {
            _ = Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "sf", drum, velocity])
            usleep(100_000)
        }
        #expect(eventually(within: 10) { brain.output.components(separatedBy: "hit drum=").count - 1 >= sent.count },
                "\(brain.output)")
        usleep(700_000)  // past the 0.5 s between rewrites
        // Killed outright: the file on disk is the last whole one.
        kill(brain.pid, SIGKILL)
        _ = brain.wait()
        let parsed = try #require(MIDIFileTests.parse(MIDIFileTests.bytes("\(dir)/live.mid") ?? []), "the file parses")
        #expect(parsed.endOfTrack)
        #expect(parsed.ons.map(\.note) == [38, 36, 42, 49, 38])
        #expect(parsed.ons.map(\.velocity) == [127, 64, 32, 127, 13])
        #expect(parsed.ons.allSatisfy { $0.channel == 2 })
        // In the order and at the spacing sent (each at the next period after it arrived; a
        // timing figure only in its spacing, not judged here beyond the order).
        #expect(zip(parsed.ons, parsed.ons.dropFirst()).allSatisfy { $0.micros < $1.micros })
        #expect(access("\(dir)/live.mid.part", F_OK) != 0)
    }
}

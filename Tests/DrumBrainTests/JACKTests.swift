#if canImport(Glibc)
import Glibc
#endif
import AllocationCounter
import DrumAudio
import JACKAudio
import Synchronization
import Testing
import TestSupport

/// The brain as a JACK client against a real jackd (the dummy driver: no sound card, no
/// real-time scheduling), started by the test: its ports are there and connected to the
/// system's playback ports, and with `--midi-out jack` the brain writes a note-on for every hit a
/// pad played and `jack_midi_dump` receives each (less at most one for each xrun its client
/// missed a period in), at the same frame of its JACK period as the hit's sound (the brain's
/// `frame=`), and the sound is at that frame in what the brain rendered. With
/// `--midi-in jack`, a JACK MIDI client (python3-jack-client) plays the kit through the brain.
@Suite(.serialized)
struct JACKTests {
    static let available = toolAvailable("jackd") && toolAvailable("jack_midi_dump") && toolAvailable("jack_connect")
        && toolAvailable("jack_lsp")

    /// A private jackd: `jackd --no-realtime -n NAME -d dummy -r 48000 -p 128`. (With
    /// `--realtime` the takes here had more xruns, not fewer: the Python clients' process
    /// callbacks then run at real-time priority and wait for Python's lock. The suite runs
    /// alone, after the others, so that a busy machine does not make the periods late.)
    final class Server {
        let name = "drumtest\(getpid())x\(UInt32.random(in: 0...UInt32.max))"
        let process: BackgroundProcess
        let realtime = false

        init() throws {
            process = BackgroundProcess(["jackd", "--no-realtime", "-n", name, "-d", "dummy", "-r", "48000", "-p", "128"])!
            let name = self.name
            guard eventually(within: 20, {
                Program.runTool("env", ["JACK_DEFAULT_SERVER=\(name)", "jack_lsp"]).stdout.contains("system:playback_1")
            }) else {
                throw ServerFailure(message: "jackd did not start: \(process.output)")
            }
        }

        func env(_ command: [String]) -> [String] { ["env", "JACK_DEFAULT_SERVER=\(name)"] + command }

        deinit { process.stop(signal: SIGTERM) }
    }

    struct ServerFailure: Error { let message: String }

    /// JACK's process callback is the audio thread: with hits starting and MIDI notes going
    /// out, no period allocates (counted on JACK's own thread, in this process).
    @Test(.enabled(if: available, "needs jackd2 (scripts/setup installs it)"))
    func theProcessCallbackNeverAllocates() throws {
        let server = try Server()
        setenv("JACK_DEFAULT_SERVER", server.name, 1)
        defer { unsetenv("JACK_DEFAULT_SERVER") }
        let jack = try JACKOutput(name: "drumtest")
        let kit = try KitLoader.load(Program.repositoryRoot + "/Samples/kit/kit.json", sampleRate: Double(jack.sampleRate))
        let engine = try AudioEngine(kit: kit, configuration: .init(output: .jack, sampleRate: jack.sampleRate,
                                                                    periodFrames: jack.periodFrames))
        let counts = Mutex((periods: 0, allocations: Int64(0)))
        jack.aroundProcessForTesting = { begins in
            if begins {
                allocation_counter_start()
            } else {
                let counted = allocation_counter_stop()
                counts.withLock { $0.periods += 1; $0.allocations += counted }
            }
        }
        engine.start()
        try jack.start(engine: engine, midiOut: true)
        for k in 0..<20 {
            #expect(engine.play(drum: k % kit.drums.count, velocity: 0.8))
            usleep(50_000)
        }
        usleep(300_000)
        jack.stop()
        engine.stop()
        let seen = counts.withLock { $0 }
        #expect(seen.periods > 100, "\(seen.periods) periods")
        #expect(engine.status.mixer.hits == 20)
        #expect(seen.allocations == 0, "\(seen.allocations) allocations in \(seen.periods) periods")
    }

    @Test(.enabled(if: available, "needs jackd2 (scripts/setup installs it)"))
    func padsPlayThroughJACKWithEachNoteAtItsSoundsFrame() throws {
        let server = try Server()
        let dir = "/tmp/drumtest-jack-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(dir, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        // The first 4 s of a snare log: a pad with clock sync, so hits start inside periods.
        let log = Program.contents(Program.repositoryRoot + "/Samples/logs/snare-250hz.csv").split(separator: "\n", omittingEmptySubsequences: false)
        var short = ""
        for line in log {
            if let t = line.split(separator: ",").first.flatMap({ Double($0) }), t > 4 { break }
            short += line + "\n"
        }
        MIDIFileTests.write(short, to: "\(dir)/snare.csv")
        let port = freePort()
        let brain = try #require(BackgroundProcess(server.env([Program.productsFolder + "/drumbrain", "--output", "jack", "--midi-out", "jack",
                                                               "--port", "\(port)", "--no-visual", "--stand-state", "none",
                                                               "--record", "\(dir)/heard.wav"])))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        #expect(brain.output.contains("JACK client \"drumbrain\": ports out_left, out_right, midi_out; connected to system:playback_1, system:playback_2"),
                "\(brain.output)")
        let dump = try #require(BackgroundProcess(server.env(["jack_midi_dump"])))
        defer { dump.stop(signal: SIGTERM) }
        #expect(eventually(within: 10) {
            Program.runTool("env", ["JACK_DEFAULT_SERVER=\(server.name)", "jack_lsp"]).stdout.contains("midi-monitor:input")
        })
        let connect = Program.runTool("env", ["JACK_DEFAULT_SERVER=\(server.name)", "jack_connect", "drumbrain:midi_out", "midi-monitor:input"])
        #expect(connect.status == 0, "\(connect.stderr)")
        // jackd --no-realtime often has an xrun as a client joins or leaves the graph (the dump,
        // jack_connect): only those while the pad plays count below (the brain says each xrun
        // within 0.1 s).
        usleep(400_000)
        let xrunsBefore = brain.output.components("JACK xrun")
        let pad = try #require(BackgroundProcess([Program.productsFolder + "/drumpad", "run", "--drum", "snare", "--name", "snare",
                                                  "--replay", "\(dir)/snare.csv", "--brain", "127.0.0.1:\(port)"]))
        #expect(pad.wait() == 0, "\(pad.output)")
        usleep(600_000)  // the last note's off, 100 ms on, and the dump's output
        let xrunCount = brain.output.components("JACK xrun") - xrunsBefore
        #expect(brain.stop(signal: SIGINT) == 0)
        let frames = brain.output.split(separator: "\n").filter { $0.hasPrefix("hit drum=snare") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("frame=") }.flatMap { Int64($0.dropFirst(6)) }
        }
        // `   37: 99 26 64 note on  (channel  9): pitch  38, velocity 100`
        let notes = dump.output.split(separator: "\n").filter { $0.contains("note on") }.compactMap { line -> (offset: Int64, pitch: Int)? in
            guard let offset = line.split(separator: ":").first.flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }),
                  let pitch = line.split(separator: "pitch").last?.split(separator: ",").first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            else { return nil }
            return (offset, pitch)
        }
        #expect(frames.count >= 5, "\(brain.output)")
        // The brain's part, judged whatever the machine: a note-on written into its port for
        // every hit it played.
        #expect(brain.output.contains("MIDI out (jack): \(frames.count) note-ons written"), "\(brain.output)")
        // What the dump received: every note, each at its hit's frame into the period. A period
        // the dump's client missed in an xrun loses that period's MIDI to it (the brain wrote
        // it): then at most one note lost an xrun, and the notes it did receive still each at
        // its own hit's frame, in order.
        #expect(notes.allSatisfy { $0.pitch == 38 }, "\(dump.output)")
        if xrunCount == 0 {
            #expect(notes.count == frames.count, "\(notes.count) notes for \(frames.count) hits, no xrun\n\(dump.output)")
            for (frame, note) in zip(frames, notes) {
                #expect(frame % 128 == note.offset, "the hit's sound at frame \(frame) (\(frame % 128) into its period), its note at \(note.offset)")
            }
        } else {
            #expect(notes.count <= frames.count && notes.count + xrunCount >= frames.count,
                    "\(notes.count) notes for \(frames.count) hits, \(xrunCount) xruns\n\(dump.output)")
            // Each received note matched, in order, to the next hit at its offset.
            var next = 0
            for note in notes {
                while next < frames.count && frames[next] % 128 != note.offset { next += 1 }
                #expect(next < frames.count, "a note at \(note.offset) into its period matches no hit's frame in order: \(frames.map { $0 % 128 })")
                next += 1
            }
            print("padsPlayThroughJACKWithEachNoteAtItsSoundsFrame: \(xrunCount) xruns during the take, \(frames.count - notes.count) notes lost to the dump")
        }
        // The sound itself starts at those frames in what the brain rendered into JACK's ports.
        let heard = try SoundFile.read("\(dir)/heard.wav")
        // (Its peak over the 32 frames from there at least twice the 32 before: a previous
        // stroke may still ring.)
        func peak(_ range: Range<Int>) -> Float {
            range.clamped(to: 0..<heard.frames).map { max(abs(heard[$0, 0]), abs(heard[$0, 1])) }.max() ?? 0
        }
        for frame in frames.map({ Int($0) }) where frame + 32 < heard.frames {
            let before = peak((frame - 32)..<frame), after = peak(frame..<(frame + 32))
            #expect(after > 1e-3 && after > 2 * before, "frame \(frame): peak \(before) before, \(after) from there")
        }
    }

    static let pythonJACK = Program.runTool("/usr/bin/python3", ["-c", "import jack"]).status == 0

    /// A JACK MIDI client plays the brain through `--midi-in jack`, mixed with a network hit:
    /// each note-on plays the kit's drum on its note (General MIDI's alternatives too: 40 an
    /// electric snare, 35 an acoustic bass drum), with its velocity, its sound as far from the
    /// last as the notes were sent (to the frame), and a note the kit has no drum on is said and
    /// not played.
    @Test(.enabled(if: available && pythonJACK, "needs jackd2 and python3-jack-client (scripts/setup installs them)"))
    func aJACKMIDIClientPlaysTheKit() throws {
        let server = try Server()
        let port = freePort()
        let brain = try #require(BackgroundProcess(server.env([Program.productsFolder + "/drumbrain", "--output", "jack", "--midi-in", "jack",
                                                               "--port", "\(port)", "--no-visual", "--stand-state", "none",
                                                               // one latency throughout: a rise while the notes play
                                                               // would move every later sound
                                                               "--jitter-buffer-ms", "20"])))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        #expect(brain.output.contains("ports out_left, out_right, midi_in;"), "\(brain.output)")
        // A network hit first: the pads and MIDI play together.
        let osc = Program.runTool("oscsend", ["osc.tcp://127.0.0.1:\(port)", "/drum/hit", "sf", "ride", "0.5"])
        #expect(osc.status == 0, "\(osc.stderr)")
        #expect(brain.waitForOutput("hit drum=ride", within: 10), "\(brain.output)")
        // kick, snare, hihat, an electric snare (40), an acoustic bass drum (35), a note the kit
        // has none for (60), crash; 4801 frames apart (not a whole number of periods).
        let sent: [(note: Int, velocity: Int, drum: String?)] = [(36, 127, "kick"), (38, 64, "snare"), (42, 100, "hihat"), (40, 30, "snare"),
                                                                 (35, 90, "kick"), (60, 100, nil), (49, 110, "crash")]
        let spacing: Int64 = 4801
        let sender = try #require(BackgroundProcess(server.env(["/usr/bin/python3", Program.repositoryRoot + "/Tests/Fixtures/midi/jack_send.py",
                                                                "drumbrain:midi_in", "\(spacing)"] + sent.map { "10:\($0.note):\($0.velocity)" })))
        // jackd --no-realtime often has an xrun as a client joins: only those while the notes
        // play count below (the sender waits a second after joining; the brain says each
        // xrun within 0.1 s).
        #expect(sender.waitForOutput("connected", within: 20), "\(sender.output)")
        usleep(400_000)
        let xrunsBefore = brain.output.components("JACK xrun")
        #expect(sender.waitForOutput("done", within: 30), "\(sender.output)")
        let played = sent.filter { $0.drum != nil }
        #expect(eventually(within: 10) { brain.output.components("pad=midi-in") >= played.count }, "\(brain.output)")
        usleep(200_000)
        let xrunCount = brain.output.components("JACK xrun") - xrunsBefore
        #expect(brain.stop(signal: SIGINT) == 0)
        _ = sender.stop(signal: SIGTERM)
        let lines = brain.output.split(separator: "\n").filter { $0.hasPrefix("hit ") && $0.contains("pad=midi-in") }
        func field(_ line: Substring, _ name: String) -> Substring? {
            line.split(separator: " ").first { $0.hasPrefix(name + "=") }?.dropFirst(name.count + 1)
        }
        #expect(lines.map { field($0, "drum").map(String.init) } == played.map(\.drum), "\(brain.output)")
        #expect(lines.compactMap { field($0, "velocity").flatMap { Double($0) } }
                    == played.map { (Double($0.velocity) / 127 * 1000).rounded() / 1000 }, "\(brain.output)")
        #expect(brain.output.contains("MIDI note 60 came in, but the kit has no drum on it"), "\(brain.output)")
        #expect(brain.output.contains("MIDI in (jack): 6 notes played, 1 on notes the kit has no drum on"), "\(brain.output)")
        // The spacing kept: each sound as far after the first as its note was sent (the
        // unmapped note's slot skipped), within 3 frames; and each note dated so, within a
        // frame (21 µs) and the 200 ppm the brain's clock may slew to follow JACK's periods.
        // An xrun while the notes play (a machine too busy for the server's periods) moves
        // JACK's frames against the clock by whole periods: then each sound within 3 frames of
        // its place give or take as many periods as there were xruns, and the dating is not
        // judged (the brain's clock is timed afresh after an xrun).
        let frames = lines.compactMap { field($0, "frame").flatMap { Int64($0) } }
        let strikes = lines.compactMap { field($0, "strike_us").flatMap { Int64($0) } }
        let slots: [Int64] = sent.indices.filter { sent[$0].drum != nil }.map { Int64($0) * spacing }
        #expect(frames.count == slots.count && strikes.count == slots.count, "\(brain.output)")
        let steps = Int64(xrunCount)
        for k in 1..<min(frames.count, strikes.count, slots.count) {
            let error = (frames[k] - frames[0]) - (slots[k] - slots[0])
            #expect((-steps...steps).contains { abs(error - 128 * $0) <= 3 },
                    "note \(k): its sound \(error) frames off its spacing (\(xrunCount) xruns)\n\(brain.output)")
            let dated = (strikes[k] - strikes[0]) - (slots[k] - slots[0]) * 1_000_000 / 48_000
            #expect(xrunCount > 0 || abs(dated) <= 21 + (slots[k] - slots[0]) * 1_000_000 / 48_000 / 5_000,
                    "note \(k): dated \(dated) µs off its spacing\n\(brain.output)")
        }
    }

    /// DrumGizmo played live: its JACK MIDI input (`-i jackmidi`) fed from the brain's
    /// `midi_out` while hits come over the network, its audio (`-o jackaudio`, one port per kit
    /// channel) recorded from the same JACK periods: each hit sounds on its own instrument's
    /// port, every one of them, at one fixed offset from where the brain's own sound starts.
    @Test(.enabled(if: available && pythonJACK && toolAvailable("drumgizmo"),
                   "needs jackd2, python3-jack-client and drumgizmo (scripts/setup installs them)"))
    func drumGizmoPlaysLiveHitsOverJACKMIDI() throws {
        let server = try Server()
        let dir = MIDIPeerTests.folder()
        defer { _ = Program.runTool("rm", ["-rf", dir]) }
        MIDIPeerTests.writeDrumGizmoKit(dir)
        let gizmo = try #require(BackgroundProcess(server.env(["drumgizmo", "-i", "jackmidi", "-I", "midimap=\(dir)/midimap.xml",
                                                               "-o", "jackaudio", "\(dir)/drumkit.xml"])))
        defer { _ = gizmo.stop(signal: SIGTERM) }
        let ports = { Program.runTool("env", ["JACK_DEFAULT_SERVER=\(server.name)", "jack_lsp"]).stdout }
        #expect(eventually(within: 30) { ports().contains("DrumGizmo:drumgizmo_midiin") && ports().contains("DrumGizmo:1-snare") },
                "\(gizmo.output)")
        let port = freePort()
        let brain = try #require(BackgroundProcess(server.env([Program.productsFolder + "/drumbrain", "--output", "jack", "--midi-out", "jack",
                                                               "--port", "\(port)", "--no-visual", "--stand-state", "none"])))
        #expect(brain.waitForOutput("listening on"), "\(brain.output)")
        let connect = Program.runTool("env", ["JACK_DEFAULT_SERVER=\(server.name)", "jack_connect", "drumbrain:midi_out",
                                              "DrumGizmo:drumgizmo_midiin"])
        #expect(connect.status == 0, "\(connect.stderr)")
        let recorder = try #require(BackgroundProcess(server.env(["/usr/bin/python3", Program.repositoryRoot + "/Tests/Fixtures/midi/jack_record.py",
                                                                  "\(dir)/heard.wav", "5", "DrumGizmo:0-kick", "DrumGizmo:1-snare"])))
        #expect(recorder.waitForOutput("recording", within: 20), "\(recorder.output)")
        // One client sends every hit (a process a hit would load the machine).
        let sender = try #require(BackgroundProcess(["/usr/bin/python3", Program.repositoryRoot + "/Tests/Fixtures/midi/osc_hits.py", "\(port)", "0.2"]
                                                    + (0..<6).flatMap { _ in ["kick:0.9", "snare:0.7"] }))
        #expect(sender.waitForOutput("connected", within: 20), "\(sender.output)")
        usleep(500_000)
        let xrunsBefore = brain.output.components("JACK xrun")
        #expect(sender.wait(within: 60) == 0 && sender.output.contains("done"), "\(sender.output)")
        // The xruns while the hits played (the recorder leaving the graph later may cost one).
        usleep(300_000)
        let xrunCount = brain.output.components("JACK xrun") - xrunsBefore
        #expect(recorder.wait(within: 60) == 0 && recorder.output.contains("wrote"), "\(recorder.output)")
        let xruns = xrunCount > 0
        #expect(brain.stop(signal: SIGINT) == 0)
        let hits = brain.output.split(separator: "\n").filter { $0.hasPrefix("hit drum=") }.compactMap { line -> (drum: String, frame: Int)? in
            let fields = line.split(separator: " ")
            guard let drum = fields.first(where: { $0.hasPrefix("drum=") })?.dropFirst(5),
                  let frame = fields.first(where: { $0.hasPrefix("frame=") }).flatMap({ Int($0.dropFirst(6)) }) else { return nil }
            return (String(drum), frame)
        }
        #expect(hits.count == 12, "\(brain.output)")
        // The brain's part, judged whatever the machine: a note written for every hit (below,
        // DrumGizmo's client may lose the notes of a period it misses in an xrun).
        #expect(brain.output.contains("MIDI out (jack): 12 note-ons written"), "\(brain.output)")
        let heard = try SoundFile.read("\(dir)/heard.wav")
        var offsets: [String: [Int]] = [:]
        for (channel, drum) in ["kick", "snare"].enumerated() {
            let alone = AudioBuffer(interleaved: (0..<heard.frames).map { heard[$0, channel] }, channels: 1, sampleRate: heard.sampleRate)
            let onsets = MIDIPeerTests.attackOnsets(alone).map { Int(($0 * heard.sampleRate).rounded()) }
            let frames = hits.filter { $0.drum == drum }.map(\.frame)
            // Its own instrument, every hit: as many onsets on the drum's port as it had hits. (A
            // period DrumGizmo's client missed in an xrun loses its MIDI: then at most one note
            // a missed period, and its timing is not judged.)
            if xruns {
                #expect(onsets.count <= frames.count && onsets.count + xrunCount >= frames.count,
                        "\(drum): \(onsets.count) onsets on DrumGizmo's port for \(frames.count) hits, \(xrunCount) xruns")
            } else {
                #expect(onsets.count == frames.count, "\(drum): \(onsets.count) onsets on DrumGizmo's port for \(frames.count) hits")
            }
            offsets[drum] = zip(onsets, frames).map { $0 - $1 }
        }
        // At the right times: every onset, kick's and snare's, as far after the brain's own
        // sound of its hit as the others (the recording starts elsewhere than the brain's frame
        // 0, so only the spread says): within 1 ms of their median. An xrun moves one of the
        // two clocks by whole periods: then within 1 ms of the median plus or minus that many
        // periods as there were xruns. (A midimap with the notes swapped puts the kick's onsets
        // 200 ms, 75 periods, from the snare's.)
        let all = offsets.values.joined().sorted()
        if !all.isEmpty {
            let median = all[all.count / 2]
            let steps = xrunCount
            let off = all.filter { offset in !(-steps...steps).contains { abs(offset - median - 128 * $0) <= 48 } }
            #expect(off.isEmpty, "DrumGizmo's onsets at \(offsets) frames from the brain's sounds (\(xrunCount) xruns); \(off) off")
        }
        if xruns { print("drumGizmoPlaysLiveHitsOverJACKMIDI: \(xrunCount) xruns during the take, each allowed a period") }
    }
}

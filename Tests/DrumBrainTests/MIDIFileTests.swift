#if canImport(Glibc)
import Glibc
#endif
import BrainCore
import DrumNet
import Synchronization
import DrumAudio
import HydrogenKit
import Testing
import TestSupport

/// The brain's MIDI: each drum's note (the kit's, General MIDI's by name, a Hydrogen kit's own),
/// velocity curves, and the Standard MIDI File it records, read back by a parser of its own.
struct MIDIFileTests {
    static let hydrogenKits = "/usr/share/hydrogen/data/drumkits"

    /// A note's time beyond what ticks hold (a log's clock: 5·10⁹ s, and up to Int64's µs)
    /// overflowed the multiplication to ticks and trapped; it is encoded, held at the longest
    /// delta a file takes, after the earlier notes in order.
    @Test func aNoteTimedPastWhatTicksHoldIsEncodedNotATrap() {
        for late in [Int64(5e15), Int64.max - 1, Int64.max] {
            let bytes = MIDIFileRecorder.encode([MIDIFileRecorder.Note(micros: 0, note: 36, velocity: 100, channel: 9),
                                                MIDIFileRecorder.Note(micros: late, note: 38, velocity: 90, channel: 9)])
            #expect(Array(bytes.prefix(4)) == Array("MThd".utf8))
            // Both note-ons are there, the kick's before the snare's.
            let on36 = bytes.indices.first { bytes[$0] == 0x99 && $0 + 1 < bytes.count && bytes[$0 + 1] == 36 }
            let on38 = bytes.indices.first { bytes[$0] == 0x99 && $0 + 1 < bytes.count && bytes[$0 + 1] == 38 }
            #expect(on36 != nil && on38 != nil && on36! < on38!, "\(late)")
        }
    }

    /// A file's bytes (nil if it cannot be read).
    static func bytes(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var out: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { return out }
            out += chunk[0..<n]
        }
    }

    static func write(_ text: String, to path: String) {
        let file = fopen(path, "w")!
        fputs(text, file)
        fclose(file)
    }
    /// A Standard MIDI File's notes: (µs, channel, note, velocity) of each note-on, and of each
    /// note-off, read by the rules of the format (header, MTrk, running status, meta events,
    /// variable-length deltas), with the file's tempo.
    struct Parsed {
        var division = 0
        var ons: [(micros: Double, channel: UInt8, note: UInt8, velocity: UInt8)] = []
        var offs: [(micros: Double, note: UInt8)] = []
        var endOfTrack = false
    }

    static func parse(_ bytes: [UInt8]) -> Parsed? {
        guard bytes.count >= 22, Array(bytes[0..<4]) == Array("MThd".utf8), bytes[9] == 1 || bytes[9] == 0 else { return nil }
        var parsed = Parsed()
        parsed.division = Int(bytes[12]) << 8 | Int(bytes[13])
        guard Array(bytes[14..<18]) == Array("MTrk".utf8) else { return nil }
        let length = Int(bytes[18]) << 24 | Int(bytes[19]) << 16 | Int(bytes[20]) << 8 | Int(bytes[21])
        guard bytes.count == 22 + length else { return nil }
        var i = 22, ticks = 0, tempo = 500_000.0, micros = 0.0, status: UInt8 = 0
        func variable() -> Int {
            var value = 0
            while i < bytes.count {
                let byte = bytes[i]
                i += 1
                value = value << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 { break }
            }
            return value
        }
        while i < bytes.count {
            let delta = variable()
            ticks += delta
            micros += Double(delta) * tempo / Double(parsed.division)
            if bytes[i] & 0x80 != 0 { status = bytes[i]; i += 1 }
            if status == 0xFF {
                let type = bytes[i]
                i += 1
                let size = variable()
                if type == 0x51 { tempo = Double(Int(bytes[i]) << 16 | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2])) }
                if type == 0x2F { parsed.endOfTrack = true }
                i += size
            } else if status & 0xF0 == 0x90 && bytes[i + 1] > 0 {
                parsed.ons.append((micros, status & 0x0F, bytes[i], bytes[i + 1]))
                i += 2
            } else if status & 0xF0 == 0x80 || status & 0xF0 == 0x90 {
                parsed.offs.append((micros, bytes[i]))
                i += 2
            } else {
                return nil
            }
        }
        return parsed
    }

    @Test func aFileHoldsEveryNoteAtItsTimeWithItsOffBeforeTheNextSameNote() throws {
        let notes: [MIDIFileRecorder.Note] = [
            .init(micros: 1_000_000, note: 38, velocity: 100, channel: 9),
            .init(micros: 1_050_000, note: 38, velocity: 40, channel: 9),   // 50 ms on: the first ends before it
            .init(micros: 1_000_000, note: 36, velocity: 127, channel: 9),  // a unison, added out of order
            .init(micros: 2_500_250, note: 42, velocity: 1, channel: 9),
        ]
        let parsed = try #require(Self.parse(MIDIFileRecorder.encode(notes)))
        #expect(parsed.endOfTrack)
        #expect(parsed.ons.map(\.note) == [38, 36, 38, 42])
        // To the tick (0.26 ms) or finer.
        for (on, expected) in zip(parsed.ons, [1_000_000.0, 1_000_000, 1_050_000, 2_500_250]) {
            #expect(abs(on.micros - expected) <= 261, "\(on)")
            #expect(on.channel == 9)
        }
        #expect(parsed.ons.map(\.velocity) == [100, 127, 40, 1])
        let snareOffs = parsed.offs.filter { $0.note == 38 }.map(\.micros)
        #expect(snareOffs.count == 2 && snareOffs[0] < 1_050_000 && snareOffs[0] > 1_049_000)
        #expect(abs(snareOffs[1] - 1_150_000) <= 261)
    }

    @Test func recordingRewritesAWholeFileAsItGoesAndAtTheEnd() throws {
        let path = "/tmp/drumtest-midi-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mid"
        defer { unlink(path) }
        let recorder = MIDIFileRecorder(path: path, flushMicros: 500_000)
        try recorder.add(.init(micros: 0, note: 36, velocity: 90, channel: 9), nowMicros: 10_000_000)
        // Written at once: a crash now leaves a playable file with that note.
        #expect(Self.parse(Self.bytes(path) ?? [])?.ons.count == 1)
        try recorder.add(.init(micros: 200_000, note: 38, velocity: 90, channel: 9), nowMicros: 10_200_000)
        #expect(Self.parse(Self.bytes(path) ?? [])?.ons.count == 1, "not rewritten within 0.5 s")
        try recorder.add(.init(micros: 600_000, note: 38, velocity: 90, channel: 9), nowMicros: 10_600_000)
        #expect(Self.parse(Self.bytes(path) ?? [])?.ons.count == 3)
        try recorder.add(.init(micros: 700_000, note: 42, velocity: 90, channel: 9), nowMicros: 10_700_000)
        try recorder.finish()
        #expect(Self.parse(Self.bytes(path) ?? [])?.ons.count == 4)
        #expect(access(path + ".part", F_OK) != 0, "no part file is left")
        // A folder that cannot be written is a clear error naming the file.
        let refused = MIDIFileRecorder(path: "/nonexistent-folder/take.mid")
        #expect(throws: MIDIFileError.self) { try refused.add(.init(micros: 0, note: 36, velocity: 1, channel: 9), nowMicros: 0) }
    }

    @Test func drumsGetTheirKitsNotesOrGeneralMIDIsByName() throws {
        let bundled = try KitLoader.load(Program.repositoryRoot + "/Samples/kit/kit.json")
        let notes = Dictionary(uniqueKeysWithValues: bundled.drums.map { ($0.name, $0.midiNote) })
        #expect(notes == ["kick": 36, "snare": 38, "hihat": 42, "racktom": 48, "floortom": 43, "crash": 49, "ride": 51])
        for (name, note) in [("hat-open", 46), ("hat-pedal", 44), ("tom-floor", 43), ("tom-hi", 48), ("ride-bell", 53),
                             ("kick-2", 36), ("cowbell", 56), ("rim", 37), ("tom", 45)] {
            #expect(GeneralMIDI.note(forDrumNamed: name) == UInt8(note), "\(name)")
        }
        #expect(GeneralMIDI.note(forDrumNamed: "zap") == nil)
        // A Hydrogen kit's own notes: GMRockKit's midiOutNote of each instrument, read from its
        // XML here without the loader.
        let xml = Program.contents(Self.hydrogenKits + "/GMRockKit/drumkit.xml")
        HydrogenKitLoader.register()
        let gm = try KitLoader.load(Self.hydrogenKits + "/GMRockKit")
        let written = xml.split(separator: "<midiOutNote>").dropFirst().compactMap { UInt8($0.prefix { $0.isNumber }) }
        #expect(written.count == gm.drums.count && gm.drums.map(\.note) == written.map { Optional($0) })
    }

    @Test func velocityCurvesMapTheirFamilies() {
        #expect(GeneralMIDI.velocity(1) == 127 && GeneralMIDI.velocity(0) == 1 && GeneralMIDI.velocity(0.5) == 64)
        #expect(GeneralMIDI.velocity(.nan) == 1 && GeneralMIDI.velocity(7) == 127)
        // log lifts a soft hit, exp holds it down; both keep the ends.
        // At 0.2 (linear 25): log10(1 + 9 × 0.2) × 127 = 57, (10^0.2 − 1) / 9 × 127 = 8.
        #expect(GeneralMIDI.velocity(0.2, curve: .log) == 57 && GeneralMIDI.velocity(0.2, curve: .exp) == 8)
        #expect(GeneralMIDI.velocity(1, curve: .log) == 127 && GeneralMIDI.velocity(1, curve: .exp) == 127)
        var last: UInt8 = 0
        for step in 0...100 {
            let v = GeneralMIDI.velocity(Float(step) / 100, curve: .exp)
            #expect(v >= last)
            last = v
        }
    }

    /// MIDI in: a note plays the drum on it, else the one General MIDI says it stands for;
    /// a velocity comes back through the inverse of its curve (in and out again, the same).
    @Test func notesThatComeInFindTheirDrumsAndVelocities() {
        let notes: [UInt8?] = [36, 38, 42, 48, 43, 49, 51, nil]
        #expect(GeneralMIDI.drum(forNote: 38, notes: notes) == 1)
        #expect(GeneralMIDI.drum(forNote: 40, notes: notes) == 1)  // electric snare
        #expect(GeneralMIDI.drum(forNote: 35, notes: notes) == 0)  // acoustic bass drum
        #expect(GeneralMIDI.drum(forNote: 46, notes: notes) == 2)  // open hi-hat
        #expect(GeneralMIDI.drum(forNote: 57, notes: notes) == 5)  // crash 2
        #expect(GeneralMIDI.drum(forNote: 59, notes: notes) == 6)  // ride 2
        #expect(GeneralMIDI.drum(forNote: 60, notes: notes) == nil)
        #expect(GeneralMIDI.drum(forNote: 40, notes: [40, 38]) == 0)  // its own drum first
        for curve in GeneralMIDI.VelocityCurve.allCases {
            for midi in UInt8(1)...127 {
                #expect(GeneralMIDI.velocity(GeneralMIDI.hitVelocity(midi: midi, curve: curve), curve: curve) == midi, "\(curve) \(midi)")
            }
        }
        #expect(GeneralMIDI.hitVelocity(midi: 0) > 0 && GeneralMIDI.hitVelocity(midi: 200) == 1)
        // Only note-ons of velocity 1…127 with data bytes in range are notes.
        #expect(MIDIInEvent.noteOn(status: 0x99, note: 38, velocity: 100, micros: 5)
                    == MIDIInEvent(note: 38, velocity: 100, channel: 9, micros: 5))
        for (status, note, velocity) in [(0x89, 38, 100), (0x99, 38, 0), (0xB9, 38, 100), (0x99, 128, 100), (0x99, 38, 128)] as [(UInt8, UInt8, UInt8)] {
            #expect(MIDIInEvent.noteOn(status: status, note: note, velocity: velocity, micros: 0) == nil)
        }
    }

    /// MIDI in as hits: pad midi-in, the drum by name, dated by the note; unmapped notes counted
    /// and said once each.
    @Test func midiInputMakesHitsOfItsNotes() {
        let said = Mutex<[UInt8]>([])
        let input = MIDIInput(names: ["kick", "snare"], notes: [36, 38], curve: .linear, inject: { _ in },
                              onUnmapped: { note in said.withLock { $0.append(note) } })
        let hits = input.hits([MIDIInEvent(note: 38, velocity: 127, channel: 9, micros: 1_000),
                               MIDIInEvent(note: 60, velocity: 64, channel: 0, micros: 1_100),
                               MIDIInEvent(note: 60, velocity: 64, channel: 0, micros: 1_200),
                               MIDIInEvent(note: 35, velocity: 64, channel: 0, micros: 5_000)], nowMicros: 3_000)
        #expect(hits.map(\.hit.drum) == ["snare", "kick"])
        #expect(hits.map(\.hit.velocity) == [1, Float(64) / 127])
        #expect(hits.map(\.padName) == ["midi-in", "midi-in"] && hits.allSatisfy { $0.connectionID == MIDIInput.connectionID })
        #expect(hits.map(\.latencyMicros) == [2_000, 0])  // a note dated ahead plays now
        #expect(hits.map(\.strikeMicros) == [1_000, 3_000])
        #expect(input.played == 2 && input.unmapped == 2 && said.withLock { $0 } == [60])
        input.setKit(names: ["conga"], notes: [60])
        #expect(input.hits([MIDIInEvent(note: 60, velocity: 1, channel: 0, micros: 0)], nowMicros: 0).map(\.hit.drum) == ["conga"])
    }

    @Test func aKitsNoteIsCheckedAndShownByCheckKit() throws {
        let folder = "/tmp/drumtest-notes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(folder, 0o755)
        defer { _ = Program.runTool("rm", ["-rf", folder]) }
        let sample = Program.repositoryRoot + "/Samples/kit/snare.wav"
        for (note, ok) in [("40", true), ("128", false), ("\"x\"", false), ("38.5", false)] {
            let json = "{\"name\": \"n\", \"drums\": [{\"name\": \"snare\", \"sample\": \"\(sample)\", \"note\": \(note)}]}"
            Self.write(json, to: folder + "/kit.json")
            let check = Program.run("drumbrain", ["check-kit", folder + "/kit.json"])
            if ok {
                #expect(check.status == 0 && check.stdout.contains("snare: azimuth 0.0°, gain 1.000, MIDI note 40;"), "\(check.stdout)")
            } else {
                #expect(check.status != 0 && check.stderr.contains("\"note\" must be a MIDI note number 0…127"), "\(note): \(check.stderr)")
            }
        }
        let bundled = Program.run("drumbrain", ["check-kit", Program.repositoryRoot + "/Samples/kit"])
        #expect(bundled.stdout.contains("kick: azimuth") && bundled.stdout.contains("MIDI note 36 (General MIDI)"), "\(bundled.stdout)")
    }
}

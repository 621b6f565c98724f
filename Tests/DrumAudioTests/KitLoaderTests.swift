#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import DrumAudio

/// A folder with WAV files and a kit.json, made for one test.
struct KitFolder {
    let path: String

    init(json: String, samples: [(name: String, rate: Int, channels: Int, frames: Int)]) throws {
        path = "/tmp/drumkit-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(path, 0o755)
        for sample in samples {
            let data = (0..<(sample.frames * sample.channels)).map { Float($0 % 100) / 200 }
            try data.withUnsafeBufferPointer {
                try SoundFile.writeWAV(path + "/" + sample.name, interleaved: $0, channels: sample.channels,
                                       sampleRate: sample.rate, pcm16: true)
            }
        }
        let file = fopen(path + "/kit.json", "w")!
        fputs(json, file)
        fclose(file)
    }
}

struct KitLoaderTests {
    @Test func loadsLayersPansAndResamplesTo48k() throws {
        let folder = try KitFolder(json: """
            {"name": "Mini", "drums": [
              {"name": "kick", "sample": "kick.wav", "azimuth": 0, "gain": 0.9},
              {"name": "hat-closed", "azimuth": -45, "layers": [
                {"sample": "soft.wav", "min": 0.0, "max": 0.5},
                {"sample": "hard.wav", "min": 0.5, "max": 1.0}]}
            ]}
            """, samples: [("kick.wav", 44_100, 1, 44_100), ("soft.wav", 48_000, 2, 4_800), ("hard.wav", 48_000, 1, 9_600)])
        let kit = try KitLoader.load(folder.path)  // the folder works as well as the file
        #expect(kit.name == "Mini" && kit.drums.map(\.name) == ["kick", "hat-closed"])
        let kick = kit.drums[0].layers[0].buffer
        #expect(kick.sampleRate == 48_000 && abs(kick.frames - 48_000) <= 2)  // 1 s at 44.1 kHz → 1 s at 48 kHz
        #expect(kit.drums[0].gain == 0.9)
        let hat = kit.drums[1]
        #expect(hat.layer(for: 0.2).source == "soft.wav" && hat.layer(for: 0.9).source == "hard.wav")
        #expect(hat.layers[0].buffer.channels == 2)
        #expect(abs(hat.panGains.left - 0.9239) < 1e-4 && abs(hat.panGains.right - 0.3827) < 1e-4)
    }

    @Test func missingSampleNamesKitDrumSampleAndFolder() throws {
        let folder = try KitFolder(json: #"{"name": "K", "drums": [{"name": "snare", "sample": "sn.wav"}]}"#, samples: [])
        #expect(throws: DrumAudioError.sampleNotFound(kit: folder.path + "/kit.json", drum: "snare", sample: "sn.wav", lookedIn: folder.path)) {
            try KitLoader.load(folder.path + "/kit.json")
        }
        let message = DrumAudioError.sampleNotFound(kit: "kit.json", drum: "snare", sample: "sn.wav", lookedIn: "/path/to/kit").description
        #expect(message == "kit.json: drum \"snare\": sample \"sn.wav\" not found (looked in /path/to/kit)")
    }

    @Test(arguments: [
        (#"{"drums": []}"#, "missing \"name\""),
        (#"{"name": "K"}"#, "missing \"drums\""),
        (#"{"name": "K", "drums": [{"name": "Snare", "sample": "a.wav"}]}"#, "lower-case word"),
        (#"{"name": "K", "drums": [{"name": "snare", "sample": "a.wav", "azimuth": 120}]}"#, "outside -90…90"),
        (#"{"name": "K", "drums": [{"name": "snare", "sample": "a.wav"}, {"name": "snare", "sample": "a.wav"}]}"#, "appears twice"),
        (#"{"name": "K", "drums": [{"name": "snare"}]}"#, "needs a \"sample\" or \"layers\""),
        (#"{"name": "K", "drums": [{"name": "snare", "layers": [{"sample": "a.wav", "min": 0.8, "max": 0.2}]}]}"#, "0 ≤ min ≤ max ≤ 1"),
        (#"{"name": "K", "drums": [ "#, "cannot read the kit"),
    ])
    func badKitsSayWhatIsWrong(json: String, expected: String) throws {
        let folder = try KitFolder(json: json, samples: [("a.wav", 48_000, 1, 100)])
        do {
            _ = try KitLoader.load(folder.path)
            Issue.record("loaded a bad kit")
        } catch {
            #expect(error.description.contains(expected), "\(error)")
            #expect(error.description.hasPrefix(folder.path + "/kit.json"))
        }
    }

    @Test func unreadableSampleCarriesLibsndfilesMessage() throws {
        let folder = try KitFolder(json: #"{"name": "K", "drums": [{"name": "kick", "sample": "kick.wav"}]}"#, samples: [])
        let file = fopen(folder.path + "/kick.wav", "w")!
        fputs("not audio at all", file)
        fclose(file)
        do {
            _ = try KitLoader.load(folder.path)
            Issue.record("loaded a text file as audio")
        } catch {
            #expect(error.description.hasPrefix(folder.path + "/kit.json: drum \"kick\": cannot read " + folder.path + "/kick.wav: "))
        }
    }

    @Test(arguments: [("Hat Closed", "hat-closed"), ("Kick  (Long)", "kick-long"), ("--Snare__2--", "snare-2"),
                      ("TR-808 Clap", "tr-808-clap"), ("Ride Bell", "ride-bell")])
    func instrumentNamesBecomeDrumNames(instrument: String, drum: String) {
        #expect(KitLoader.drumName(from: instrument) == drum)
        #expect(KitLoader.isDrumName(drum))
    }
}

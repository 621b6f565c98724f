#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import HydrogenKit
import Testing
import TestSupport
@testable import DrumAudio

let hydrogenKits = "/usr/share/hydrogen/data/drumkits"
let hydrogenDataInstalled = access(hydrogenKits + "/GMRockKit/drumkit.xml", R_OK) == 0

struct HydrogenKitTests {
    // KitLoader reads Hydrogen kits through the loader the brain registers.
    init() { HydrogenKitLoader.register() }

    @Test func oldAndNewLayoutsMapNamesPanGainAndLayers() throws {
        let folder = try KitFolder(json: "{}", samples: [("a.wav", 48_000, 1, 480), ("b.wav", 48_000, 1, 480)])
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <drumkit_info xmlns="http://www.hydrogen-music.org/drumkit">
             <name>Tiny</name>
             <instrumentList>
              <instrument><id>0</id><name>Hat Closed</name><volume>0.5</volume><gain>0.8</gain>
               <pan_L>1</pan_L><pan_R>0.5</pan_R>
               <layer><filename>a.wav</filename><min>0</min><max>0.5</max><gain>1</gain></layer>
               <layer><filename>b.wav</filename><min>0.5</min><max>1</max><gain>0.5</gain></layer>
              </instrument>
              <instrument><id>1</id><name>Kick (Long)</name><volume>1</volume><pan>0.25</pan><gain>1</gain>
               <instrumentComponent><component_id>0</component_id><gain>1</gain>
                <layer><filename>a.wav</filename><min>0</min><max>1</max><gain>1</gain></layer>
               </instrumentComponent>
              </instrument>
              <instrument><id>2</id><name>Empty</name><volume>1</volume></instrument>
             </instrumentList>
            </drumkit_info>
            """
        let file = fopen(folder.path + "/drumkit.xml", "w")!
        fputs(xml, file)
        fclose(file)
        unlink(folder.path + "/kit.json")
        let kit = try KitLoader.load(folder.path)
        #expect(kit.name == "Tiny" && kit.drums.map(\.name) == ["hat-closed", "kick-long"])
        let hat = kit.drums[0]
        #expect(abs(hat.azimuth - -45) < 1e-9 && abs(hat.gain - 0.4) < 1e-9)
        #expect(hat.layer(for: 0.2).source == "a.wav" && hat.layer(for: 0.9).source == "b.wav")
        #expect(hat.layer(for: 0.9).buffer.sampleRate == 48_000)
        // b.wav's layer gain of 0.5 is in its samples.
        let (loud, quiet) = (kit.drums[0].layers[0].buffer, kit.drums[0].layers[1].buffer)
        let peakA = (0..<loud.frames).map { abs(loud[$0, 0]) }.max()!, peakB = (0..<quiet.frames).map { abs(quiet[$0, 0]) }.max()!
        #expect(abs(peakB / peakA - 0.5) < 0.02)
        #expect(abs(kit.drums[1].azimuth - 22.5) < 1e-9)
    }

    @Test(.enabled(if: hydrogenDataInstalled, "needs Debian's hydrogen-data (apt-get install hydrogen-data)"),
          arguments: ["GMRockKit", "TR808EmulationKit"])
    func debiansKitsLoadAndEveryInstrumentSounds(name: String) throws {
        let kit = try KitLoader.load(hydrogenKits + "/" + name)
        #expect(kit.drums.count >= 15)
        for drum in kit.drums {
            let (out, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: drum.name, velocity: 1)])
            let peak = out.map(abs).max() ?? 0
            #expect(peak > 0.01, "\(name): \(drum.name) is silent")
        }
    }

    @Test(.enabled(if: hydrogenDataInstalled, "needs Debian's hydrogen-data (apt-get install hydrogen-data)"))
    func gmRockKitPlaysItsVelocityLayers() throws {
        let kit = try KitLoader.load(hydrogenKits + "/GMRockKit/drumkit.xml")
        let snare = try #require(kit.drums.first { $0.name == "snare" })
        #expect(snare.layers.count >= 4)
        #expect(snare.layer(for: 0.1).source != snare.layer(for: 0.95).source)
        let check = Program.run("drumbrain", ["check-kit", hydrogenKits + "/GMRockKit"])
        #expect(check.status == 0)
        #expect(check.stdout.contains("kit \"GMRockKit\"") && check.stdout.contains("  hat-closed: azimuth -46.8°"))
    }

    /// Found by the kit fuzzer (Fuzz/corpus/kit/hydrogen-non-utf8-name): an element name that is
    /// not UTF-8 trapped inside Foundation's XMLParser, crashing `drumbrain check-kit`.
    @Test func aFileThatIsNotUTF8IsRefusedWithAnError() throws {
        let folder = try KitFolder(json: "{}", samples: [])
        let path = folder.path + "/drumkit.xml"
        let file = fopen(path, "w")!
        let bytes: [UInt8] = [0x3C, 0xFF, 0x49, 0x00, 0x0E, 0x3E, 0x25, 0x3C, 0x3C, 0x3C, 0x3C, 0x33, 0x00]
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
        #expect {
            try HydrogenKitLoader.load(path, sampleRate: 48_000)
        } throws: { "\($0)".contains("UTF-8") }
    }

    /// Found by the kit fuzzer (Fuzz/corpus/kit/hydrogen-empty-processing-instruction): a
    /// processing instruction without data (`<?xml?>`) crashed Foundation's XMLParser (strlen of
    /// NULL). Those are refused; the usual declaration still loads.
    @Test(arguments: ["<?xml?>\n<drumkit_info></drumkit_info>", "<?xml version=\"1.0\"?><drumkit_info><?pi ?></drumkit_info>",
                      "<drumkit_info></drumkit_info><?end"])
    func processingInstructionsWithoutDataAreRefused(xml: String) throws {
        let folder = try KitFolder(json: "{}", samples: [])
        let path = folder.path + "/drumkit.xml"
        let file = fopen(path, "w")!
        fputs(xml, file)
        fclose(file)
        #expect {
            try HydrogenKitLoader.load(path, sampleRate: 48_000)
        } throws: { "\($0)".contains("processing instruction") }
        #expect(HydrogenKitLoader.emptyProcessingInstruction(in: Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<a/>".utf8)) == nil)
    }
}

/// Hydrogen's oldest kit form, and kits with files missing (issue 30): what has its sample plays,
/// what lacks one is left out and said, and every kit Debian installs loads and sounds.
struct HydrogenKitFormsTests {
    init() { HydrogenKitLoader.register() }

    static func write(_ xml: String, in folder: KitFolder) {
        let file = fopen(folder.path + "/drumkit.xml", "w")!
        fputs(xml, file)
        fclose(file)
        unlink(folder.path + "/kit.json")
    }

    /// As HardElectro1 writes it: each instrument names its one sample with `<filename>`, with
    /// `<volume>`, `<isMuted>` and `pan_L`/`pan_R` beside it.
    @Test func theOldestFormLoadsAsTheCurrentOneDoes() throws {
        let folder = try KitFolder(json: "{}", samples: [("k.wav", 48_000, 1, 480), ("s.wav", 44_100, 2, 441)])
        Self.write("""
            <drumkit_info><name>Old</name><instrumentList>
             <instrument><id>0</id><filename>k.wav</filename><name>Kick 1</name><volume>1</volume>
              <isMuted>false</isMuted><pan_L>1</pan_L><pan_R>1</pan_R><exclude /></instrument>
             <instrument><id>1</id><filename>s.wav</filename><name>Snare</name><volume>0.88</volume>
              <isMuted>false</isMuted><pan_L>0.5</pan_L><pan_R>1</pan_R><exclude /></instrument>
             <instrument><id>2</id><filename>k.wav</filename><name>Spare</name><isMuted>true</isMuted></instrument>
            </instrumentList></drumkit_info>
            """, in: folder)
        let kit = try KitLoader.load(folder.path)
        // A muted instrument is silent in Hydrogen too: left out, and said.
        #expect(kit.drums.map(\.name) == ["kick-1", "snare"])
        #expect(kit.leftOut == ["instrument \"Spare\": muted in the kit (<isMuted>); left out"])
        #expect(kit.drums[0].layers.count == 1 && kit.drums[0].layers[0].source == "k.wav")
        #expect(abs(kit.drums[1].gain - 0.88) < 1e-9 && abs(kit.drums[1].azimuth - 45) < 1e-9)
        #expect(kit.drums[1].layers[0].buffer.sampleRate == 48_000 && kit.drums[1].layers[0].buffer.channels == 2)
    }

    /// A missing file leaves out its layer; an instrument with none left is left out; each is
    /// said once, by file, and check-kit lists it. A kit with nothing left is still an error.
    @Test func aMissingSampleLeavesOutOnlyWhatNeedsIt() throws {
        let folder = try KitFolder(json: "{}", samples: [("a.wav", 48_000, 1, 480)])
        Self.write("""
            <drumkit_info><name>Holes</name><instrumentList>
             <instrument><id>0</id><name>Snare</name>
              <layer><filename>a.wav</filename><min>0</min><max>0.5</max></layer>
              <layer><filename>gone.flac</filename><min>0.5</min><max>1</max></layer></instrument>
             <instrument><id>1</id><name>Cowbell</name><filename>gone.flac</filename></instrument>
             <instrument><id>2</id><name>Kick</name><filename>a.wav</filename></instrument>
            </instrumentList></drumkit_info>
            """, in: folder)
        let kit = try KitLoader.load(folder.path)
        #expect(kit.drums.map(\.name) == ["snare", "kick"])
        #expect(kit.drums[0].layers.count == 1 && kit.drums[0].layer(for: 0.9).source == "a.wav")
        #expect(kit.leftOut.count == 2, "\(kit.leftOut)")
        #expect(kit.leftOut.first { $0.hasPrefix("sample gone.flac") }?.contains("not found") == true)
        #expect(kit.leftOut.contains { $0.hasPrefix("instrument \"Cowbell\"") })
        let check = Program.run("drumbrain", ["check-kit", folder.path + "/drumkit.xml"])
        #expect(check.status == 0 && check.stdout.contains("left out: sample gone.flac"), "\(check.stdout)\(check.stderr)")

        Self.write("""
            <drumkit_info><name>Nothing</name><instrumentList>
             <instrument><id>0</id><name>Cowbell</name><filename>gone.flac</filename></instrument>
            </instrumentList></drumkit_info>
            """, in: folder)
        #expect(throws: DrumAudioError.self) { try KitLoader.load(folder.path) }
        let refused = Program.run("drumbrain", ["check-kit", folder.path])
        #expect(refused.status != 0 && refused.stderr.contains("gone.flac"), "\(refused.stderr)")
    }

    /// The instruments of a drumkit.xml not muted and with at least one sample file present,
    /// found without the loader: each `<instrument>`'s `<isMuted>` and `<filename>`s.
    static func playableInstruments(_ kitFolder: String) throws -> Int {
        let xml = try String(contentsOfFile: kitFolder + "/drumkit.xml", encoding: .utf8)
        var count = 0
        for block in xml.components(separatedBy: "<instrument>").dropFirst() {
            let body = block.components(separatedBy: "</instrument>")[0]
            if body.contains("<isMuted>true</isMuted>") { continue }
            let files = body.components(separatedBy: "<filename>").dropFirst().map { $0.components(separatedBy: "</filename>")[0] }
            if files.contains(where: { access(kitFolder + "/" + $0, R_OK) == 0 }) { count += 1 }
        }
        return count
    }

    static var installedKits: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: hydrogenKits)) ?? [])
            .filter { access(hydrogenKits + "/" + $0 + "/drumkit.xml", R_OK) == 0 }.sorted()
    }

    /// Every kit Debian installs (hydrogen-data, hydrogen-drumkits): it loads, every instrument with
    /// a sample file present is a drum, and each drum sounds when hit.
    @Test(.enabled(if: hydrogenDataInstalled, "needs Debian's hydrogen-data and hydrogen-drumkits"))
    func everyInstalledKitLoadsAndEveryDrumWithASampleSounds() throws {
        let kits = Self.installedKits
        #expect(kits.count >= 2)
        for name in kits {
            let folder = hydrogenKits + "/" + name
            let kit = try KitLoader.load(folder)
            #expect(kit.drums.count == (try Self.playableInstruments(folder)), "\(name): \(kit.leftOut)")
            for drum in kit.drums {
                let (out, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: drum.name, velocity: 1)])
                #expect((out.map(abs).max() ?? 0) > 0.001, "\(name): \(drum.name) is silent")
            }
        }
    }
}

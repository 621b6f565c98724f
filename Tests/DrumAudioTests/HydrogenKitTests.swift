#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport
@testable import DrumAudio

let hydrogenKits = "/usr/share/hydrogen/data/drumkits"
let hydrogenDataInstalled = access(hydrogenKits + "/GMRockKit/drumkit.xml", R_OK) == 0

struct HydrogenKitTests {
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
            let (out, _) = OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: drum.name, velocity: 1)])
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

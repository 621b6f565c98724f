// libFuzzer target: the kit loaders (DrumAudio). The first byte picks the loader: even, the JSON
// kit (kit.json); odd, the Hydrogen drumkit.xml. The rest is written to that file in a temporary
// folder beside two tiny samples (a.wav mono 48 kHz, b.wav stereo 44.1 kHz) and loaded as
// `drumbrain --kit` does. Built with the DrumAudio sources by scripts/fuzz.
import Foundation

/// The folder of the kit files, made once per process with its two samples.
let kitFolder: String = {
    let folder = NSTemporaryDirectory() + "kitfuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    func wav(_ name: String, channels: Int, rate: Int, frames: Int) {
        let samples = (0..<(frames * channels)).map { Float(($0 * 1000) % 30000) / 32768 }
        do {
            try samples.withUnsafeBufferPointer {
                try SoundFile.writeWAV(folder + "/" + name, interleaved: $0, channels: channels, sampleRate: rate,
                                       pcm16: true)
            }
        } catch {
            fatalError("kitfuzz: cannot write its sample \(name): \(error)")
        }
    }
    wav("a.wav", channels: 1, rate: 48_000, frames: 32)
    wav("b.wav", channels: 2, rate: 44_100, frames: 32)
    return folder
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func kitFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let hydrogen = data[0] & 1 == 1
    let file = kitFolder + (hydrogen ? "/drumkit.xml" : "/kit.json")
    _ = FileManager.default.createFile(atPath: file, contents: Data(bytes: data + 1, count: size - 1))
    let kit = try? (hydrogen ? HydrogenKitLoader.load(file, sampleRate: 48_000)
                             : KitLoader.load(file, sampleRate: 48_000))
    if let kit {
        for drum in kit.drums {
            precondition((-90...90).contains(drum.azimuth) && (0...4).contains(drum.gain),
                         "drum \(drum.name): azimuth \(drum.azimuth), gain \(drum.gain)")
            for velocity in [Float(0), 0.5, 1] { _ = drum.layer(for: velocity) }
        }
    }
    return 0
}

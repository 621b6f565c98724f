import Foundation

/// Loads kits: the JSON form of docs/architecture.md, Kits. Control-side only (file I/O, allocation).
public enum KitLoader {
    /// Loads the kit at `path`: a `kit.json` or a Hydrogen `drumkit.xml`, or a folder holding
    /// one, with every sample read through libsndfile and converted to `sampleRate`.
    public static func load(_ path: String, sampleRate: Double = 48_000) throws(DrumAudioError) -> Kit {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw .unreadableKit(path: path, reason: "no such file or folder")
        }
        var file = path
        if isFolder.boolValue {
            let json = (path as NSString).appendingPathComponent("kit.json")
            let hydrogen = (path as NSString).appendingPathComponent("drumkit.xml")
            file = !FileManager.default.fileExists(atPath: json) && FileManager.default.fileExists(atPath: hydrogen)
                ? hydrogen : json
        }
        if file.hasSuffix(".xml") { return try HydrogenKitLoader.load(file, sampleRate: sampleRate) }
        return try loadJSON(file, sampleRate: sampleRate)
    }

    static func loadJSON(_ file: String, sampleRate: Double) throws(DrumAudioError) -> Kit {
        let root: Any
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: file))
            root = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw .unreadableKit(path: file, reason: "\(error.localizedDescription)")
        }
        guard let object = root as? [String: Any] else {
            throw .badKit(path: file, detail: "the top level must be an object with \"name\" and \"drums\"")
        }
        guard let name = object["name"] as? String, !name.isEmpty else {
            throw .badKit(path: file, detail: "missing \"name\" (a string, such as \"Default\")")
        }
        guard let drumList = object["drums"] as? [[String: Any]], !drumList.isEmpty else {
            throw .badKit(path: file, detail: "missing \"drums\" (a non-empty list of drum objects)")
        }
        var drums: [Kit.Drum] = []
        for (index, entry) in drumList.enumerated() {
            guard let drumName = entry["name"] as? String, isDrumName(drumName) else {
                throw .badKit(path: file, detail: "drum \(index + 1): \"name\" must be a lower-case word such as snare or hat-closed")
            }
            guard !drums.contains(where: { $0.name == drumName }) else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\" appears twice")
            }
            let azimuth = (entry["azimuth"] as? NSNumber)?.doubleValue ?? 0
            guard (-90...90).contains(azimuth) else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\": azimuth \(azimuth) is outside -90…90 degrees")
            }
            let gain = (entry["gain"] as? NSNumber)?.doubleValue ?? 1
            guard gain >= 0 && gain <= 4 else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\": gain \(gain) is outside 0…4")
            }
            var note: UInt8?
            if let value = entry["note"] {
                guard let number = value as? NSNumber, let whole = Int(exactly: number.doubleValue), (0...127).contains(whole)
                else {
                    throw .badKit(path: file, detail: "drum \"\(drumName)\": \"note\" must be a MIDI note number 0…127")
                }
                note = UInt8(whole)
            }
            var layerSpecs: [(sample: String, min: Double, max: Double)] = []
            if let layers = entry["layers"] as? [[String: Any]], !layers.isEmpty {
                for layer in layers {
                    guard let sample = layer["sample"] as? String else {
                        throw .badKit(path: file, detail: "drum \"\(drumName)\": every layer needs a \"sample\"")
                    }
                    let low = (layer["min"] as? NSNumber)?.doubleValue ?? 0
                    let high = (layer["max"] as? NSNumber)?.doubleValue ?? 1
                    guard low >= 0, high <= 1, low <= high else {
                        throw .badKit(path: file, detail: "drum \"\(drumName)\": layer \"\(sample)\" needs 0 ≤ min ≤ max ≤ 1")
                    }
                    layerSpecs.append((sample, low, high))
                }
            } else if let sample = entry["sample"] as? String {
                layerSpecs = [(sample, 0, 1)]
            } else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\": needs a \"sample\" or \"layers\"")
            }
            var layers: [Kit.Layer] = []
            for spec in layerSpecs {
                let buffer = try loadSample(spec.sample, kit: file, drum: drumName, sampleRate: sampleRate)
                layers.append(Kit.Layer(buffer: buffer, minVelocity: spec.min, maxVelocity: spec.max, source: spec.sample))
            }
            drums.append(Kit.Drum(name: drumName, azimuth: azimuth, gain: gain, layers: layers, note: note))
        }
        return Kit(name: name, drums: drums, sampleRate: sampleRate)
    }

    /// One of a kit's samples: `sample` relative to the kit file's folder (or absolute), read
    /// through libsndfile and converted to `sampleRate`. Errors name the kit, the drum and the
    /// path tried.
    static func loadSample(_ sample: String, kit file: String, drum: String,
                           sampleRate: Double) throws(DrumAudioError) -> AudioBuffer {
        let folder = (file as NSString).deletingLastPathComponent
        let path = sample.hasPrefix("/") ? sample : (folder as NSString).appendingPathComponent(sample)
        guard FileManager.default.fileExists(atPath: path) else {
            throw .sampleNotFound(kit: file, drum: drum, sample: sample, lookedIn: folder.isEmpty ? "." : folder)
        }
        do {
            return try SoundFile.resampled(try SoundFile.read(path), to: sampleRate, path: path)
        } catch {
            if case .soundFile(_, let reason) = error {
                throw .unreadableSample(kit: file, drum: drum, path: path, reason: reason)
            }
            throw error
        }
    }

    /// Lower-case letters, digits and single hyphens inside (docs/architecture.md, Kits).
    public static func isDrumName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix("-") && !name.hasSuffix("-") && !name.contains("--")
            && name.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }

    /// An instrument name as a drum name: lower-cased, each run of other characters one hyphen,
    /// none at the ends (`Hat Closed` → `hat-closed`).
    public static func drumName(from instrument: String) -> String {
        var out = ""
        var pendingHyphen = false
        for character in instrument.lowercased() {
            if ("a"..."z").contains(character) || ("0"..."9").contains(character) {
                if pendingHyphen && !out.isEmpty { out.append("-") }
                pendingHyphen = false
                out.append(character)
            } else {
                pendingHyphen = true
            }
        }
        return out
    }
}

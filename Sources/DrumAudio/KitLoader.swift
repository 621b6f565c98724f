import Console
import TextSearch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Loads kits: the JSON form of docs/architecture.md, Kits. Control-side only (file I/O, allocation).
///
/// Foundation-free, so that a pad's binary (`drumpad run --local`) carries no Foundation: JSON
/// through `JSONValue`, files through libc. A Hydrogen kit (XML) loads only where a loader for
/// it is registered (`register(hydrogen:)`): the brain registers Foundation's (the `HydrogenKit`
/// target, `HydrogenKitLoader.register()`).
public enum KitLoader {
    /// Loads a Hydrogen `drumkit.xml` at a sample rate.
    public typealias HydrogenLoader = @Sendable (String, Double) throws(DrumAudioError) -> Kit

    /// The Hydrogen loader registered, if any (a pad's board build has none: no XML parser).
    private static let hydrogenLoader = Mutex<HydrogenLoader?>(nil)

    /// Lets `load` read Hydrogen kits through `hydrogen`. Any thread; the last one registered wins.
    public static func register(hydrogen: @escaping HydrogenLoader) {
        hydrogenLoader.withLock { $0 = hydrogen }
    }

    /// Loads the kit at `path`: a `kit.json` or a Hydrogen `drumkit.xml`, or a folder holding
    /// one, with every sample read through libsndfile and converted to `sampleRate`.
    public static func load(_ path: String, sampleRate: Double = 48_000) throws(DrumAudioError) -> Kit {
        guard let kind = fileKind(path) else {
            throw .unreadableKit(path: path, reason: "no such file or folder")
        }
        var file = path
        if kind == .folder {
            let json = joined(path, "kit.json")
            let hydrogen = joined(path, "drumkit.xml")
            file = fileKind(json) == nil && fileKind(hydrogen) != nil ? hydrogen : json
        }
        if file.hasSuffix(".xml") {
            guard let hydrogen = hydrogenLoader.withLock({ $0 }) else {
                throw .unreadableKit(path: file, reason: "a Hydrogen kit, which this program cannot read (it has no XML parser, "
                                     + "as a board's drumpad is built): play it on drumbrain, or give a kit.json of its samples")
            }
            return try hydrogen(file, sampleRate)
        }
        return try loadJSON(file, sampleRate: sampleRate)
    }

    enum FileKind { case file, folder }

    /// What is at `path` (following links), or nil if nothing is.
    static func fileKind(_ path: String) -> FileKind? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & S_IFMT == S_IFDIR ? .folder : .file
    }

    /// `folder/name` (`name` alone when the folder is empty).
    static func joined(_ folder: String, _ name: String) -> String {
        folder.isEmpty ? name : (folder.hasSuffix("/") ? folder + name : folder + "/" + name)
    }

    /// The folder part of `path` ("" for a bare name; "/" for a file at the root).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A whole file's bytes (at most 16 MiB: a kit file is a few KiB), or the reason it cannot be read.
    struct ReadFailure: Error { let reason: String }

    static func readBytes(_ path: String, limit: Int = 16 << 20) -> Result<[UInt8], ReadFailure> {
        guard let file = fopen(path, "rb") else { return .failure(ReadFailure(reason: String(cString: strerror(errno)))) }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { return .failure(ReadFailure(reason: "larger than \(limit >> 20) MiB")) }
            if count < chunk.count {
                return ferror(file) != 0 ? .failure(ReadFailure(reason: String(cString: strerror(errno)))) : .success(bytes)
            }
        }
    }

    static func loadJSON(_ file: String, sampleRate: Double) throws(DrumAudioError) -> Kit {
        let root: JSONValue
        switch readBytes(file) {
        case .failure(let failure):
            throw .unreadableKit(path: file, reason: failure.reason)
        case .success(let bytes):
            do {
                root = try JSONValue.parse(bytes)
            } catch {
                throw .unreadableKit(path: file, reason: "not JSON: \(error)")
            }
        }
        guard root.isObject else {
            throw .badKit(path: file, detail: "the top level must be an object with \"name\" and \"drums\"")
        }
        guard let name = root["name"]?.string, !name.isEmpty else {
            throw .badKit(path: file, detail: "missing \"name\" (a string, such as \"Default\")")
        }
        guard let drumList = root["drums"]?.array, !drumList.isEmpty, drumList.allSatisfy(\.isObject) else {
            throw .badKit(path: file, detail: "missing \"drums\" (a non-empty list of drum objects)")
        }
        var drums: [Kit.Drum] = []
        for (index, entry) in drumList.enumerated() {
            guard let drumName = entry["name"]?.string, isDrumName(drumName) else {
                throw .badKit(path: file, detail: "drum \(index + 1): \"name\" must be a lower-case word such as snare or hat-closed")
            }
            guard !drums.contains(where: { $0.name == drumName }) else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\" appears twice")
            }
            // Given, a field must be a number: "gain": "loud" or null was read as the default.
            func number(_ value: JSONValue?, _ key: String, or fallback: Double) throws(DrumAudioError) -> Double {
                guard let value else { return fallback }
                guard let number = value.number else {
                    throw .badKit(path: file, detail: "drum \"\(drumName)\": \"\(key)\" must be a number")
                }
                return number
            }
            let azimuth = try number(entry["azimuth"], "azimuth", or: 0)
            guard (-90...90).contains(azimuth) else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\": azimuth \(azimuth) is outside -90…90 degrees")
            }
            let gain = try number(entry["gain"], "gain", or: 1)
            guard gain >= 0 && gain <= 4 else {
                throw .badKit(path: file, detail: "drum \"\(drumName)\": gain \(gain) is outside 0…4")
            }
            var note: UInt8?
            if let value = entry["note"] {
                guard let number = value.number, let whole = Int(exactly: number), (0...127).contains(whole)
                else {
                    throw .badKit(path: file, detail: "drum \"\(drumName)\": \"note\" must be a MIDI note number 0…127")
                }
                note = UInt8(whole)
            }
            var layerSpecs: [(sample: String, min: Double, max: Double)] = []
            if let layers = entry["layers"]?.array, !layers.isEmpty {
                for layer in layers {
                    guard let sample = layer["sample"]?.string else {
                        throw .badKit(path: file, detail: "drum \"\(drumName)\": every layer needs a \"sample\"")
                    }
                    let low = try number(layer["min"], "min", or: 0)
                    let high = try number(layer["max"], "max", or: 1)
                    guard low >= 0, high <= 1, low <= high else {
                        throw .badKit(path: file, detail: "drum \"\(drumName)\": layer \"\(TerminalText.name(sample))\" needs 0 ≤ min ≤ max ≤ 1")
                    }
                    layerSpecs.append((sample, low, high))
                }
            } else if let sample = entry["sample"]?.string {
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
    public static func loadSample(_ sample: String, kit file: String, drum: String,
                           sampleRate: Double) throws(DrumAudioError) -> AudioBuffer {
        let folder = folder(of: file)
        let path = sample.hasPrefix("/") ? sample : joined(folder, sample)
        guard fileKind(path) == .file else {
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
        !name.isEmpty && !name.hasPrefix("-") && !name.hasSuffix("-") && !name.includes("--")
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

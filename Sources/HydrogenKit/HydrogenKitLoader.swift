import Console
import DrumAudio
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Loads Hydrogen `drumkit.xml` kits (docs/architecture.md, Kits): instruments become drums named by
/// `KitLoader.drumName(from:)`; `pan` (−1…1), or `pan_L`/`pan_R` in older kits, becomes the
/// azimuth; instrument `volume` × `gain` (× component gain) becomes the gain; each layer's
/// `min`/`max` its velocity range, and its own `gain` scales its sample. Every form Debian's kits
/// use is read: the oldest, where an instrument names its one sample with `<filename>` itself
/// (HardElectro1, Millo-Drums_v.1, rumpf_kit_z01_h2); layers directly under `instrument`; and
/// layers under `instrumentComponent` (0.9.7 and later).
///
/// A sample file that is missing or unreadable leaves out only what needs it, as Hydrogen does:
/// its layer, and an instrument with no layer left. So is an instrument the kit mutes
/// (`<isMuted>true`), as Hydrogen plays it: silent. Each is said once in `Kit.leftOut`; a kit
/// with nothing left to play is an error.
public enum HydrogenKitLoader {
    /// Makes `KitLoader.load` read Hydrogen kits through this loader (the brain does at start).
    public static func register() {
        KitLoader.register(hydrogen: { file, rate throws(DrumAudioError) in try load(file, sampleRate: rate) })
    }

    /// A parsed XML element: its name, text, and children.
    final class Element {
        let name: String
        var text = ""
        var children: [Element] = []
        init(name: String) { self.name = name }

        func child(_ name: String) -> Element? { children.first { $0.name == name } }
        func all(_ name: String) -> [Element] { children.filter { $0.name == name } }
        /// The child's number; NaN and the infinities count as none (the kit's default then).
        func number(_ name: String) -> Double? {
            child(name).flatMap { Double($0.text.trimmingCharacters(in: .whitespacesAndNewlines)) }.flatMap { $0.isFinite ? $0 : nil }
        }
        func string(_ name: String) -> String? {
            child(name)?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Builds the element tree (XMLParser is a SAX parser).
    /// How deep elements may nest: a drumkit.xml nests five. A tree 60,000 deep overflowed the
    /// stack as it was freed (each element frees its children).
    static let deepestNesting = 64

    final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [Element] = [Element(name: "#document")]
        var tooDeep = false

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            guard stack.count <= HydrogenKitLoader.deepestNesting else {
                tooDeep = true
                parser.abortParsing()
                return
            }
            let element = Element(name: elementName)
            stack.last!.children.append(element)
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?) {
            if stack.count > 1 { stack.removeLast() }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last!.text += string
        }
    }

    /// One layer as the file describes it.
    struct LayerSpec {
        var filename: String?
        var minVelocity: Double
        var maxVelocity: Double
        var gain: Double
    }

    /// Loads `file` (a drumkit.xml), samples relative to its folder, converted to `sampleRate`.
    public static func load(_ file: String, sampleRate: Double) throws(DrumAudioError) -> Kit {
        let folder = (file as NSString).deletingLastPathComponent
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw .unreadableKit(path: file, reason: "cannot open: \(error.localizedDescription)")
        }
        // Foundation's XMLParser traps on an element name that is not UTF-8 (found by fuzzing);
        // Hydrogen writes UTF-8, so anything else is refused before parsing.
        guard String(validating: data, as: UTF8.self) != nil else {
            throw .unreadableKit(path: file, reason: "not valid UTF-8 (Hydrogen writes drumkit.xml in UTF-8)")
        }
        guard emptyProcessingInstruction(in: data) == nil else {
            throw .unreadableKit(path: file, reason: "not a Hydrogen drumkit.xml: a processing instruction "
                                 + "(<?…?>) without data")
        }
        let parser = XMLParser(data: data)
        let builder = TreeBuilder()
        parser.delegate = builder
        let parsed = parser.parse()
        guard !builder.tooDeep else {
            throw .unreadableKit(path: file, reason: "elements nested deeper than \(deepestNesting) (line \(parser.lineNumber)): "
                                 + "not a Hydrogen drumkit.xml")
        }
        guard parsed else {
            throw .unreadableKit(path: file, reason: "not valid XML (line \(parser.lineNumber)): "
                                 + (parser.parserError.map { "\($0.localizedDescription)" } ?? "unknown error"))
        }
        guard let root = builder.stack.first?.child("drumkit_info") else {
            throw .badKit(path: file, detail: "no <drumkit_info>: not a Hydrogen drumkit.xml")
        }
        let kitName = root.string("name").flatMap { $0.isEmpty ? nil : $0 } ?? ((folder as NSString).lastPathComponent)
        guard let instruments = root.child("instrumentList")?.all("instrument"), !instruments.isEmpty else {
            throw .badKit(path: file, detail: "no <instrumentList> with instruments")
        }
        var drums: [Kit.Drum] = []
        var leftOut: [String] = []
        var failedFiles: Set<String> = []  // so each is tried and said once
        var muted: [String] = []
        for instrument in instruments {
            let instrumentName = instrument.string("name") ?? ""
            var name = KitLoader.drumName(from: instrumentName)
            // The id as the drum's name only where it is a plain number (it is the kit file's text).
            if name.isEmpty {
                let id = instrument.string("id").flatMap { UInt($0.trimmingCharacters(in: .whitespaces)) }.map { Int(clamping: $0) }
                name = "instrument-\(id ?? drums.count)"
            }
            var unique = name, suffix = 2
            while drums.contains(where: { $0.name == unique }) {
                unique = "\(name)-\(suffix)"
                suffix += 1
            }
            name = unique
            var layerSpecs: [LayerSpec] = (instrument.all("layer").map { ($0, 1.0) }
                + instrument.all("instrumentComponent").flatMap { component in
                    component.all("layer").map { ($0, component.number("gain") ?? 1) }
                }).map { layer, componentGain in
                    LayerSpec(filename: layer.string("filename"), minVelocity: layer.number("min") ?? 0,
                              maxVelocity: layer.number("max") ?? 1, gain: (layer.number("gain") ?? 1) * componentGain)
                }
            if layerSpecs.isEmpty, let filename = instrument.string("filename"), !filename.isEmpty {
                // The oldest form: the instrument names its one sample itself.
                layerSpecs = [LayerSpec(filename: filename, minVelocity: 0, maxVelocity: 1, gain: 1)]
            }
            guard !layerSpecs.isEmpty else { continue }  // an empty slot: nothing to play
            if instrument.string("isMuted") == "true" {  // silent in Hydrogen too (Millo-Drums' spare slots)
                muted.append(instrumentName)
                continue
            }
            let pan: Double
            if let value = instrument.number("pan") {
                pan = value
            } else {
                pan = (instrument.number("pan_R") ?? 1) - (instrument.number("pan_L") ?? 1)
            }
            let gain = (instrument.number("volume") ?? 1) * (instrument.number("gain") ?? 1)
            var layers: [Kit.Layer] = []
            for spec in layerSpecs {
                guard let filename = spec.filename, !filename.isEmpty else {
                    throw .badKit(path: file, detail: "instrument \"\(TerminalText.name(instrumentName))\": a layer has no <filename>")
                }
                if failedFiles.contains(filename) { continue }
                var buffer: AudioBuffer
                do {
                    buffer = try KitLoader.loadSample(filename, kit: file, drum: name, sampleRate: sampleRate)
                } catch {
                    let why: String
                    switch error {
                    case .sampleNotFound(_, _, _, let lookedIn): why = "not found in \(lookedIn)"
                    case .unreadableSample(_, _, _, let reason): why = "unreadable: \(reason)"
                    default: throw error
                    }
                    failedFiles.insert(filename)
                    leftOut.append("sample \(TerminalText.name(filename)) (instrument \"\(TerminalText.name(instrumentName))\"): \(why); left out")
                    continue
                }
                let layerGain = Float(spec.gain)
                if layerGain != 1 {
                    let scaled = (0..<(buffer.frames * buffer.channels)).map { buffer.samples[$0] * layerGain }
                    buffer = AudioBuffer(interleaved: scaled, channels: buffer.channels, sampleRate: buffer.sampleRate)
                }
                layers.append(Kit.Layer(buffer: buffer, minVelocity: max(0, min(1, spec.minVelocity)),
                                        maxVelocity: max(0, min(1, spec.maxVelocity)), source: filename))
            }
            guard !layers.isEmpty else {
                leftOut.append("instrument \"\(TerminalText.name(instrumentName))\" (\(name)): no sample left; left out")
                continue
            }
            // Its MIDI note: the kit's `midiOutNote`; without one, General MIDI's for its name,
            // and failing that Hydrogen's own default, 36 + the instrument's id.
            var note = instrument.number("midiOutNote").flatMap { $0 >= 0 && $0 <= 127 ? UInt8($0) : nil }
            if note == nil, GeneralMIDI.note(forDrumNamed: name) == nil,
               let id = instrument.number("id"), id >= 0, id <= 91 {
                note = UInt8(36 + Int(id))
            }
            drums.append(Kit.Drum(name: name, azimuth: max(-90, min(90, pan * 90)), gain: max(0, min(4, gain)),
                                  layers: layers, note: note))
        }
        if !muted.isEmpty {
            leftOut.append("instrument\(muted.count == 1 ? "" : "s") " + muted.map { "\"\(TerminalText.name($0))\"" }.joined(separator: ", ")
                           + ": muted in the kit (<isMuted>); left out")
        }
        guard !drums.isEmpty else {
            throw .badKit(path: file, detail: "no instrument has a sample"
                          + (leftOut.isEmpty ? "" : " (" + leftOut.joined(separator: "; ") + ")"))
        }
        return Kit(name: kitName, drums: drums, sampleRate: sampleRate, leftOut: leftOut)
    }

    /// The offset of the first processing instruction `<?target?>` with no data after its target,
    /// or nil. Foundation's XMLParser passes such an instruction's NULL data to `strlen` and
    /// crashes (found by fuzzing), so they are refused before parsing; Hydrogen writes only the
    /// XML declaration, which has data.
    static func emptyProcessingInstruction(in data: Data) -> Int? {
        let bytes = [UInt8](data)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var i = 0
        while i + 1 < bytes.count {
            guard bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "?") else { i += 1; continue }
            var j = i + 2
            while j < bytes.count && !isSpace(bytes[j]) && !(bytes[j] == UInt8(ascii: "?")) { j += 1 }  // target
            while j < bytes.count && isSpace(bytes[j]) { j += 1 }
            if j >= bytes.count || bytes[j] == UInt8(ascii: "?") { return i }  // no data before `?>`
            i = j
        }
        return nil
    }
}

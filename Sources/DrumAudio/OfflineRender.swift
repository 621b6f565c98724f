

/// A hit in a hit list (`t,drum,velocity`).
public struct TimedHit: Sendable, Equatable {
    /// Seconds from the start.
    public var time: Double
    /// The drum's name.
    public var drum: String
    /// 0...1.
    public var velocity: Float

    /// Creates a hit.
    public init(time: Double, drum: String, velocity: Float = 1) {
        self.time = time
        self.drum = drum
        self.velocity = velocity
    }
}

/// Renders hit lists through the real mixer, offline: sample-exact (a hit at `t` starts at frame
/// `round(t × rate)`) and deterministic (the same input gives the same samples).
public enum OfflineRender {
    /// Frames per render call, as an audio thread would use.
    public static let periodFrames = 128

    /// The longest render, in seconds from t = 0 to the last hit: an hour of 48 kHz stereo
    /// float is 1.4 GB held in memory. A hit list from a log timed by the epoch would otherwise
    /// ask for terabytes.
    public static let longestSeconds: Double = 3600

    /// The interleaved stereo render of `hits` (sorted here by time), long enough for the last
    /// sound to end, and the names of drums the kit lacks (those hits are skipped). Throws
    /// `renderTooLong` past `longestSeconds`, before anything is allocated.
    public static func render(kit: Kit, hits: [TimedHit]) throws(DrumAudioError) -> (samples: [Float], unknownDrums: [String]) {
        if let last = hits.lazy.map(\.time).max(), !(last <= longestSeconds) { throw .renderTooLong(seconds: last) }
        let sorted = hits.sorted { $0.time < $1.time }
        var unknown: [String] = []
        var scheduled: [ScheduledHit] = []
        var end: Int64 = 0
        for hit in sorted {
            guard let index = kit.index(of: hit.drum) else {
                if !unknown.contains(hit.drum) { unknown.append(hit.drum) }
                continue
            }
            let frame = Int64((hit.time * kit.sampleRate).rounded())
            scheduled.append(ScheduledHit(drum: Int32(index), velocity: hit.velocity, frame: frame))
            let longest = kit.drums[index].layers.map(\.buffer.frames).max() ?? 0
            end = max(end, frame + Int64(longest))
        }
        let queue = HitQueue(capacity: 256)
        let mixer = Mixer(kit: kit, queue: queue)
        let totalFrames = Int((end + Int64(periodFrames) - 1) / Int64(periodFrames)) * periodFrames
        var out = [Float](repeating: 0, count: max(periodFrames, totalFrames) * 2)
        var next = 0
        out.withUnsafeMutableBufferPointer { buffer in
            var frame = 0
            while frame < buffer.count / 2 {
                // Hand over the hits that start before the end of the next period.
                while next < scheduled.count && scheduled[next].frame < Int64(frame + periodFrames) {
                    guard queue.push(scheduled[next]) else { break }
                    next += 1
                }
                mixer.render(into: buffer.baseAddress! + frame * 2, frames: periodFrames)
                frame += periodFrames
            }
        }
        return (out, unknown)
    }

    /// `text` without the spaces, tabs and line ends around it.
    static func trimmed(_ text: Substring) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return String(text[first...last])
    }

    /// Reads a hit list: CSV with columns `t` and `drum`, optional `velocity` (default 1), found
    /// by header name; `#` comments and blank lines allowed.
    public static func readHits(_ path: String) throws(DrumAudioError) -> [TimedHit] {
        let text: String
        switch KitLoader.readBytes(path, limit: 256 << 20) {
        case .failure(let failure):
            throw .badHits(path: path, line: 0, detail: "cannot read: \(failure.reason)")
        case .success(let bytes):
            guard let decoded = String(validating: bytes, as: UTF8.self) else {
                throw .badHits(path: path, line: 0, detail: "not UTF-8 text")
            }
            text = decoded
        }
        var hits: [TimedHit] = []
        var columns: [String]?
        // `\.isNewline`: "\r\n" is one Character, so splitting on "\n" alone read a CRLF file as
        // one line.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = Self.trimmed(raw)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                .map { Self.trimmed($0) }
            guard let header = columns else {
                columns = fields.map { $0.lowercased() }
                for required in ["t", "drum"] where !columns!.contains(required) {
                    throw .badHits(path: path, line: number + 1,
                                   detail: "header has no \"\(required)\" column (found: \(fields.joined(separator: ","))); a hit list needs t,drum[,velocity]")
                }
                continue
            }
            guard fields.count == header.count else {
                throw .badHits(path: path, line: number + 1, detail: "expected \(header.count) fields as in the header, found \(fields.count)")
            }
            let value = { (name: String) -> String? in header.firstIndex(of: name).map { fields[$0] } }
            guard let t = Double(value("t")!), t.isFinite, t >= 0 else {
                throw .badHits(path: path, line: number + 1, detail: "t \"\(value("t")!)\" is not a time in seconds ≥ 0")
            }
            guard t <= longestSeconds else {
                throw .badHits(path: path, line: number + 1, detail: "t \(value("t")!) is past the "
                               + "\(Int(longestSeconds)) s (one hour) a render holds; move the times nearer 0")
            }
            let velocityText = value("velocity") ?? ""
            let velocity = velocityText.isEmpty ? 1 : Float(velocityText)
            guard let velocity, velocity.isFinite, (0...1).contains(velocity) else {
                throw .badHits(path: path, line: number + 1, detail: "velocity \"\(velocityText)\" is not a number in 0…1")
            }
            hits.append(TimedHit(time: t, drum: value("drum")!, velocity: velocity))
        }
        guard columns != nil else { throw .badHits(path: path, line: 1, detail: "no header; the first line must be t,drum,velocity") }
        return hits
    }
}

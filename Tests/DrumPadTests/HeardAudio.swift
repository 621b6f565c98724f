import DrumAudio
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Compares what was heard (a recording of the sound card's output) with what should have been
/// played (the offline render of the brain's hit list: the kit's samples as templates, placed at
/// each hit's frame, with its velocity and its azimuth's pan).
///
/// The recording starts at an unknown moment, so the two are first aligned (on 5 ms energy
/// envelopes, then sample by sample); after that, every hit is checked in its own window: the
/// heard sound minus the template's must be small in both channels. A hit played on another
/// drum, on the other side, twice, late, or not at all leaves a large remainder.
struct HeardAudio {
    /// Where the reference's frame 0 is in the recording (negative when the recording started later).
    let lag: Int
    let heard: AudioBuffer
    let reference: AudioBuffer

    /// Aligns `heard` with `reference`; nil when no alignment explains it.
    init?(heard: AudioBuffer, reference: AudioBuffer) {
        self.heard = heard
        self.reference = reference
        let block = 240
        func envelope(_ audio: AudioBuffer) -> [Double] {
            stride(from: 0, to: audio.frames - block, by: block).map { Self.energy(audio, from: $0, frames: block) }
        }
        let heardEnvelope = envelope(heard)
        let referenceEnvelope = envelope(reference)
        // Any overlap: the recording may start before the brain's first frame or after it.
        var best = (lag: 0, score: -1.0)
        for lag in (1 - referenceEnvelope.count)..<heardEnvelope.count {
            var score = 0.0
            for k in max(0, -lag)..<min(referenceEnvelope.count, heardEnvelope.count - lag) {
                score += referenceEnvelope[k] * heardEnvelope[k + lag]
            }
            if score > best.score { best = (lag, score) }
        }
        // Refine to the sample on the loudest second of the reference.
        var loudest = 0
        for k in referenceEnvelope.indices where referenceEnvelope[k] > referenceEnvelope[loudest] { loudest = k }
        let windowStart = max(0, loudest * block - 24_000)
        let windowEnd = min(reference.frames, windowStart + 48_000)
        var fine = (lag: 0, residual: Double.infinity)
        for lag in (best.lag * block - block)...(best.lag * block + block)
        where windowStart + lag >= 0 && windowEnd + lag <= heard.frames {
            var residual = 0.0
            for frame in windowStart..<windowEnd {
                let d = Double(heard[frame + lag, 0] - reference[frame, 0])
                residual += d * d
            }
            if residual < fine.residual { fine = (lag, residual) }
        }
        guard fine.residual.isFinite else { return nil }
        lag = fine.lag
    }

    /// Sum of |sample| over both channels of `frames` frames from `start` (the part inside the
    /// audio): one block of an energy envelope.
    static func energy(_ audio: AudioBuffer, from start: Int, frames: Int) -> Double {
        let first = max(0, start), end = min(audio.frames, start + frames)
        guard first < end else { return 0 }
        var sum = 0.0
        for frame in first..<end { sum += Double(abs(audio[frame, 0])) + Double(abs(audio[frame, 1])) }
        return sum
    }

    /// What `follow` found: each hit's remainder and lag, the stretches heard at one lag, and the
    /// worst remainder of a stretch as a whole.
    typealias Followed = (remainders: [Double], lags: [Int], stretches: [(first: Int, last: Int, lag: Int)], whole: Double)

    /// Energy of heard − reference over energy of the reference, both channels, in
    /// `frames` of the reference (a range of its frames), at `lag` (by default the alignment's).
    func remainder(_ frames: Range<Int>, lag: Int? = nil) -> Double {
        let lag = lag ?? self.lag
        var residual = 0.0, energy = 0.0
        for frame in frames where frame + lag >= 0 && frame + lag < heard.frames && frame < reference.frames {
            for channel in 0..<2 {
                let r = Double(reference[frame, channel])
                let d = Double(heard[frame + lag, channel]) - r
                residual += d * d
                energy += r * r
            }
        }
        return energy > 0 ? residual / energy : .infinity
    }

    /// The lag within `reach` frames of `near` at which `frames` of the reference best match
    /// the recording, and the remainder there: found on 5 ms energy envelopes, then refined
    /// sample by sample. For a sound path that skipped or stalled (a gap in the recording
    /// shifts everything after it).
    func bestLag(_ frames: Range<Int>, near: Int, reach: Int) -> (lag: Int, remainder: Double) {
        let block = 240
        func energy(_ audio: AudioBuffer, _ start: Int) -> Double { Self.energy(audio, from: start, frames: block) }
        let blocks = stride(from: frames.lowerBound, to: frames.upperBound, by: block).map { energy(reference, $0) }
        // A loud sound heard part-way into its decay can look like a soft one on envelopes, so
        // the eight closest lags are each refined and the best remainder wins.
        var candidates: [(lag: Int, distance: Double)] = []
        for lag in stride(from: near - reach, through: near + reach, by: block / 4) {
            var distance = 0.0
            for (k, e) in blocks.enumerated() {
                let d = e - energy(heard, frames.lowerBound + k * block + lag)
                distance += d * d
            }
            candidates.append((lag, distance))
        }
        var best = (lag: near, remainder: Double.infinity)
        var refined: [Int] = []
        for candidate in candidates.sorted(by: { $0.distance < $1.distance }) where refined.count < 8 {
            guard !refined.contains(where: { abs($0 - candidate.lag) <= block }) else { continue }
            refined.append(candidate.lag)
            for lag in (candidate.lag - block / 4)...(candidate.lag + block / 4) {
                let r = remainder(frames, lag: lag)
                if r < best.remainder { best = (lag, r) }
            }
        }
        return best
    }

    /// Checks hits (their frames in the reference) against the recording when the sound path
    /// may have stalled or skipped, shifting everything after a gap: each hit is checked at the
    /// current lag; one that does not match is looked for within `reach` (3 s) of it, and the lag it
    /// matches at holds from there on if most of the next three hits match there too.
    /// Returns, in the order given, each hit's remainder and the lag it was checked at (where
    /// it was heard: its frame plus that lag); the stretches of hits that matched at one lag;
    /// and the worst remainder of a stretch taken as a whole (from its first hit to 50 ms after
    /// its last), so that a jump has to explain everything heard in between, not only the
    /// hits' own windows.
    func follow(_ hits: [Int], window: Int = 2_400, reach: Int = 144_000) -> Followed {
        var remainders = [Double](repeating: .infinity, count: hits.count)
        var lags = [Int](repeating: lag, count: hits.count)
        var stretches: [(first: Int, last: Int, lag: Int)] = []
        var lag = self.lag
        let order = hits.indices.sorted(by: { hits[$0] < hits[$1] })
        for (position, index) in order.enumerated() {
            let frames = hits[index]..<hits[index] + window
            var remainder = self.remainder(frames, lag: lag)
            if remainder >= 0.01 {
                // A jump holds for what follows: most of the next three hits must match at the
                // new lag too, or this hit is simply not there (and is not to be matched to
                // another's sound).
                let moved = bestLag(frames, near: lag, reach: reach)
                let next = order[(position + 1)...].prefix(3)
                let matching = next.filter { self.remainder(hits[$0]..<hits[$0] + window, lag: moved.lag) < 0.01 }
                let confirmed = matching.count * 3 >= next.count * 2
                if moved.remainder < 0.01 && confirmed { (lag, remainder) = moved }
            }
            remainders[index] = remainder
            lags[index] = lag
            guard remainder < 0.01 else { continue }
            if stretches.last?.lag == lag {
                stretches[stretches.count - 1].last = hits[index]
            } else {
                stretches.append((hits[index], hits[index], lag))
            }
        }
        let whole = stretches.map { self.remainder($0.first..<$0.last + window, lag: $0.lag) }.max() ?? .infinity
        return (remainders, lags, stretches, whole)
    }
}

extension HeardAudio {
    /// Starts `parecord` on the sandbox's null-sink monitor (48 kHz stereo WAV); nil if it
    /// cannot start. The recording is `path`.
    static func startRecorder(_ pulse: PulseSandbox) -> (recorder: BackgroundProcess, path: String)? {
        let path = pulse.folder + "/heard.wav"
        guard let recorder = BackgroundProcess(pulse.env([
            "parecord", "--device=drumtest.monitor", "--file-format=wav", "--latency-msec=20", "--rate=48000",
            "--channels=2", path])) else { return nil }
        return (recorder, path)
    }

    /// What the brain meant to play: `drumbrain render` of its hit lines (each at its output
    /// frame, its drum renamed by `rename`) into `path`.
    static func render(_ played: [PlayedHit], to path: String,
                       rename: (String) -> String = { $0 }) throws -> AudioBuffer {
        var hits = "t,drum,velocity\n"
        for hit in played { hits += "\(Double(hit.frame) / 48_000),\(rename(hit.drum)),\(hit.velocity)\n" }
        let hitsPath = Program.temporaryFile(hits)
        defer { unlink(hitsPath) }
        let run = Program.run("drumbrain", ["render", "--hits", hitsPath, "--out", path])
        #expect(run.status == 0, "\(run.stderr)")
        return try SoundFile.read(path)
    }
}

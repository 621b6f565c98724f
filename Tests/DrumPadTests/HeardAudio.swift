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
            stride(from: 0, to: audio.frames - block, by: block).map { start in
                var sum = 0.0
                for frame in start..<start + block { sum += Double(abs(audio[frame, 0])) + Double(abs(audio[frame, 1])) }
                return sum
            }
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

    /// Energy of heard − reference over energy of the reference, both channels, in
    /// `frames` of the reference (a range of its frames).
    func remainder(_ frames: Range<Int>) -> Double {
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
    static func render(_ played: [(drum: String, velocity: String, frame: Int64, pad: String)], to path: String,
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

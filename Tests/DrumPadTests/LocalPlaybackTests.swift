#if canImport(Glibc)
import Glibc
#endif
import DrumAudio
import Testing
import TestSupport

/// `drumpad run --local`: the pad plays its own hits on its own output, in real time. The audio
/// is paced by the clock, so this suite runs alone in scripts/test, not beside the whole suite
/// (a machine that holds the pad for a few hundred milliseconds moves its hits against the
/// offline render the test compares with).
struct LocalPlaybackTests {
    @Test func localPlaysEachHitOnThePadsOwnOutput() throws {
        // The first 6 s of the bundled snare log, its hits played into a WAV as they are detected.
        let log = Program.contents(Program.repositoryRoot + "/Samples/logs/snare-250hz.csv")
        let short = log.split(separator: "\n").filter { line in
            guard let t = Double(line.split(separator: ",").first ?? "") else { return true }
            return t < 6
        }.joined(separator: "\n") + "\n"
        let path = Program.temporaryFile(short)
        let wav = "/tmp/drumpad-local-\(getpid()).wav"
        defer { unlink(path); unlink(wav) }
        let replay = Program.run("drumpad", ["replay", path]).stdout
        let expected = replay.components("\n") - 1
        let run = Program.run("drumpad", ["run", "--drum", "snare", "--replay", path, "--brain", "127.0.0.1:9",
                                          "--wait-for-brain", "0", "--local", "--local-output", "wav:\(wav)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("playing locally: snare from kit \"Default\" → wav:\(wav)"))
        #expect(run.stderr.contains("\(expected) played locally"))
        #expect(expected >= 8)
        // The same hits rendered offline are the reference: the pad's output must hold as many
        // onsets, and about the same energy.
        var hits = "t,drum,velocity\n"
        for row in replay.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: ",")
            hits += "\(fields[4]),snare,\(fields[3])\n"  // struck: the time the pad plays
        }
        let hitsPath = Program.temporaryFile(hits)
        let reference = "/tmp/drumpad-local-ref-\(getpid()).wav"
        defer { unlink(hitsPath); unlink(reference) }
        let render = Program.run("drumbrain", ["render", "--hits", hitsPath, "--out", reference])
        #expect(render.status == 0, "\(render.stderr)")
        let played = try Self.onsetsAndEnergy(SoundFile.read(wav))
        let rendered = try Self.onsetsAndEnergy(SoundFile.read(reference))
        #expect(rendered.onsets == expected, "\(rendered.onsets) onsets in the render of \(expected) hits")
        // Real-time pacing moves hits by a few samples against the render, which can merge one
        // onset into a ringing tail.
        #expect(abs(played.onsets - rendered.onsets) <= 1, "\(played.onsets) onsets played, \(rendered.onsets) rendered")
        #expect(abs(played.energy / rendered.energy - 1) < 0.1, "energy \(played.energy) against \(rendered.energy)")
    }

    /// Ctrl-C while the pad waits for its brain ends the run at once: nothing is replayed or
    /// played, and the local WAV is a whole file of no frames (its header filled in), not the
    /// header libsndfile left half-written when the signal killed the pad. SIGTERM while it waits
    /// for `--start-at` does the same.
    @Test func aStopDuringTheWaitsEndsTheRunAndFinishesTheWAV() throws {
        let log = Program.repositoryRoot + "/Samples/logs/snare-250hz.csv"
        for (signal, wait, said) in [(SIGINT, ["--wait-for-brain", "600"], "cannot reach the brain"),
                                     (SIGTERM, ["--wait-for-brain", "0", "--start-at", "\(time(nil) + 600)"], "drumpad")] {
            let wav = "/tmp/drumpad-local-stop-\(getpid())-\(signal).wav"
            defer { unlink(wav) }
            let pad = try #require(BackgroundProcess([
                Program.productsFolder + "/drumpad", "run", "--drum", "snare", "--replay", log, "--brain", "127.0.0.1:9",
                "--local", "--local-output", "wav:\(wav)"] + wait))
            #expect(pad.waitForOutput(said), "\(pad.output)")
            // The pad is past opening its output once it tries the brain; give the start-at
            // case, which says nothing before its wait, a moment to reach it.
            #expect(eventually(within: 30) { access(wav, F_OK) == 0 })
            usleep(300_000)
            #expect(pad.stop(signal: signal, within: 30) == 0, "\(pad.output)")
            #expect(pad.output.contains("drumpad: stopped before the replay began"), "\(pad.output)")
            #expect(!pad.output.contains("playing locally"), "\(pad.output)")
            let audio = try SoundFile.read(wav)
            #expect(audio.frames == 0)
            let (riff, bytes) = riffSize(ofWAV: wav)
            #expect(bytes > 44 && riff == bytes - 8, "RIFF size \(riff) in a file of \(bytes) bytes")
        }
    }

    /// Onsets (a 5 ms block more than twice as loud as the one before, and clearly audible; none
    /// within 30 ms of the last, so a hit that starts near a block's end is one onset, not two)
    /// and the total energy of the left channel.
    static func onsetsAndEnergy(_ audio: AudioBuffer) -> (onsets: Int, energy: Double) {
        var onsets = 0
        var energy = 0.0
        var previous = 0.0
        let block = 240
        var lastOnset = -6 * block
        for start in stride(from: 0, to: audio.frames - block, by: block) {
            var sum = 0.0
            for frame in start..<start + block {
                let value = Double(audio.samples[frame * audio.channels])
                sum += value * value
            }
            energy += sum
            let rms = (sum / Double(block)).squareRoot()
            if rms > 0.02 && rms > 2 * previous && start >= lastOnset + 6 * block {
                onsets += 1
                lastOnset = start
            }
            previous = rms
        }
        return (onsets, energy)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import DrumAudio
import HitDetect
import Synchronization
import Testing
import TestSupport

/// The whole network (issue 9): a brain and three pads in a network namespace with a private
/// avahi-daemon; the pads find the brain by name and replay logs with known strikes; the brain
/// plays them through ALSA's pulse plugin into a PulseAudio null sink, whose monitor `parecord`
/// records. `scripts/test` runs this suite on its own, after the others: it measures timing,
/// which other tests on the same cores would disturb.
@Suite(.serialized, .enabled(if: avahiSandboxAvailable && pulseAvailable,
                             "needs root, avahi-daemon, dbus-daemon, avahi-utils and iproute2 for a private Avahi, and pulseaudio, pulseaudio-utils and libasound2-plugins"))
struct EndToEndTests {
    static let drums = ["kick", "snare", "hihat"]
    /// Long enough for a shared machine's scheduling stalls (31 ms seen on an idle 2-core VM);
    /// the test is of placing hits by their time stamps, not of how short the buffer can be.
    static let jitterBufferMs = 100
    /// The device's buffer in periods of 1024 frames: 8 is 171 ms. Every hit must be heard
    /// whatever the machine does, and a device that runs dry cuts the sounds it was playing; so
    /// the buffer rides out a stall of a shared VM's usual length (tens of ms, some of 100-150 ms).
    static let periods = 8

    /// The strike times of a bundled groove log (its hit column).
    static func strikes(_ drum: String) throws -> [Double] {
        let text = Program.contents(Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv")
        var reader = SensorLogReader(fileName: drum)
        var batch = SensorBatch()
        _ = try Array(text.utf8).withUnsafeBytes { try reader.read($0, isEnd: true, into: &batch) }
        return batch.labelled.map { batch.time[$0] }
    }

    /// The brain's hit lines: drum, velocity, the output frame where the sound starts, the pad,
    /// and whether it started late (`late_ms=`: it reached the brain after its slot).
    static func playedHits(_ output: String) -> [PlayedHit] {
        output.split(separator: "\n").filter { $0.hasPrefix("hit drum=") }.compactMap { line in
            var fields: [String: String] = [:]
            for part in line.split(separator: " ").dropFirst() {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
            }
            guard let drum = fields["drum"], let velocity = fields["velocity"], let pad = fields["pad"],
                  let frame = fields["frame"].flatMap({ Int64($0) }) else { return nil }
            return PlayedHit(drum: drum, velocity: velocity, frame: frame, pad: pad, late: fields["late_ms"] != nil)
        }
    }

    /// The brain's exit summary line (`audio: …`).
    static func audioSummary(_ output: String) -> Substring {
        output.split(separator: "\n").first { $0.hasPrefix("audio: ") } ?? "(no audio summary)"
    }

    /// The recording against the render of `played` (the kit's samples at the brain's frames,
    /// made in `folder`), aligned, and each hit checked where it was heard. The sound server or
    /// the recorder may stall on a loaded machine and shift everything after a gap; the check
    /// follows such jumps (see `HeardAudio.follow`).
    static func hear(_ played: [PlayedHit], recording: String, folder: String) throws
        -> (heard: AudioBuffer, aligned: HeardAudio, check: HeardAudio.Followed) {
        let heard = try SoundFile.read(recording)
        let reference = try HeardAudio.render(played, to: folder + "/reference.wav")
        let aligned = try #require(HeardAudio(heard: heard, reference: reference),
                                   "the recording (\(heard.frames) frames) cannot be aligned with the render")
        return (heard, aligned, aligned.follow(played.map { Int($0.frame) }))
    }

    /// The output frames where the brain re-times its clock after a stall, so that hits there
    /// are not timed: from 0.5 s before to 3.2 s after a jump in the recording (the clock takes a
    /// stall once it has lasted 128 periods, see `FrameClock`), and to 4 s after an underrun the
    /// brain said (which the pulse plugin follows with a hold of about 2 s).
    static func unsettled(_ output: String, _ check: HeardAudio.Followed) -> [ClosedRange<Int64>] {
        let underrunFrames = underrunLines(output).compactMap { Int64($0.split(separator: " ")[4]) }
        return underrunFrames.map { ($0 - 24_000)...($0 + 192_000) }
            + check.stretches.dropFirst().map { Int64($0.first - 24_000)...Int64($0.first + 153_600) }
    }

    /// The brain's lines saying an underrun: `drumbrain: underrun near frame F (N so far): …`.
    static func underrunLines(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { $0.hasPrefix("drumbrain: underrun near frame ") }
    }

    @Test func threePadsFoundThroughAvahiAreHeardOnceEachOnTheirDrumAndOnTime() throws {
        try whereTheMachineMayStall { try Self.playTheGrooveAndCheckWhatIsHeard($0) }
    }

    /// The stall rule is itself checked: the probe sees this process stopped for 200 ms as it
    /// would see the host stop the VM; then a timing check is not judged, and a functional check
    /// still fails. The body runs once either way (`scripts/test` alone reruns a failed suite).
    @Test func aStalledMachineExcusesTimingChecksOnlyAndNothingRunsAgain() {
        let me = getpid()
        func stall() {
            #expect(Program.runTool("sh", ["-c", "kill -STOP \(me); sleep 0.2; kill -CONT \(me)"]).status == 0)
        }
        // On a quiet machine both failures stand.
        var runs = 0, stalledAnyway = false, notJudged = 0
        let recorded = Mutex<[String]>([])
        withKnownIssue("the failures that should stand") {
            whereTheMachineMayStall { attempt in
                runs += 1
                Issue.record("a functional failure on a quiet machine")
                attempt.timing(false, "a timing failure on a quiet machine")
                stalledAnyway = attempt.machineStalled  // the machine may stall by itself
                notJudged = attempt.notJudged
            }
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(runs == 1)
        let quiet = recorded.withLock { $0 }
        #expect(quiet.filter { $0.contains("functional") }.count == 1, "\(quiet)")
        #expect(quiet.filter { $0.contains("timing") }.count == (stalledAnyway ? 0 : 1) && notJudged == (stalledAnyway ? 1 : 0),
                "\(quiet); the probe saw a stall by itself: \(stalledAnyway)")
        // After a stall, the timing check is not judged, and the functional one still fails.
        runs = 0
        recorded.withLock { $0 = [] }
        withKnownIssue("the functional failure") {
            whereTheMachineMayStall { attempt in
                runs += 1
                // A loaded machine may not have run the probe's new thread yet: stopped before
                // its first sleep, it would start after the stall and never see it (a CI run's
                // probe saw nothing for 30 s after the stop, with 1.4 s of CPU stolen).
                _ = eventually(within: 30) { attempt.probe.wakeUps >= 2 }
                stall()
                // The probe's thread notes the stall when it next runs, which a loaded machine
                // can put off: this test is about what the check does once it has.
                _ = eventually(within: 30) { attempt.machineStalled }
                attempt.timing(false, "a timing failure while the machine stalled")
                Issue.record("a functional failure while the machine stalled")
                notJudged = attempt.notJudged
            }
        } matching: { issue in
            recorded.withLock { $0.append(issue.comments.map(\.rawValue).joined()) }
            return true
        }
        #expect(runs == 1 && notJudged == 1)
        let stalled = recorded.withLock { $0 }
        #expect(stalled == ["a functional failure while the machine stalled"], "\(stalled)")
    }

    static func playTheGrooveAndCheckWhatIsHeard(_ attempt: TimingAttempt) throws {
        let avahi = try AvahiSandbox()
        let pulse = try PulseSandbox()
        let (recorder, recording) = try #require(HeardAudio.startRecorder(pulse))
        let brain = try #require(BackgroundProcess(avahi.inside(pulse.env([
            Program.productsFolder + "/drumbrain", "--name", "e2e", "--port", "\(freePort())", "--output", "alsa:pulse",
            "--period", "1024", "--periods", "\(Self.periods)", "--jitter-buffer-ms", "\(Self.jitterBufferMs)"]))))
        #expect(brain.waitForOutput("published as \"e2e\""), "\(brain.output)")
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // Far enough ahead that every pad has found the brain first, even on a loaded machine,
        // and that the pulse plugin's hold on a new stream (up to ~2 s on this VM) is over.
        let start = String(now.tv_sec + 10)
        let pads = Self.drums.map { drum in
            BackgroundProcess(avahi.inside([
                Program.productsFolder + "/drumpad", "run", "--drum", drum,
                // The card's detector finds every labelled strike of these logs (the adaptive
                // default misses one soft hihat stroke of 51): this test judges the path.
                "--replay", Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv", "--detector", "card",
                "--brain-name", "e2e", "--name", "e2e-\(drum)", "--start-at", start,
                "--wait-for-brain", "30"]))!
        }
        for pad in pads {
            #expect(pad.wait() == 0, "\(pad.output)")
            #expect(pad.output.contains(" 0 dropped while disconnected"), "\(pad.output)")
        }
        usleep(2_500_000)  // the last sounds ring out through the sink
        brain.stop(signal: SIGINT)
        usleep(300_000)
        recorder.stop(signal: SIGINT)
        let output = brain.output
        let played = Self.playedHits(output)
        let summary = Self.audioSummary(output)
        print("end-to-end: brain says \(summary)")
        // Every strike in the logs played once, on its drum, by its pad.
        for drum in Self.drums {
            let expected = try Self.strikes(drum).count
            let count = played.filter { $0.drum == drum && $0.pad == "e2e-\(drum)" }.count
            #expect(count == expected, "\(drum): \(count) played, \(expected) in the log")
        }
        #expect(played.count == 88 && output.contains("audio: 88 sounds started"), "\(output)")
        let latencies = output.split(separator: " ").compactMap { $0.hasPrefix("latency_us=") ? Int($0.dropFirst(11)) : nil }
        print("end-to-end: network latency max \(latencies.max() ?? 0) µs over \(latencies.count) hits")
        // What was heard: the recording against the kit's samples placed at the brain's frames.
        let (heard, aligned, check) = try Self.hear(played, recording: recording, folder: pulse.folder)
        for jump in check.stretches.dropFirst() {
            print("end-to-end: the recording jumps to lag \(jump.lag) frames before frame \(jump.first)")
        }
        attempt.timing(check.stretches.count <= 3, "the recording jumps \(check.stretches.count - 1) times: \(check.stretches)")
        // Nothing but the hits heard between them (a sound played twice or cut would be): functional.
        #expect(check.whole < 0.01, "heard − reference over a whole stretch of the groove: \(check.whole)")
        print("end-to-end through PulseAudio: aligned at \(aligned.lag) frames, \(check.stretches.count) stretch(es); "
              + "remainder worst hit \(check.remainders.max() ?? 0), whole \(check.whole)")

        // On time: each strike heard (its frame plus the recording's lag there) when the log
        // says it was struck. The sound device keeps its own time: its frames run at its rate,
        // which differs from the monotonic clock's by tens of ppm (23-62 ppm measured for a
        // PulseAudio null sink), a millisecond over this groove; so a straight line (offset and
        // rate) through the strikes is removed. Timed are the hits that reached the brain within
        // the jitter buffer (a later one cannot be on time, and the brain says so on its line,
        // `late_ms=`). The sound server may stall (the recording jumps) and the device may run
        // dry (the brain says "underrun near frame"): the brain then re-times its clock, and the
        // hits around that moment are not timed (`unsettled`). One underrun is allowed.
        // The brain looks for underruns every 100 ms: two in one look are one line, "(N so far)",
        // and one while it stops is in its summary only.
        let underrunLines = Self.underrunLines(output)
        let soFar = underrunLines.compactMap { Int($0.split(separator: "(").dropFirst().first?.split(separator: " ").first ?? "") }
        let underruns = summary.split(separator: " ").firstIndex(of: "underruns,").flatMap { at in
            Int(summary.split(separator: " ")[at - 1])
        }
        #expect(soFar.count == underrunLines.count && soFar == soFar.sorted() && Set(soFar).count == soFar.count
                && (underruns ?? -1) >= (soFar.last ?? 0), "underruns said \(underrunLines), counted: \(summary)")
        attempt.timing((underruns ?? 0) <= 1, "\(underruns ?? 0) underruns: \(summary)")
        let unsettled = Self.unsettled(output, check)
        func settled(_ hit: PlayedHit) -> Bool { !unsettled.contains { $0.contains(hit.frame) } }
        // Each hit heard on its drum: a functional check, judged for every hit whatever the
        // machine did (`follow` looks for a hit shifted by a jump within 3 s of it). A stall that
        // cut a sound fails it: the buffer (`periods`) is sized so that a stall seldom does.
        for (hit, remainder) in zip(played, check.remainders) {
            let near = settled(hit) ? "" : " (near a jump or an underrun)"
            #expect(remainder < 0.01, "\(hit.drum) at frame \(hit.frame)\(near): \(remainder) of its energy is not the template's")
        }
        for drum in Self.drums {
            let expected = try Self.strikes(drum)
            let mine = played.indices.filter { played[$0].drum == drum && played[$0].pad == "e2e-\(drum)" }
            // A drum whose hit count is wrong has failed above; its hits cannot be paired with
            // the strikes to time them.
            guard mine.count == expected.count else { continue }
            var timed: [(t: Double, heard: Double)] = []
            for (index, t) in zip(mine, expected) where !played[index].late && settled(played[index]) {
                timed.append((t, Double(played[index].frame + Int64(check.lags[index])) / 48_000))
            }
            // Hits are left untimed only by what the machine did (late past the jitter buffer,
            // or near a jump or an underrun); too few timed is itself a timing failure, not a
            // check that silently disappears. Half of a drum's hits is far more than one
            // underrun's 4.5 s leaves out.
            attempt.timing(timed.count >= max(2, mine.count / 2),
                           "\(drum): only \(timed.count) of \(mine.count) hits could be timed (the rest late or near a jump or an underrun)")
            guard timed.count >= 2 else { continue }
            let fit = LineFit(timed.map(\.t), timed.map(\.heard))
            let worst = timed.map { abs($0.heard - fit.at($0.t)) * 1000 }.max()!
            let ppm = (fit.slope - 1) * 1e6
            attempt.timing(worst <= 1.0, "\(drum): timing deviation up to \(worst) ms: \(mine.map { played[$0] })")
            attempt.timing(abs(ppm) < 500, "\(drum): the device's clock runs \(ppm) ppm off the monotonic clock")
            print("end-to-end timing: \(drum) worst \(DecimalFormatting.string(worst, decimals: 3)) ms "
                  + "over \(timed.count) of \(mine.count) hits (device clock \(DecimalFormatting.string(ppm, decimals: 0)) ppm)")
        }
        // Late hits come only from stalls longer than the jitter buffer: at most a couple, away
        // from an underrun or a jump.
        let late = played.filter(\.late)
        let lateAway = late.filter(settled)
        attempt.timing(lateAway.count <= 2, "\(lateAway.count) hits arrived after their slot: \(lateAway)")
        if !late.isEmpty { print("end-to-end: \(late.count) hits late past the \(Self.jitterBufferMs) ms buffer: \(late)") }
        #expect(late.isEmpty || summary.contains("; \(late.count) hit"), "the summary does not count the late hits: \(summary)")
        // The check tells drums apart: with the drums swapped round, every hit's window fails it.
        let swapped = try HeardAudio.render(played, to: pulse.folder + "/swapped.wav") {
            ["kick": "snare", "snare": "hihat", "hihat": "kick"][$0] ?? $0
        }
        let wrong = HeardAudio(heard: heard, reference: swapped).map { wrong in
            played.filter { hit in wrong.remainder(Int(hit.frame)..<Int(hit.frame) + 2_400) >= 0.01 }.count
        }
        #expect(wrong == played.count, "with the drums swapped \(wrong ?? 0) of \(played.count) hits fail the check")
        #expect(output.contains("pad e2e-kick ") && output.contains("pad e2e-snare ") && output.contains("pad e2e-hihat "))
    }
}

/// A hit line of the brain's, as the end-to-end tests read it.
struct PlayedHit {
    let drum: String
    let velocity: String
    let frame: Int64
    let pad: String
    /// Started after the frame it asked for (`late_ms=` on its line).
    let late: Bool
}

/// A least-squares straight line through points.
struct LineFit {
    let slope: Double
    let intercept: Double

    init(_ x: [Double], _ y: [Double]) {
        let n = Double(x.count)
        let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
        }
        slope = sxx > 0 ? sxy / sxx : 1
        intercept = my - slope * mx
    }

    func at(_ x: Double) -> Double { intercept + slope * x }
}

@Suite(.serialized, .enabled(if: avahiSandboxAvailable && pulseAvailable,
                             "needs root, avahi-daemon, dbus-daemon, avahi-utils and iproute2 for a private Avahi, and pulseaudio, pulseaudio-utils and libasound2-plugins"))
struct EndToEndFaultTests {
    /// Hit lines the brain printed for a pad.
    static func hits(_ output: String, pad: String) -> Int {
        output.split(separator: "\n").filter { $0.hasPrefix("hit drum=") && $0.contains("pad=\(pad) ") }.count
    }

    @Test func padAndBrainKilledAndRestartedMidwayRecover() throws {
        try whereTheMachineMayStall { try Self.killAndRestartMidGroove($0) }
    }

    static func killAndRestartMidGroove(_ attempt: TimingAttempt) throws {
        let avahi = try AvahiSandbox()
        let pulse = try PulseSandbox()
        let (recorder, recording) = try #require(HeardAudio.startRecorder(pulse))
        let brainArguments = avahi.inside(pulse.env([
            Program.productsFolder + "/drumbrain", "--name", "e2e", "--port", "\(freePort())", "--output", "alsa:pulse",
            "--period", "1024", "--periods", "\(EndToEndTests.periods)"]))
        let first = BackgroundProcess(brainArguments)!
        #expect(first.waitForOutput("published as \"e2e\""), "\(first.output)")
        func pad(_ drum: String) -> BackgroundProcess {
            BackgroundProcess(avahi.inside([
                Program.productsFolder + "/drumpad", "run", "--drum", drum,
                // The card's detector finds every labelled strike of these logs (the adaptive
                // default misses one soft hihat stroke of 51): this test judges the path.
                "--replay", Program.repositoryRoot + "/Samples/logs/groove-\(drum)-250hz.csv", "--detector", "card",
                "--brain-name", "e2e", "--name", "e2e-\(drum)"]))!
        }
        let kick = pad("kick"), hihat = pad("hihat")
        var snare = pad("snare")
        #expect(eventually(within: 30) { Self.hits(first.output, pad: "e2e-snare") >= 2 }, "\(first.output)")
        // A pad killed and started again: a new connection, the brain unharmed.
        snare.stop(signal: SIGKILL)
        snare = pad("snare")
        #expect(eventually(within: 30) { Self.hits(first.output, pad: "e2e-snare") >= 4 }, "\(first.output)")
        // The brain killed without warning, and a new one started in its place.
        #expect(first.stop(signal: SIGKILL) == 128 + SIGKILL)
        usleep(300_000)
        let second = BackgroundProcess(brainArguments)!
        #expect(second.waitForOutput("published as \"e2e\""), "\(second.output)")
        // Every pad comes back and its later hits are played by the new brain.
        for name in ["e2e-kick", "e2e-hihat", "e2e-snare"] {
            #expect(eventually(within: 30) { Self.hits(second.output, pad: name) >= 1 }, "\(name) never came back: \(second.output)")
        }
        for process in [kick, hihat, snare] {
            #expect(process.wait() == 0, "\(process.output)")
            #expect(process.output.contains("lost the brain") && process.output.components("connected to") >= 2, "\(process.output)")
        }
        usleep(2_500_000)  // the last sounds ring out through the sink
        #expect(second.stop(signal: SIGINT) == 0)
        usleep(300_000)
        recorder.stop(signal: SIGINT)
        let output = second.output
        let summary = EndToEndTests.audioSummary(output)
        #expect(output.contains("audio: "), "\(output)")
        print("end-to-end fault: the new brain says \(summary)")
        for line in EndToEndTests.underrunLines(output) { print("end-to-end fault: \(line)") }
        // The hits after recovery are heard: the new brain's hits, rendered from the kit's
        // samples at its frames, are in the recording. As in the end-to-end test, the sound
        // server may stall and shift the recording after a gap; up to two such jumps are followed.
        let played = EndToEndTests.playedHits(output)
        let (heard, aligned, check) = try EndToEndTests.hear(played, recording: recording, folder: pulse.folder)
        // Every hit heard, near a jump or an underrun too (functional; see `EndToEndTests.periods`).
        let unsettled = EndToEndTests.unsettled(output, check)
        let unheard = played.indices.filter { check.remainders[$0] >= 0.01 }
        let unheardNear = unheard.filter { index in unsettled.contains { $0.contains(played[index].frame) } }
        print("end-to-end fault through PulseAudio: aligned at \(aligned.lag) frames, \(check.stretches.count) stretch(es) "
              + "\(check.stretches.map { "\($0.first)...\($0.last)@\($0.lag)" }); whole \(check.whole)")
        let unheardList = unheard.prefix(8).map { "\(played[$0].drum) at \(played[$0].frame): \(check.remainders[$0])" }
        let notHeard = "\(unheard.count) of the new brain's \(played.count) hits not heard as played "
            + "(\(unheardNear.count) near a jump or an underrun): \(unheardList); the recording has \(heard.frames) frames"
        #expect(played.count >= 3 && unheard.isEmpty, "\(notHeard)")
        #expect(check.whole < 0.01, "heard − reference over a whole stretch: \(check.whole)")
        attempt.timing(check.stretches.count <= 3, "the recording jumps \(check.stretches.count - 1) times: \(check.stretches)")
        if played.count >= 3 && unheard.isEmpty && check.stretches.count <= 3 && check.whole < 0.01 {
            FaultTable.record("kill -9 of a pad, then of the brain, mid-groove",
                              load: "3 pads found through Avahi, brain restarted",
                              result: "survived; every pad reconnected, the new brain's \(played.count) hits all heard")
        }
    }
}

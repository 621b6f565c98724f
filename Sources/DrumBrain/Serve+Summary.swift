import Console
import ArgumentParser
import BrainCore
import DrumAudio
import DrumNet
import HitDetect
#if canImport(Glibc)
import Glibc
#endif

extension Serve {
    /// The pairing key of `--key-file`, after saying what it means; never prints the key.
    func loadKey() throws -> PairingKey? {
        guard let keyFile else {
            printError("drumbrain: no --key-file: any host on the network can play this brain")
            return nil
        }
        do {
            let loaded = try PairingKey.load(path: keyFile)
            if let warning = loaded.warning { printError("drumbrain: warning: \(warning)") }
            printError("drumbrain: pads must pair with the key in \(keyFile)")
            return loaded.key
        } catch {
            throw ValidationError(error.description)
        }
    }
}

extension Serve {
    /// The summary's clause on hits that arrived after their slot in the jitter buffer.
    static func lateHitsText(_ count: Int, jitterBufferMs: Double?) -> String {
        let one = count == 1
        guard let jitterBufferMs else {
            return "; \(count) hit\(one ? "" : "s") arrived after \(one ? "its" : "their") slot at the latency chosen "
                + "and started late (the latency rises to what the pads need; --jitter-buffer-ms sets it)"
        }
        return "; \(count) hit\(one ? "" : "s") arrived after \(one ? "its" : "their") slot in the "
            + "\(DecimalFormatting.string(jitterBufferMs, decimals: 0)) ms jitter buffer and started late "
            + "(a longer --jitter-buffer-ms holds \(one ? "it" : "them"))"
    }
}

extension Serve {
    /// The exit summary on standard error: what the audio side played, dropped and cancelled,
    /// then each pad's totals (names escaped: they come from the wire).
    func printSummary(_ status: AudioEngine.Status, router: HitRouter<AudioEngine>, pads: [PadStatistics]) {
        let mixer = status.mixer
        var line = "audio: \(mixer.hits) sounds started, \(status.xruns) underruns, "
            + "\(router.unknownDrums) hits for drums the kit lacks, "
        if let crosstalk = router.crosstalk {
            line += "\(crosstalk.cancelled + mixer.takenBackHits) cancelled as crosstalk"
                + (mixer.takenBackHits > 0 ? " (\(mixer.takenBackHits) taken back from the jitter buffer)" : "") + ", "
        }
        if let stands = router.stands {
            let counts = stands.counts
            var apart: [String] = []
            if counts.swayed > 0 { apart.append("\(counts.swayed) of them a stand's sway") }
            if counts.weak > 0 { apart.append("\(counts.weak) too weak for a stroke") }
            if counts.shaken > 0 { apart.append("\(counts.shaken) a shake of the whole stand") }
            line += "\(counts.cancelled + counts.takenBack) cancelled as crosstalk of learned stands"
                + (apart.isEmpty ? "" : " (" + apart.joined(separator: ", ") + ")") + ", "
        }
        line += "\(mixer.limitedSamples) samples limited"
        if let latency = router.latency {
            line += "; latency from strike to sound \(DecimalFormatting.string(Double(latency.latencyMicros) / 1000, decimals: 1)) ms (chosen)"
        }
        if mixer.droppedHits > 0 {
            line += "; \(mixer.droppedHits) hits dropped (the audio side held as many waiting hits as it can)"
        }
        if mixer.staleHits > 0 {
            line += "; \(mixer.staleHits) hits dropped at a kit reload (resolved against the kit before it)"
        }
        if mixer.lateHits > 0 { line += Self.lateHitsText(mixer.lateHits, jitterBufferMs: jitterBufferMs) }
        if status.realtime == false { line += "; ran without SCHED_FIFO (\(status.realtimeRefusal ?? "refused"))" }
        if let error = status.outputError { line += "; output failed: \(error)" }
        if status.closeTimedOut {
            line += "; the sound device did not close within \(AudioEngine.closeWaitMicros / 1_000_000) s "
                + "(its sound server is not answering), so it was left open"
        }
        printError(line)
        for coupling in router.stands?.model.couplings ?? [] {
            printError("stand: \(WireText.printable(coupling.receiver, prose: true)) feels "
                       + "\(DecimalFormatting.string(coupling.coupling * 100, decimals: 1)) % of "
                       + "\(WireText.printable(coupling.source, prose: true))'s strikes, "
                       + "\(DecimalFormatting.string(coupling.lagMicros / 1000, decimals: 1)) ms later")
        }
        for pad in pads {
            printError("pad \(pad.padName.map { WireText.printable($0, prose: true) } ?? "-") (\(pad.address)): \(pad.hits) hits, "
                       + "\(pad.sequenceGaps) gaps, \(pad.unknownMessages) unknown messages"
                       + (pad.felt > 0 ? ", \(pad.felt) pushes felt through the stand (learned from, not played)" : "")
                       + Self.clockText(pad)
                       + (pad.droppedHits > 0 ? ", \(pad.droppedHits) hits over the rate limit dropped" : "")
                       + (pad.droppedFelt > 0 ? ", \(pad.droppedFelt) felt pushes over the rate limit dropped" : "")
                       + (pad.refusedTimes > 0 ? ", \(pad.refusedTimes) implausible times refused (those hits played untimed)" : "")
                       + (pad.errors > 0 ? ", refused (\(pad.errors) error\(pad.errors == 1 ? "" : "s"): bad data or no pairing)" : ""))
        }
    }
}

extension Serve {
    /// `, clock offset X ms (round trip Y ms)` for a pad that synchronised its clock, else "".
    static func clockText(_ pad: PadStatistics) -> String {
        guard let offset = pad.clockOffsetMicros, let roundTrip = pad.roundTripMicros else { return "" }
        return ", clock offset \(DecimalFormatting.string(Double(offset) / 1000, decimals: 3)) ms "
            + "(round trip \(DecimalFormatting.string(Double(roundTrip) / 1000, decimals: 3)) ms)"
    }

    /// `$XDG_STATE_HOME/drumtrigger/stands`, or `~/.local/state/drumtrigger/stands`; nil
    /// without either variable.
    static var defaultStandState: String? {
        if let state = getenv("XDG_STATE_HOME").map({ String(cString: $0) }), state.hasPrefix("/") {
            return state + "/drumtrigger/stands"
        }
        return getenv("HOME").map { String(cString: $0) + "/.local/state/drumtrigger/stands" }
    }

    /// The stands kept at `path` (nothing learned when there is no such file), said in a line.
    static func loadStands(_ path: String?) -> StandModel {
        guard let path, access(path, F_OK) == 0 else { return StandModel() }
        do {
            let bytes = try TextFile.readBytes(path)
            let (model, skipped) = StandModel.restoring(String(decoding: bytes, as: UTF8.self))
            printError("drumbrain: stands from \(path): \(model.couplings.count) pairs of pads coupled"
                       + (skipped > 0 ? " (\(skipped) lines not understood, skipped)" : ""))
            return model
        } catch {
            printError("drumbrain: stands not read, learning afresh: \(error)")
            return StandModel()
        }
    }
}


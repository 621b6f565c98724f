import DrumAudio
import DrumNet
import HitDetect

/// The lines `drumbrain` prints per hit (its `--help` describes them), made from a routed hit and
/// its start report. Every name from the wire goes through `WireText.printable`, so a name can
/// neither end a line nor add a field nor reach the terminal as an escape sequence.
///
/// Thread safety: pure.
public enum BrainLines {
    /// `hit drum=… velocity=… pad=… [latency_us=… strike_us=…] [frame=… brain_us=… [late_ms=…]]`.
    public static func hit(_ routed: RoutedHit, started: StartedHit?, rate: Int) -> String {
        let received = routed.received
        var line = "hit drum=\(WireText.printable(received.hit.drum)) velocity="
        line += DecimalFormatting.string(Double(received.hit.velocity), decimals: 3)
        line += " pad=\(pad(received))"
        if let latency = received.latencyMicros { line += " latency_us=\(latency)" }
        if let strike = received.strikeMicros { line += " strike_us=\(strike)" }
        if let started, started.outcome == .started {
            line += " frame=\(started.frame) brain_us=\(started.renderedMicros.saturatingSubtract(received.receivedMicros))"
            if started.lateFrames > 0 {
                line += " late_ms=" + DecimalFormatting.string(Double(started.lateFrames) * 1000 / Double(rate), decimals: 3)
            }
        }
        return line
    }

    /// `crosstalk drum=… velocity=… pad=…[ taken_back]`.
    public static func crosstalk(_ routed: RoutedHit, takenBack: Bool) -> String {
        "crosstalk drum=\(WireText.printable(routed.received.hit.drum)) velocity="
            + DecimalFormatting.string(Double(routed.received.hit.velocity), decimals: 3)
            + " pad=\(pad(routed.received))" + (takenBack ? " taken_back" : "")
    }

    /// `unknown drum=… pad=… (the kit has …)`.
    public static func unknown(_ routed: RoutedHit, kitDrums: [String]) -> String {
        "unknown drum=\(WireText.printable(routed.received.hit.drum)) pad=\(pad(routed.received)) (the kit has "
            + kitDrums.joined(separator: ", ") + ")"
    }

    /// `dropped drum=… velocity=… pad=… reason=…` for a hit that never sounds although its drum
    /// is in the kit: `queue_full` (the audio queue), `mixer_full` (the mixer's waiting hits),
    /// `kit_swapped` (resolved against a kit reloaded before it played).
    public static func dropped(_ routed: RoutedHit, reason: String) -> String {
        "dropped drum=\(WireText.printable(routed.received.hit.drum)) velocity="
            + DecimalFormatting.string(Double(routed.received.hit.velocity), decimals: 3)
            + " pad=\(pad(routed.received)) reason=\(reason)"
    }

    /// The pad's name, escaped, or `-` when it said no hello.
    static func pad(_ received: ReceivedHit) -> String {
        received.padName.map { WireText.printable($0) } ?? "-"
    }
}

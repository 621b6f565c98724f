import DrumAudio

/// The mixer's start reports that the line printer has taken from the audio thread but not yet
/// matched to a hit, by hit number.
///
/// Hit numbers rise (wrapping, never 0) in the order hits arrive, which is the order the printer
/// takes them. So a report for a number the printer has already passed is never asked for again:
/// its wait ran out (the device stood still for longer than that, then came back), or the hit
/// never reached the printer (the hand-off was full). Such reports are dropped, on arrival or in
/// a sweep whenever the table has doubled, so that a long run with a slow terminal or a stalling
/// device does not grow it without end.
///
/// Thread safety: a value type, used by the printing thread alone.
public struct StartLedger {
    private var starts: [UInt32: StartedHit] = [:]
    /// The number of the hit the printer took last (0: none yet).
    private var current: UInt32 = 0
    /// The size at which the next sweep runs.
    private var sweepAt = 256

    /// An empty ledger.
    public init() {}

    /// Reports held.
    public var count: Int { starts.count }

    /// Whether the report for `number` is in.
    public func has(_ number: UInt32) -> Bool { starts[number] != nil }

    /// Keeps a report, unless it is for a hit the printer has passed.
    public mutating func add(_ started: StartedHit) {
        guard !isPassed(started.id) else { return }
        starts[started.id] = started
    }

    /// The printer has taken hit `number`: reports for earlier ones will not be asked for.
    public mutating func reach(_ number: UInt32) {
        current = number
        if starts.count >= sweepAt {
            starts = starts.filter { !isPassed($0.key) }
            sweepAt = max(256, 2 * starts.count)
        }
    }

    /// Takes the report for `number` out, if it is in.
    public mutating func take(_ number: UInt32) -> StartedHit? { starts.removeValue(forKey: number) }

    /// Whether `id` came before the current hit (in wrapping order: less than half the number
    /// space behind it).
    private func isPassed(_ id: UInt32) -> Bool {
        guard current != 0 else { return false }
        let behind = current &- id
        return behind != 0 && behind < 1 << 31
    }
}

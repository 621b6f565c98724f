/// What a log held: sample count, time span and estimated rate, for one-line summaries.
public struct LogSummary: Equatable, Sendable {
    /// The file name the reader was given.
    public var fileName: String
    /// Data rows read.
    public var samples: Int
    /// Time from the first to the last sample, in seconds.
    public var durationSeconds: Double
    /// Mean sample rate estimated from the timestamps, in Hz (nil with fewer than two samples
    /// or no time elapsed).
    public var rate: Double?

    /// Summarises what `reader` has read.
    public init(reader: SensorLogReader) {
        fileName = reader.fileName
        samples = reader.rowCount
        let span = (reader.lastTime ?? 0) - (reader.firstTime ?? 0)
        durationSeconds = span
        rate = samples >= 2 && span > 0 ? Double(samples - 1) / span : nil
    }

    /// Summarises `samples` samples from `firstTime` to `lastTime` (seconds) read from `fileName`.
    public init(fileName: String, samples: Int, firstTime: Double, lastTime: Double) {
        self.fileName = fileName
        self.samples = samples
        durationSeconds = lastTime - firstTime
        rate = samples >= 2 && durationSeconds > 0 ? Double(samples - 1) / durationSeconds : nil
    }

    /// `log.csv: 1250 samples over 4.996 s (~250.0 Hz)`.
    public var text: String {
        var text = "\(fileName): \(samples) sample\(samples == 1 ? "" : "s") over "
            + DecimalFormatting.string(durationSeconds, decimals: 3) + " s"
        if let rate {
            text += " (~" + DecimalFormatting.string(rate, decimals: 1) + " Hz)"
        } else if samples == 0 {
            text += " (no data rows after the header)"
        }
        return text
    }
}

/// The hits CSV of docs/architecture.md, `drumpad replay` output:
/// `index,t,strength,velocity,struck`. `t` is the time of the data row `index` (the contract);
/// `struck` is when the detector dates the strike (`Hit.time`: within half a sample period of
/// that row for the adaptive detector under 500 Hz, else `t`), the time a live pad sends.
public enum HitCSV {
    /// The header line, with its line end.
    public static let header = "index,t,strength,velocity,struck\n"

    /// Appends one hit as a CSV row: the times with 6 decimals (µs), strength exact (shortest
    /// round-trip form), velocity with 4 decimals.
    public static func append(_ hit: Hit, to out: inout [UInt8]) {
        DecimalFormatting.appendInteger(UInt64(hit.index), to: &out)
        out.append(UInt8(ascii: ","))
        DecimalFormatting.append(hit.sampleTime, decimals: 6, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: hit.strength.description.utf8)
        out.append(UInt8(ascii: ","))
        DecimalFormatting.append(hit.velocity, decimals: 4, to: &out)
        out.append(UInt8(ascii: ","))
        DecimalFormatting.append(hit.time, decimals: 6, to: &out)
        out.append(UInt8(ascii: "\n"))
    }
}

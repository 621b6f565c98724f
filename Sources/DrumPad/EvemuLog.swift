#if canImport(Glibc)
import Glibc
#endif
import HitDetect
import PadSensors

/// An evemu recording (`evemu-record` text) read as a sensor log: its samples in g with times
/// from `MSC_TIMESTAMP` (else the recorded event times), relative to the first sample.
struct EvemuLog {
    /// The samples, with `# gap`s where the kernel dropped events.
    var batch = SensorBatch()
    /// The recording's device name.
    var deviceName: String
    /// Monotonic-free device times of each sample in µs (for pacing), parallel to `batch`.
    var deviceMicros: [Int64] = []

    /// Reads the recording at `path`, taking `axis` as the detector's z.
    init(path: String, axis: Axis, unitsPerG: Double?) throws {
        let text = try FileChunks.readAll(path: path)
        let recording = try EvemuRecording(text: String(decoding: text, as: UTF8.self), fileName: path)
        guard let scale = recording.unitsPerG(override: unitsPerG) else {
            throw DrumPadError.usage("\(path): the recorded device (\"\(recording.name)\") gives no resolution "
                                     + "for its axes; give --units-per-g N (raw units per 1 g)")
        }
        deviceName = recording.name
        (batch, deviceMicros) = recording.sensorBatch(axis: axis, unitsPerG: scale)
    }

    /// What `drumpad replay` says the log held.
    func summary(fileName: String) -> LogSummary {
        LogSummary(fileName: fileName, samples: batch.count, firstTime: batch.time.first ?? 0,
                   lastTime: batch.time.last ?? 0)
    }
}

import PadSensors
import Monotonic

/// A sensor that outlives unplugs: when the device goes away it says so, and reopens it when it
/// returns (the same path; with `--device auto`, a device of the same name, else the first
/// accelerometer), reporting a gap so the detector primes again.
final class LiveSensor {
    private let options: SensorSource.Options
    private(set) var source: SensorSource?
    private let say: (String) -> Void
    private var unpluggedAt: Int64?

    /// Opens the sensor now; throws if it cannot (a sensor missing at start is a set-up error).
    init(options: SensorSource.Options, say: @escaping (String) -> Void) throws {
        self.options = options
        self.say = say
        let opened = try SensorSource.open(options)
        source = opened
        lastName = opened.name
    }

    /// Reads for up to `timeoutMillis`; while unplugged, tries to reopen every half second.
    func read(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws {
        if let current = source {
            do {
                try current.read(timeoutMillis: timeoutMillis, handle)
            } catch {
                guard case .unplugged(let path) = error else { throw error }
                source = nil
                unpluggedAt = MonotonicClock.nowMicros()
                say("sensor unplugged (\(path)); waiting for it to come back")
                handle(.gap)
            }
            return
        }
        MonotonicClock.sleep(untilMicros: MonotonicClock.nowMicros() + Int64(min(timeoutMillis, 500)) * 1000)
        guard let reopened = reopen() else { return }
        source = reopened
        let away = (MonotonicClock.nowMicros() - (unpluggedAt ?? 0)) / 1000
        say("sensor back: \(reopened.path) \"\(reopened.name)\" after \(away) ms")
    }

    private func reopen() -> SensorSource? {
        var attempt = options
        if options.device == "auto", let name = lastName {
            // Prefer the same device: its node number may change when it comes back.
            let same = AccelerometerScan(roots: options.roots, unitsPerG: options.unitsPerG).all()
                .first { $0.name == name && $0.problem == nil }
            if let same { attempt.device = same.path }
        }
        return try? SensorSource.open(attempt)  // not there yet: try again on the next read
    }

    private var lastName: String?
}

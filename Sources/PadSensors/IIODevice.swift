#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// An IIO accelerometer (`/sys/bus/iio/devices/iio:deviceN`): buffered capture from
/// `/dev/iio:deviceN` when the driver has scan elements, else the sysfs `in_accel_*_raw` values
/// polled at the rate asked for.
///
/// Values are `(raw + offset) × scale` in m/s², divided by standard gravity for g. Buffered
/// samples carry the timestamp channel (ns, on `CLOCK_MONOTONIC` once `current_timestamp_clock`
/// is set so); without one, samples are timed by when they were read.
///
/// Thread safety: use each instance from one thread at a time.
public final class IIODevice {
    /// Standard gravity, m/s² per g: IIO reports acceleration in m/s².
    public static let standardGravity = 9.80665

    /// The sysfs folder, such as `/sys/bus/iio/devices/iio:device0`.
    public let sysfsPath: String
    /// The buffer node, such as `/dev/iio:device0`.
    public let devicePath: String
    /// The device's `name`.
    public let name: String
    /// Scale (m/s² per unit) and offset of x, y, z.
    public let scale: [Double], offset: [Double]
    /// Samples per second, when the device says or was told.
    public private(set) var rateHz: Double?
    /// Whether samples come from the buffer (else from polling sysfs).
    public let buffered: Bool

    private var layout: IIOScanLayout?
    /// The channels of a record, looked up once when the capture starts.
    private var channels: (x: IIOScanLayout.Channel?, y: IIOScanLayout.Channel?, z: IIOScanLayout.Channel,
                           stamp: IIOScanLayout.Channel?)?
    private var fd: Int32 = -1
    private var pending: [UInt8] = []
    private var buffer: [UInt8]
    private var nextPollMicros: Int64 = 0

    /// Opens the device in `sysfsPath`, with its buffer node `devicePath`; `rateHz` is written to
    /// `sampling_frequency` when given; `pollOnly` skips the buffer.
    public init(sysfsPath: String, devicePath: String, rateHz: Double? = nil, pollOnly: Bool = false) throws(SensorError) {
        self.sysfsPath = sysfsPath
        self.devicePath = devicePath
        name = SystemFiles.readName("\(sysfsPath)/name") ?? "IIO device"
        var scales: [Double] = []
        var offsets: [Double] = []
        for axis in ["x", "y", "z"] {
            guard let scale = Self.number("\(sysfsPath)/in_accel_\(axis)_scale") ?? Self.number("\(sysfsPath)/in_accel_scale")
            else {
                throw .badIIO(path: sysfsPath, message: "no in_accel_scale or in_accel_\(axis)_scale; is this an accelerometer?")
            }
            scales.append(scale)
            offsets.append(Self.number("\(sysfsPath)/in_accel_\(axis)_offset") ?? Self.number("\(sysfsPath)/in_accel_offset") ?? 0)
        }
        scale = scales
        offset = offsets
        if let rateHz {
            let code = SystemFiles.writeText(plainNumber(rateHz), to: "\(sysfsPath)/sampling_frequency")
            if code != 0 {
                throw .badIIO(path: "\(sysfsPath)/sampling_frequency",
                              message: "cannot set \(plainNumber(rateHz)) Hz: \(SystemErrorText.text(code)); "
                                  + "the rates it takes: \(SystemFiles.readText("\(sysfsPath)/sampling_frequency_available") ?? "unknown")")
            }
        }
        self.rateHz = Self.number("\(sysfsPath)/sampling_frequency") ?? rateHz
        buffered = !pollOnly && SystemFiles.exists("\(sysfsPath)/scan_elements/in_accel_z_en")
            && SystemFiles.exists(devicePath)
        buffer = [UInt8](repeating: 0, count: 4096)
        if buffered {
            try startBuffer()
        } else if self.rateHz == nil {
            self.rateHz = 100
        }
    }

    deinit {
        if fd >= 0 {
            close(fd)
            SystemFiles.writeText("0", to: "\(sysfsPath)/buffer/enable")
        }
    }

    private func startBuffer() throws(SensorError) {
        let scan = "\(sysfsPath)/scan_elements"
        SystemFiles.writeText("0", to: "\(sysfsPath)/buffer/enable")  // it may be left on by a crash
        // Timestamps on the pad's clock; older kernels lack the attribute and use realtime.
        SystemFiles.writeText("monotonic", to: "\(sysfsPath)/current_timestamp_clock")
        var enabled: [(name: String, index: Int, type: IIOScanLayout.ScanType)] = []
        for channel in ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"] {
            guard SystemFiles.exists("\(scan)/\(channel)_en") else { continue }
            let code = SystemFiles.writeText("1", to: "\(scan)/\(channel)_en")
            if code != 0 {
                throw .cannotOpen(path: "\(scan)/\(channel)_en", errno: code, fix: EvdevDevice.fix(forOpenErrno: code))
            }
            guard let indexText = SystemFiles.readText("\(scan)/\(channel)_index"), let index = Int(indexText),
                  let typeText = SystemFiles.readText("\(scan)/\(channel)_type"),
                  let type = IIOScanLayout.ScanType(typeText) else {
                throw .badIIO(path: "\(scan)/\(channel)_type", message: "missing or malformed _index/_type")
            }
            enabled.append((channel, index, type))
        }
        let layout = IIOScanLayout(enabled)
        guard let z = layout.channel("in_accel_z"), layout.recordBytes > 0 else {
            throw .badIIO(path: scan, message: "in_accel_z cannot be enabled")
        }
        self.layout = layout
        channels = (layout.channel("in_accel_x"), layout.channel("in_accel_y"), z, layout.channel("in_timestamp"))
        SystemFiles.writeText("128", to: "\(sysfsPath)/buffer/length")
        let code = SystemFiles.writeText("1", to: "\(sysfsPath)/buffer/enable")
        if code != 0 {
            throw .cannotOpen(path: "\(sysfsPath)/buffer/enable", errno: code, fix: EvdevDevice.fix(forOpenErrno: code))
        }
        fd = open(devicePath, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            let error = errno
            SystemFiles.writeText("0", to: "\(sysfsPath)/buffer/enable")
            throw .cannotOpen(path: devicePath, errno: error, fix: EvdevDevice.fix(forOpenErrno: error))
        }
        let size = layout.recordBytes
        buffer = [UInt8](repeating: 0, count: max(4096 / size, 1) * size)
    }

    /// Bytes per buffered record (nil when polling).
    public var recordBytes: Int? { layout?.recordBytes }

    /// Waits up to `timeoutMillis` for samples and hands over each one read.
    public func read(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws(SensorError) {
        if buffered { try readBuffer(timeoutMillis: timeoutMillis, handle) } else { try poll(timeoutMillis: timeoutMillis, handle) }
    }

    private func readBuffer(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws(SensorError) {
        guard let layout, let channels else { return }
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = Glibc.poll(&waiting, 1, timeoutMillis)
        if ready < 0 {
            if errno == EINTR { return }
            throw .deviceFailed(path: devicePath, call: "poll", errno: errno)
        }
        if ready == 0 { return }
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EAGAIN || errno == EINTR { return }
            if errno == ENODEV { throw .unplugged(path: devicePath) }
            throw .deviceFailed(path: devicePath, call: "read", errno: errno)
        }
        if n == 0 {
            // A FIFO's writer closed; a real IIO buffer never reads 0 bytes.
            if waiting.revents & Int16(POLLHUP) != 0 { throw .unplugged(path: devicePath) }
            return
        }
        pending.append(contentsOf: buffer[0..<n])
        let size = layout.recordBytes
        let complete = pending.count / size
        let now = MonotonicClock.nowMicros()
        let period = Int64(1e6 / (rateHz ?? 100))
        let (x, y, z, stamp) = channels
        pending.withUnsafeBytes { bytes in
            for i in 0..<complete {
                let record = UnsafeRawBufferPointer(rebasing: bytes[i * size..<(i + 1) * size])
                let micros = stamp.map { layout.value(of: $0, in: record) / 1000 } ?? now - Int64(complete - 1 - i) * period
                func g(_ channel: IIOScanLayout.Channel?, _ axis: Int) -> Double {
                    guard let channel else { return 0 }
                    return (Double(layout.value(of: channel, in: record)) + offset[axis]) * scale[axis] / Self.standardGravity
                }
                handle(.sample(SensorSample(deviceMicros: micros, monotonicMicros: micros, x: g(x, 0), y: g(y, 1), z: g(z, 2))))
            }
        }
        pending.removeFirst(complete * size)
    }

    private func poll(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws(SensorError) {
        let period = Int64(1e6 / (rateHz ?? 100))
        let deadline = MonotonicClock.nowMicros() + Int64(timeoutMillis) * 1000
        if nextPollMicros == 0 { nextPollMicros = MonotonicClock.nowMicros() }
        while nextPollMicros <= deadline {
            MonotonicClock.sleep(untilMicros: nextPollMicros)
            var values: [Double] = []
            for (i, axis) in ["x", "y", "z"].enumerated() {
                let path = "\(sysfsPath)/in_accel_\(axis)_raw"
                guard let raw = Self.number(path) else {
                    if !SystemFiles.exists(sysfsPath) { throw .unplugged(path: sysfsPath) }
                    throw .badIIO(path: path, message: "cannot be read as a number")
                }
                values.append((raw + offset[i]) * scale[i] / Self.standardGravity)
            }
            let now = MonotonicClock.nowMicros()
            handle(.sample(SensorSample(deviceMicros: now, monotonicMicros: now, x: values[0], y: values[1], z: values[2])))
            nextPollMicros += period
            if nextPollMicros < now - 10 * period {
                nextPollMicros = now + period  // fell far behind (a stall): do not burst to catch up
                handle(.gap)
            }
        }
    }

    static func number(_ path: String) -> Double? {
        SystemFiles.readText(path).flatMap { Double($0) }
    }
}

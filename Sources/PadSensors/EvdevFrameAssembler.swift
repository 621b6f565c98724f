/// Turns a stream of evdev events into accelerometer samples: one sample per `SYN_REPORT` frame.
///
/// The kernel sends only the axes whose value changed (after its fuzz filter), so an axis that was
/// not re-sent keeps its last value. Sample times come from `MSC_TIMESTAMP` (a u32 µs counter that
/// wraps about every 71.6 minutes) when the device sends it, so several samples delivered in one
/// burst with one kernel time stay apart; else from the kernel's event time. `SYN_DROPPED` means
/// the kernel's buffer overflowed: the frame in progress is void, events up to the next
/// `SYN_REPORT` are discarded, and a gap is reported.
///
/// The monotonic time of a sample is its device time plus an offset tracked as the least delay
/// seen (`kernel time − device time`), allowed to creep up by 200 ppm so that drift between the
/// two clocks is followed: the sample delivered soonest after it was taken anchors the mapping,
/// and the earlier samples of a burst get earlier times than the burst's one kernel time.
///
/// Thread safety: a value type; use each instance from one thread at a time. Allocation-free.
public struct EvdevFrameAssembler: Sendable {
    /// Units per g of x, y and z.
    public let unitsPerG: (x: Double, y: Double, z: Double)
    /// The raw values of x, y, z as last sent (or as the device reported at open).
    public private(set) var raw: (x: Int32, y: Int32, z: Int32)

    private var frameHasData = false
    private var frameDeviceStamp: UInt32?
    private var discarding = false
    private var lastStamp: UInt32?
    private var unwrappedStamp: Int64 = 0
    private var offsetMicros: Int64?
    private var offsetAtMicros: Int64 = 0

    /// Drift between the sensor's clock and the monotonic clock that the offset follows (ppm).
    static let driftPPM: Int64 = 200

    /// An assembler for axes scaled by `unitsPerG`, starting from the raw values `initial`.
    public init(unitsPerG: (x: Double, y: Double, z: Double), initial: (x: Int32, y: Int32, z: Int32) = (0, 0, 0)) {
        precondition(unitsPerG.x > 0 && unitsPerG.y > 0 && unitsPerG.z > 0, "units per g must be > 0")
        self.unitsPerG = unitsPerG
        self.raw = initial
    }

    /// Feeds one event; returns a sample when `event` completes a frame, or `.gap` on `SYN_DROPPED`.
    public mutating func feed(_ event: InputEvent) -> SensorEvent? {
        typealias C = InputEvent.Code
        switch (event.type, event.code) {
        case (C.synType, C.synDropped):
            discarding = true
            frameHasData = false
            frameDeviceStamp = nil
            return .gap
        case (C.synType, C.synReport):
            defer {
                frameHasData = false
                frameDeviceStamp = nil
            }
            if discarding {
                discarding = false
                return nil
            }
            guard frameHasData || frameDeviceStamp != nil else { return nil }
            return .sample(sample(kernelMicros: event.timeMicros))
        case _ where discarding:
            return nil
        case (C.absType, C.absX):
            raw.x = event.value
            frameHasData = true
        case (C.absType, C.absY):
            raw.y = event.value
            frameHasData = true
        case (C.absType, C.absZ):
            raw.z = event.value
            frameHasData = true
        case (C.mscType, C.mscTimestamp):
            frameDeviceStamp = UInt32(bitPattern: event.value)
        default:
            break
        }
        return nil
    }

    /// Voids the frame in progress after libevdev reported `SYN_DROPPED` (it discards the dropped
    /// events itself and then resyncs; see `applySync`); returns the gap to report.
    public mutating func markDropped() -> SensorEvent {
        frameHasData = false
        frameDeviceStamp = nil
        return .gap
    }

    /// Takes the device's state after a resync (libevdev's `LIBEVDEV_READ_FLAG_SYNC` events): axis
    /// values change, but no sample is made of them.
    public mutating func applySync(_ event: InputEvent) {
        guard event.type == InputEvent.Code.absType else { return }
        switch event.code {
        case InputEvent.Code.absX: raw.x = event.value
        case InputEvent.Code.absY: raw.y = event.value
        case InputEvent.Code.absZ: raw.z = event.value
        default: break
        }
    }

    private mutating func sample(kernelMicros: Int64) -> SensorSample {
        let deviceMicros: Int64
        if let stamp = frameDeviceStamp {
            if let last = lastStamp {
                unwrappedStamp += Int64(stamp &- last)  // modulo 2³²: a wrap is one step forward
            } else {
                unwrappedStamp = Int64(stamp)
            }
            lastStamp = stamp
            deviceMicros = unwrappedStamp
        } else if let offset = offsetMicros, lastStamp != nil {
            // A device that stamps its samples sent a frame without a stamp: place it on the
            // device clock through the current mapping.
            deviceMicros = kernelMicros &- offset
        } else {
            deviceMicros = kernelMicros
        }
        // Times from a recording can be anything: wrapping arithmetic gives nonsense times for
        // nonsense input, not a trap (found by fuzzing: a jump of 10¹⁸ µs overflowed the creep).
        let delay = kernelMicros &- deviceMicros
        if let offset = offsetMicros {
            let (creep, overflow) = (kernelMicros &- offsetAtMicros).multipliedReportingOverflow(by: Self.driftPPM)
            offsetMicros = overflow ? delay : min(offset &+ creep / 1_000_000, delay)
        } else {
            offsetMicros = delay
        }
        offsetAtMicros = kernelMicros
        return SensorSample(
            deviceMicros: deviceMicros, monotonicMicros: deviceMicros &+ offsetMicros!,
            x: Double(raw.x) / unitsPerG.x, y: Double(raw.y) / unitsPerG.y, z: Double(raw.z) / unitsPerG.z)
    }
}

/// One kernel input event (`struct input_event`), as read from an evdev node or an evemu
/// recording.
///
/// The numbers are the kernel's ABI (linux/input-event-codes.h); the few this package uses are
/// named in `InputEvent.Code` so the pure parts need no C import.
public struct InputEvent: Sendable, Equatable {
    /// The event's type: `EV_SYN`, `EV_ABS`, `EV_MSC`, ...
    public var type: UInt16
    /// The code within the type: `ABS_Z`, `MSC_TIMESTAMP`, `SYN_REPORT`, ...
    public var code: UInt16
    /// The value; for `MSC_TIMESTAMP` the bit pattern of a u32 µs counter.
    public var value: Int32
    /// The kernel's time of the event in µs (the clock the reader chose; monotonic for drumpad).
    public var timeMicros: Int64

    /// An event of `type` and `code` with `value`, stamped `timeMicros`.
    public init(type: UInt16, code: UInt16, value: Int32, timeMicros: Int64) {
        self.type = type
        self.code = code
        self.value = value
        self.timeMicros = timeMicros
    }
}

extension InputEvent {
    /// Event types and codes of linux/input-event-codes.h that pads use.
    public enum Code {
        public static let synType: UInt16 = 0x00
        public static let absType: UInt16 = 0x03
        public static let mscType: UInt16 = 0x04
        public static let synReport: UInt16 = 0
        public static let synDropped: UInt16 = 3
        public static let absX: UInt16 = 0x00
        public static let absY: UInt16 = 0x01
        public static let absZ: UInt16 = 0x02
        public static let mscTimestamp: UInt16 = 0x05
        /// `INPUT_PROP_ACCELEROMETER`: the node is a motion sensor whose ABS resolution is units per g.
        public static let propAccelerometer = 6
    }
}

/// An absolute axis' range, fuzz, flat and resolution (the kernel's `struct input_absinfo`), as
/// a node reports it or an evemu recording's `A:` line gives it.
public struct AbsInfo: Sendable, Equatable {
    public var value: Int32
    public var minimum: Int32, maximum: Int32, fuzz: Int32, flat: Int32, resolution: Int32

    public init(value: Int32 = 0, minimum: Int32, maximum: Int32, fuzz: Int32, flat: Int32, resolution: Int32) {
        self.value = value
        self.minimum = minimum
        self.maximum = maximum
        self.fuzz = fuzz
        self.flat = flat
        self.resolution = resolution
    }
}

/// An accelerometer axis.
public enum Axis: String, Sendable, CaseIterable {
    case x, y, z

    /// 0, 1, 2: the axis' `ABS_` code and its place in `(x, y, z)`.
    public var index: Int {
        switch self {
        case .x: 0
        case .y: 1
        case .z: 2
        }
    }
}

/// One accelerometer sample in g, with its time on the sensor's own clock and on this machine's
/// monotonic clock.
public struct SensorSample: Sendable, Equatable {
    /// When the sensor took the sample, in µs on its own clock (`MSC_TIMESTAMP` unwrapped, or the
    /// kernel's event time when the device sends none). Only differences mean anything.
    public var deviceMicros: Int64
    /// The same moment on `CLOCK_MONOTONIC`, in µs: what the pad sends with a hit.
    public var monotonicMicros: Int64
    /// Acceleration in g along x, y and z.
    public var x: Double, y: Double, z: Double

    /// A sample; see the properties.
    public init(deviceMicros: Int64, monotonicMicros: Int64, x: Double, y: Double, z: Double) {
        self.deviceMicros = deviceMicros
        self.monotonicMicros = monotonicMicros
        self.x = x
        self.y = y
        self.z = z
    }

    /// The value along `axis`.
    public func value(_ axis: Axis) -> Double {
        switch axis {
        case .x: x
        case .y: y
        case .z: z
        }
    }

    /// The values along the other two axes, in order (x and y when `axis` is z).
    public func across(_ axis: Axis) -> (Double, Double) {
        switch axis {
        case .x: (y, z)
        case .y: (x, z)
        case .z: (x, y)
        }
    }
}

/// What a sensor source delivers: samples, and gaps where samples were lost (the detector primes
/// again after one).
public enum SensorEvent: Sendable, Equatable {
    case sample(SensorSample)
    case gap
}

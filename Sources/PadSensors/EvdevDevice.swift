import CEvdev
#if canImport(Glibc)
import Glibc
#endif

/// An evdev accelerometer node read through libevdev.
///
/// Opened non-blocking with event times on `CLOCK_MONOTONIC` (so a sample's kernel time compares
/// with the pad's clock). `read` follows libevdev's model loop (tools/libevdev-events.c):
/// `LIBEVDEV_READ_STATUS_SYNC` means the kernel dropped events; the device state is then resynced
/// through `LIBEVDEV_READ_FLAG_SYNC` and a gap is reported.
///
/// Thread safety: use each instance from one thread at a time.
public final class EvdevDevice {
    /// The node's path, such as `/dev/input/event5`.
    public let path: String
    /// What the device says about itself.
    public let info: EvdevInfo
    private let fd: Int32
    private let device: OpaquePointer
    private var assembler: EvdevFrameAssembler

    /// Opens `path`; `unitsPerG` overrides the scale (`--units-per-g`).
    public init(path: String, unitsPerG override: Double? = nil) throws(SensorError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw .cannotOpen(path: path, errno: code, fix: EvdevDevice.fix(forOpenErrno: code))
        }
        var made: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &made)
        guard rc >= 0, let made else {
            close(fd)
            throw .deviceFailed(path: path, call: "libevdev_new_from_fd", errno: -rc)
        }
        // Without this the kernel stamps events with CLOCK_REALTIME, which jumps with NTP.
        _ = libevdev_set_clock_id(made, CLOCK_MONOTONIC)
        self.path = path
        self.fd = fd
        self.device = made
        let info = EvdevInfo(device: made, path: path)
        self.info = info
        guard info.hasXYZ else {
            libevdev_free(made)
            close(fd)
            throw .notAnAccelerometer(path: path, why: "it has no ABS_X, ABS_Y and ABS_Z axes")
        }
        guard let scale = info.unitsPerG(override: override) else {
            libevdev_free(made)
            close(fd)
            throw .unknownScale(path: path, name: info.name)
        }
        assembler = EvdevFrameAssembler(unitsPerG: scale, initial: info.currentValues)
    }

    deinit {
        libevdev_free(device)
        close(fd)
    }

    /// The units per g in use for x, y and z.
    public var unitsPerG: (x: Double, y: Double, z: Double) { assembler.unitsPerG }

    /// The open file descriptor, for `poll`.
    public var fileDescriptor: Int32 { fd }

    /// Waits up to `timeoutMillis` for events and hands over every sample (and gap) read. Returns
    /// when no more events are pending. Throws `.unplugged` when the device is gone.
    public func read(timeoutMillis: Int32, _ handle: (SensorEvent) -> Void) throws(SensorError) {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&waiting, 1, timeoutMillis)
        if ready < 0 {
            if errno == EINTR { return }
            throw .deviceFailed(path: path, call: "poll", errno: errno)
        }
        if ready == 0 { return }
        if waiting.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 && waiting.revents & Int16(POLLIN) == 0 {
            throw .unplugged(path: path)
        }
        var event = input_event()
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(device, flags, &event)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                let made = InputEvent(type: event.type, code: event.code, value: event.value,
                                      timeMicros: CEvdev_event_micros(&event))
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue {
                    assembler.applySync(made)
                } else if let out = assembler.feed(made) {
                    handle(out)
                }
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                // SYN_DROPPED: read the resync events (the device's state now) before going on.
                handle(assembler.markDropped())
                flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
            } else if rc == -EAGAIN {
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue {
                    flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
                    continue
                }
                return
            } else if rc == -ENODEV {
                throw .unplugged(path: path)
            } else if rc == -EINTR {
                continue
            } else {
                throw .deviceFailed(path: path, call: "libevdev_next_event", errno: -rc)
            }
        }
    }

    /// What to tell a user who cannot open a node.
    public static func fix(forOpenErrno code: Int32) -> String {
        switch code {
        case EACCES, EPERM:
            return "install the udev rule that gives the drumpad group access to accelerometers "
                + "(sudo cp contrib/udev/70-drumpad.rules /etc/udev/rules.d/ && sudo udevadm control --reload "
                + "&& sudo udevadm trigger), join the group (sudo groupadd -f drumpad && sudo usermod -aG "
                + "drumpad $USER) and log in again"
        case ENOENT, ENODEV:
            return "the device is not there; run `drumpad devices` to see what is"
        default:
            return ""
        }
    }
}

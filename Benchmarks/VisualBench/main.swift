// visual-bench: the brain's terminal visual, its CPU use at 60 fps with 20 hits/s (issue 7).
//
//   swift run -c release visual-bench [--seconds S] [--fps N] [--hits-per-second H]
//                                     [--size COLSxROWS] [--color none|basic|256|truecolor]
//                                     [--sink pty|null]
//
// Runs the real render thread (VisualRenderer, as drumbrain does) on the bundled kit's seven
// drums, with a status of three pads updated 4 times a second, drawing into a pseudo-terminal
// whose other end a reader thread drains (or into /dev/null). Hits come from the main thread.
// CPU time comes from getrusage: the whole process, and the reader's and the sender's own
// (RUSAGE_THREAD); the render thread's is the rest.
import DrumVisual
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

var seconds = 10.0
var fps = 60
var hitsPerSecond = 20.0
var size = (width: 120, height: 40)
var color = ColorMode.truecolor
var sink = "pty"
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    let value = arguments.next() ?? ""
    switch argument {
    case "--seconds": seconds = Double(value) ?? seconds
    case "--fps": fps = Int(value) ?? fps
    case "--hits-per-second": hitsPerSecond = Double(value) ?? hitsPerSecond
    case "--size":
        let parts = value.split(separator: "x").compactMap { Int($0) }
        if parts.count == 2 { size = (parts[0], parts[1]) }
    case "--color":
        color = ["none": .none, "basic": .basic, "256": .palette256, "truecolor": .truecolor][value] ?? color
    case "--sink": sink = value
    default:
        print("visual-bench: unknown option \(argument)")
        exit(2)
    }
}

/// CPU seconds (user, system) of `who`. The corresponding C function is `getrusage`.
func cpuTime(_ who: Int32) -> (user: Double, system: Double) {
    var usage = rusage()
    getrusage(__rusage_who_t(who), &usage)
    return (Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6)
}

func monotonic() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

// The sink: a pseudo-terminal of the given size, or /dev/null.
var drawFD: Int32
var master: Int32 = -1
if sink == "pty" {
    // What posix_openpt, unlockpt and ptsname do on Linux (Glibc's module does not export them):
    // open the multiplexer, unlock the new pair (TIOCSPTLCK), ask its number (TIOCGPTN). The two
    // request numbers are function-like macros in C, so they are spelled out.
    let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
    master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
    var unlock: Int32 = 0
    var number: UInt32 = 0
    guard master >= 0, ioctl(master, TIOCSPTLCK, &unlock) == 0, ioctl(master, TIOCGPTN, &number) == 0 else {
        print("visual-bench: cannot open a pseudo-terminal: \(String(cString: strerror(errno)))")
        exit(1)
    }
    drawFD = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
    var window = winsize(ws_row: UInt16(size.height), ws_col: UInt16(size.width), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(drawFD, UInt(TIOCSWINSZ), &window)
} else {
    drawFD = open("/dev/null", O_WRONLY)
}

/// The pty's other end, drained by its own thread (as a terminal emulator would).
final class Reader: @unchecked Sendable {
    // @unchecked: `cpu` is written by the reader thread before it ends and read after the join.
    let fd: Int32
    let received = Atomic<Int>(0)
    let stop = Atomic<Bool>(false)
    var cpu = (user: 0.0, system: 0.0)
    var thread = pthread_t()
    init(fd: Int32) { self.fd = fd }

    func start() {
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let reader = Unmanaged<Reader>.fromOpaque(argument!).takeRetainedValue()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !reader.stop.load(ordering: .acquiring) {
                var poller = pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 50) > 0 else { continue }
                let n = read(reader.fd, &buffer, buffer.count)
                if n > 0 { reader.received.wrappingAdd(n, ordering: .relaxed) }
            }
            reader.cpu = cpuTime(1)  // RUSAGE_THREAD
            return nil
        }, me)
    }

    func join() {
        stop.store(true, ordering: .releasing)
        pthread_join(thread, nil)
    }
}
let reader = master >= 0 ? Reader(fd: master) : nil
reader?.start()

// The bundled kit's drums (Samples/kit/kit.json).
let kit = [("kick", 0.0), ("snare", -15.0), ("hihat", -45.0), ("racktom", 15.0), ("floortom", 45.0),
           ("crash", -35.0), ("ride", 40.0)].map { VisualDrum(name: $0.0, azimuth: $0.1) }
let renderer = VisualRenderer(drums: kit, configuration: .init(
    fd: drawFD, framesPerSecond: fps, colorMode: color, seed: 7,
    fallbackSize: size, takeTerminal: false))
func status(_ hits: Int) -> BrainStatus {
    BrainStatus(brainName: "bench", listening: "0.0.0.0:7770", kitName: "Default",
                output: "null (48000 Hz, real time)", xruns: 0,
                connections: ["kick", "snare", "hihat"].enumerated().map { i, drum in
                    PadStatus(name: "pad-\(drum)", drum: drum, address: "192.168.1.\(20 + i):4\(1000 + i)",
                              roundTripMicros: 650 + Int64(hits % 50), clockOffsetMicros: -1234 + Int64(i),
                              hits: hits / 3, gaps: 0)
                })
}
renderer.update(status: status(0))

let processBefore = cpuTime(0)  // RUSAGE_SELF
let senderBefore = cpuTime(1)
let started = monotonic()
renderer.start()
var random = SeededRandom(seed: 42)
var sent = 0
var nextStatus = started + 0.25
while true {
    let due = started + Double(sent) / hitsPerSecond
    let now = monotonic()
    if now - started >= seconds { break }
    if now >= nextStatus {
        renderer.update(status: status(sent))
        nextStatus += 0.25
    }
    if now >= due {
        let drum = Int32(random.next() % UInt64(kit.count))
        renderer.hits.push(VisualHit(drum: drum, velocity: random.float(in: 0.2...1),
                                     latencyMicros: 200 + Int64(random.next() % 300)))
        renderer.timings.push(VisualHit(drum: -1, velocity: 0, brainMicros: 800 + Int64(random.next() % 2000)))
        sent += 1
        continue
    }
    let wait = min(due, nextStatus) - now
    usleep(UInt32(max(0, min(wait, 0.05)) * 1e6))
}
renderer.stop()
let elapsed = monotonic() - started
let senderAfter = cpuTime(1)
reader?.join()
let processAfter = cpuTime(0)

let processCPU = (processAfter.user - processBefore.user) + (processAfter.system - processBefore.system)
let senderCPU = (senderAfter.user - senderBefore.user) + (senderAfter.system - senderBefore.system)
let readerCPU = (reader?.cpu.user ?? 0) + (reader?.cpu.system ?? 0)
let renderCPU = processCPU - senderCPU - readerCPU
func percent(_ value: Double) -> String {
    let scaled = Int((value / elapsed * 10000).rounded())
    return "\(scaled / 100).\(scaled % 100 < 10 ? "0" : "")\(scaled % 100) %"
}
let frames = renderer.framesDrawn
print("visual-bench: \(Int(elapsed.rounded())) s at \(fps) fps (\(frames) frames drawn), \(sent) hits "
      + "(\(Int(hitsPerSecond)) per s), \(size.width)x\(size.height), \(color), sink \(sink)")
print("  render thread: \(percent(renderCPU)) of one core")
print("  whole process: \(percent(processCPU)) (with the hit sender \(percent(senderCPU)) and the pty reader \(percent(readerCPU)))")
print("  written: \(renderer.bytesWritten / max(1, frames)) bytes per frame, \(Int(Double(renderer.bytesWritten) / elapsed / 1024)) KiB/s"
      + (reader.map { "; the pty delivered \($0.received.load(ordering: .relaxed)) bytes" } ?? ""))

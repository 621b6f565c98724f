// drumnet-bench: pads → brain on loopback, as in issue 4's benchmark.
//
//   swift run -c release drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ] [--seed N]
//                                      [--no-floor] [--drumbrain PORT:PID]
//
// For each pad count, that many pads (PadLink, sharing one event-loop thread) connect to a brain
// (BrainServer, on its own thread, in this process) and each sends `rate` hits per second plus
// its pings, for S seconds. Each pad keeps its own period from a random phase (seeded, so a run
// can be repeated with --seed), and each hit is one packet in one write, as PadLink sends it.
// Reported: hit latency from the pad's send to the brain's handler (both read the same monotonic
// clock, so no offset is involved) p50/p99/max, hits lost, and the CPU time the brain's network
// thread used as a share of one core, in all and split into user and kernel time.
//
// Then, in the same run and with the same pads and phases, the "floor" row: a bare C epoll server
// (Benchmarks/EpollFloor) that only wakes, reads and answers pings, and takes each hit's latency
// from its pad time as the brain's handler does, decoding nothing else. What the brain uses above
// it is the cost of its own code; the floor is what the kernel charges any server for this load
// on this machine at that moment, and its latency what the machine's wake-ups allow.
//
// With --drumbrain PORT:PID the pads play a drumbrain already running (tools/bench/drumbrain-cpu
// starts one), and the row is its network thread (`drumbrain-net`, read from /proc): the whole
// brain's path, with the kit lookup, the hand-off to the audio thread and to the hit printer.
import DrumNet
import DrumVisual  // SeededRandom
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Monotonic
import CEpollFloor
import PadSensors  // SystemFiles

var seconds = 10.0
var padCounts = [1, 8, 64, 256]
var rate = 20.0
var seed: UInt64 = 4
var withFloor = true
/// A drumbrain already running: its port and process ID (`--drumbrain PORT:PID`).
var external: (port: Int, pid: Int)?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--pads": padCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--rate": rate = Double(arguments.next() ?? "") ?? rate
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    case "--no-floor": withFloor = false
    case "--drumbrain":
        let parts = (arguments.next() ?? "").split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2 else { print("drumnet-bench: --drumbrain takes PORT:PID"); exit(2) }
        external = (parts[0], parts[1])
    default:
        print("usage: drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ] [--seed N] [--no-floor] [--drumbrain PORT:PID]")
        exit(argument == "--help" ? 0 : 2)
    }
}

/// Latencies seen by the brain's handler, µs.
final class Latencies: Sendable {
    let values = Mutex<[Int64]>([])
    func add(_ value: Int64) { values.withLock { $0.append(value) } }
}

/// CPU time used so far by the calling thread, µs: in all, in user space and in the kernel.
func threadCPUMicros() -> (total: Int64, user: Int64, system: Int64) {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    var usage = rusage()
    // RUSAGE_THREAD (1): Glibc's module map hides the GNU name.
    getrusage(1, &usage)  // cannot fail for the calling thread
    func micros(_ t: timeval) -> Int64 { Int64(t.tv_sec) * 1_000_000 + Int64(t.tv_usec) }
    return (Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000, micros(usage.ru_utime), micros(usage.ru_stime))
}

func percentile(_ sorted: [Int64], _ p: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
}

func rightPad(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

print("drumnet-bench: \(rate) hits/s per pad plus pings, \(seconds) s per row, loopback, "
      + "\(ProcessInfoLite.cores) cores, seed \(seed)")
let headerLeft: String = pad("pads", 5) + "  " + rightPad("server", 9) + pad("hits", 8) + pad("lost", 6)
let headerRight: String = pad("p50 µs", 9) + pad("p99 µs", 9) + pad("max µs", 9) + pad("CPU", 8) + pad("user", 8) + pad("kernel", 8)
print(headerLeft + headerRight)

/// The server under measurement: the brain, the C floor beside it, or a drumbrain apart.
protocol Server: Sendable {
    var port: Int { get }
    /// Pads connected (and, for the brain, said hello).
    func connected() async throws -> Int
    /// Counts hits received (and their latencies, where measured) afresh, with room for `expected`.
    func startCounting(expected: Int)
    /// Hits received since `startCounting`, or nil where the server cannot say.
    func received() -> Int?
    /// Their latencies, send → handler, µs, where the server measures them.
    func latencies() -> [Int64]?
    /// The server thread's CPU time so far, µs: total, user, system.
    func cpu() async throws -> (total: Int64, user: Int64, system: Int64)
    func stop() async
}

struct Brain: Server {
    let server: BrainServer
    let measured: Latencies
    var port: Int { server.port }

    /// A brain on loopback whose handler records each hit's latency.
    init(pads: Int) async throws {
        let measured = Latencies()
        server = try await BrainServer(
            configuration: .init(host: "127.0.0.1", port: 0, brainName: "bench", kitName: "none",
                                 maxConnections: pads + 16),
            onHit: { received in
                // The handler's own reading: send → handler, whatever the brain did before calling it.
                if let sent = received.hit.padTimeMicros { measured.add(MonotonicClock.nowMicros() - sent) }
            })
        self.measured = measured
    }

    func connected() async throws -> Int { try await server.statistics().filter { $0.padName != nil }.count }
    func startCounting(expected: Int) {
        // Room for every hit, so that the handler's append never grows the array mid-run.
        measured.values.withLock {
            $0.removeAll(keepingCapacity: true)
            $0.reserveCapacity(expected)
        }
    }
    func received() -> Int? { measured.values.withLock { $0.count } }
    func latencies() -> [Int64]? { measured.values.withLock { $0 } }
    func cpu() async throws -> (total: Int64, user: Int64, system: Int64) {
        try await server.onNetworkThread { threadCPUMicros() }
    }
    func stop() async { _ = await server.stop() }
}

final class Floor: Server, Sendable {
    /// The C floor; its calls are thread-safe (atomics).
    nonisolated(unsafe) let floor: OpaquePointer
    let port: Int
    /// Messages the floor had read, and latencies it had measured, when counting started.
    let countedFrom = Atomic<Int>(0)
    let latenciesFrom = Atomic<Int>(0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 1024) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, bound, let floor = epoll_floor_start(fd) else {
            throw BenchError("cannot start the C floor: \(String(cString: strerror(errno)))")
        }
        self.floor = floor
        port = Int(UInt16(bigEndian: address.sin_port))
    }
    func connected() async throws -> Int { epoll_floor_connections(floor) }
    func startCounting(expected: Int) {
        countedFrom.store(epoll_floor_messages(floor), ordering: .relaxed)
        latenciesFrom.store(epoll_floor_latency_count(floor), ordering: .relaxed)
    }
    func received() -> Int? { epoll_floor_messages(floor) - countedFrom.load(ordering: .relaxed) }
    func latencies() -> [Int64]? {
        let from = latenciesFrom.load(ordering: .relaxed)
        let count = max(0, epoll_floor_latency_count(floor) - from)
        return [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = epoll_floor_latencies(floor, from, buffer.baseAddress, count)
        }
    }
    func cpu() async throws -> (total: Int64, user: Int64, system: Int64) {
        var total: Int64 = 0, user: Int64 = 0, system: Int64 = 0
        epoll_floor_cpu(floor, &total, &user, &system)
        return (total, user, system)
    }
    func stop() async { epoll_floor_stop(floor) }
}

/// A `drumbrain` process running apart: its network thread's CPU from /proc (schedstat for the
/// total, stat for the user and kernel split, in clock ticks).
struct Drumbrain: Server {
    let port: Int
    let pid: Int
    let thread: Int

    init(port: Int, pid: Int) throws {
        self.port = port
        self.pid = pid
        guard let found = SystemFiles.list("/proc/\(pid)/task").first(where: {
            SystemFiles.readText("/proc/\(pid)/task/\($0)/comm") == "drumbrain-net"
        }).flatMap({ Int($0) }) else {
            throw BenchError("no thread drumbrain-net in process \(pid): is it a drumbrain?")
        }
        thread = found
    }

    func connected() async throws -> Int {
        try await Task.sleep(for: .seconds(2))  // no statistics to ask for: give the pads time
        return Int.max
    }
    // Not asked what it received: tools/bench/drumbrain-cpu counts its lines.
    func startCounting(expected: Int) {}
    func received() -> Int? { nil }
    func latencies() -> [Int64]? { nil }
    func cpu() async throws -> (total: Int64, user: Int64, system: Int64) {
        let task = "/proc/\(pid)/task/\(thread)"
        guard let schedstat = SystemFiles.readText("\(task)/schedstat"), let stat = SystemFiles.readText("\(task)/stat"),
              let nanos = schedstat.split(separator: " ").first.flatMap({ Int64($0) }) else {
            throw BenchError("cannot read \(task): has the brain stopped?")
        }
        // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.lastIndex(of: ")")!...].split(separator: " ")
        let tick = 1_000_000 / Int64(sysconf(Int32(_SC_CLK_TCK)))
        return (nanos / 1000, Int64(fields[12])! * tick, Int64(fields[13])! * tick)
    }
    func stop() async {}
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

var random = SeededRandom(seed: seed)  // SplitMix64: the same phases for the same --seed

let padGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)  // the hits' timers
let padLoop = try PadLinkLoop()  // every pad's link

/// One row: `count` pads against `server` for `seconds`; prints what was measured.
@MainActor
func row(count: Int, name: String, server: some Server, phases: [Int64]) async throws {
    let links = try (0..<count).map { i in
        try PadLink(configuration: .init(padName: "pad-\(i)", drum: "snare",
                                         target: .address(host: "127.0.0.1", port: server.port)),
                    loop: padLoop, onEvent: { _ in })
    }
    for link in links { link.start() }
    while try await server.connected() < count {
        try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(300))  // pings settle
    server.startCounting(expected: Int(Double(count) * rate * (seconds + 1)))
    let cpuBefore = try await server.cpu()
    let wallBefore = MonotonicClock.nowMicros()
    // Each pad sends on its own period, from its phase: independent pads, neither spread evenly
    // (which would never let two hits meet) nor in step.
    let periodMicros = Int64(1e6 / rate)
    var tasks: [RepeatedTask] = []
    for (link, phase) in zip(links, phases) {
        tasks.append(padGroup.next().scheduleRepeatedTask(initialDelay: .microseconds(phase),
                                                          delay: .microseconds(periodMicros)) { _ in
            link.send(DrumHit(drum: "snare", velocity: 0.8, padTimeMicros: MonotonicClock.nowMicros()))
        })
    }
    try await Task.sleep(for: .microseconds(Int64(seconds * 1e6)))
    for task in tasks { task.cancel() }
    try await Task.sleep(for: .milliseconds(200))  // the last hits arrive
    let cpuAfter = try await server.cpu()
    let wall = MonotonicClock.nowMicros() - wallBefore
    var sent = 0
    for link in links { sent += await link.stop().sentHits }
    let received = server.received()
    let sorted = server.latencies()?.sorted()
    await server.stop()
    func share(_ micros: Int64) -> String { oneDecimal(Double(micros) / Double(wall) * 100) + " %" }
    func micros(_ p: Double) -> String { sorted.map { "\(percentile($0, p))" } ?? "—" }
    print(pad("\(count)", 5) + "  " + rightPad(name, 9) + pad("\(received ?? sent)", 8)
          + pad(received.map { "\(max(0, sent - $0))" } ?? "—", 6) + pad(micros(0.5), 9) + pad(micros(0.99), 9) + pad(micros(1), 9)
          + pad(share(cpuAfter.total - cpuBefore.total), 8)
          + pad(share(cpuAfter.user - cpuBefore.user), 8) + pad(share(cpuAfter.system - cpuBefore.system), 8))
}

do {
    for count in padCounts {
        let periodMicros = Int64(1e6 / rate)
        let phases = (0..<count).map { _ in Int64.random(in: 0..<periodMicros, using: &random) }
        if let external {
            try await row(count: count, name: "drumbrain", server: try Drumbrain(port: external.port, pid: external.pid),
                          phases: phases)
        } else {
            try await row(count: count, name: "brain", server: try await Brain(pads: count), phases: phases)
        }
        if withFloor {
            try await row(count: count, name: "floor", server: try Floor(), phases: phases)
        }
    }
} catch {
    print("drumnet-bench: \(error)")
    exit(1)
}
try await padGroup.shutdownGracefully()
padLoop.shutdown()

enum ProcessInfoLite {
    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

/// `12.3` for 12.34.
func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

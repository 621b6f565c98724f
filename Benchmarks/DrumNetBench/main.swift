// drumnet-bench: pads → brain on loopback, as in issue 4's benchmark.
//
//   swift run -c release drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ]
//
// For each pad count, that many pads (PadLink, sharing one event-loop thread) connect to a brain
// (BrainServer, on its own thread, in this process) and each sends `rate` hits per second plus
// its pings, for S seconds. Each pad keeps its own period from a random phase (seeded, so a run
// can be repeated with --seed), and each hit is one packet in one write, as PadLink sends it.
// Reported: hit latency from the pad's send to the brain's handler (both read the same monotonic
// clock, so no offset is involved) p50/p99/max, hits lost, and the CPU time the brain's network
// thread used as a share of one core, in all and split into user and kernel time.
import DrumNet
import DrumVisual  // SeededRandom
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

var seconds = 10.0
var padCounts = [1, 8, 64, 256]
var rate = 20.0
var seed: UInt64 = 4
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--pads": padCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--rate": rate = Double(arguments.next() ?? "") ?? rate
    case "--seed": seed = UInt64(arguments.next() ?? "") ?? seed
    default:
        print("usage: drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ] [--seed N]")
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

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

print("drumnet-bench: \(rate) hits/s per pad plus pings, \(seconds) s per row, loopback, "
      + "\(ProcessInfoLite.cores) cores, seed \(seed)")
print(pad("pads", 5) + pad("hits", 8) + pad("lost", 6) + pad("p50 µs", 9) + pad("p99 µs", 9)
      + pad("max µs", 9) + pad("brain CPU", 11) + pad("user", 8) + pad("kernel", 8))
var random = SeededRandom(seed: seed)  // SplitMix64: the same phases for the same --seed

let padGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
for count in padCounts {
    let latencies = Latencies()
    let brain = try await BrainServer(
        configuration: .init(host: "127.0.0.1", port: 0, brainName: "bench", kitName: "none",
                             maxConnections: count + 16),
        onHit: { received in
            if let sent = received.hit.padTimeMicros { latencies.add(received.receivedMicros - sent) }
        })
    let links = (0..<count).map { i in
        PadLink(configuration: .init(padName: "pad-\(i)", drum: "snare",
                                     target: .address(host: "127.0.0.1", port: brain.port)),
                eventLoopGroup: padGroup, onEvent: { _ in })
    }
    for link in links { link.start() }
    while (try await brain.statistics()).filter({ $0.padName != nil }).count < count {
        try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .milliseconds(300))  // pings settle
    // Room for every hit, so that the handler's append never grows the array mid-run.
    latencies.values.withLock {
        $0.removeAll(keepingCapacity: true)
        $0.reserveCapacity(Int(Double(count) * rate * (seconds + 1)))
    }
    let cpuBefore = try await brain.onNetworkThread { threadCPUMicros() }
    let wallBefore = MonotonicClock.nowMicros()
    // Each pad sends on its own period, from a random phase: independent pads, neither spread
    // evenly (which would never let two hits meet) nor in step.
    let periodMicros = Int64(1e6 / rate)
    var tasks: [RepeatedTask] = []
    for link in links {
        let phase = Int64.random(in: 0..<periodMicros, using: &random)
        tasks.append(padGroup.next().scheduleRepeatedTask(initialDelay: .microseconds(phase),
                                                          delay: .microseconds(periodMicros)) { _ in
            link.send(DrumHit(drum: "snare", velocity: 0.8, padTimeMicros: MonotonicClock.nowMicros()))
        })
    }
    try await Task.sleep(for: .microseconds(Int64(seconds * 1e6)))
    for task in tasks { task.cancel() }
    try await Task.sleep(for: .milliseconds(200))  // the last hits arrive
    let cpuAfter = try await brain.onNetworkThread { threadCPUMicros() }
    let wall = MonotonicClock.nowMicros() - wallBefore
    var sent = 0
    for link in links { sent += await link.stop().sentHits }
    await brain.stop()
    let sorted = latencies.values.withLock { $0 }.sorted()
    func share(_ micros: Int64) -> String { oneDecimal(Double(micros) / Double(wall) * 100) + " %" }
    print(pad("\(count)", 5) + pad("\(sorted.count)", 8) + pad("\(max(0, sent - sorted.count))", 6)
          + pad("\(percentile(sorted, 0.5))", 9) + pad("\(percentile(sorted, 0.99))", 9)
          + pad("\(sorted.last ?? 0)", 9) + pad(share(cpuAfter.total - cpuBefore.total), 11)
          + pad(share(cpuAfter.user - cpuBefore.user), 8) + pad(share(cpuAfter.system - cpuBefore.system), 8))
}
try await padGroup.shutdownGracefully()

enum ProcessInfoLite {
    static var cores: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}

/// `12.3` for 12.34.
func oneDecimal(_ value: Double) -> String {
    let tenths = Int((value * 10).rounded())
    return "\(tenths / 10).\(tenths % 10)"
}

// drumnet-bench: pads → brain on loopback, as in issue 4's benchmark.
//
//   swift run -c release drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ]
//
// For each pad count, that many pads (PadLink, sharing one event-loop thread) connect to a brain
// (BrainServer, on its own thread, in this process) and each sends `rate` hits per second plus
// its pings, for S seconds. Reported: hit latency from the pad's send to the brain's handler
// (both read the same monotonic clock, so no offset is involved) p50/p99/max, hits lost, and the
// CPU time the brain's event-loop thread used as a share of one core.
import DrumNet
import NIOCore
import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

var seconds = 10.0
var padCounts = [1, 8, 64, 256]
var rate = 20.0
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--seconds": seconds = Double(arguments.next() ?? "") ?? seconds
    case "--pads": padCounts = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--rate": rate = Double(arguments.next() ?? "") ?? rate
    default:
        print("usage: drumnet-bench [--seconds S] [--pads 1,8,64,256] [--rate HZ]")
        exit(argument == "--help" ? 0 : 2)
    }
}

/// Latencies seen by the brain's handler, µs.
final class Latencies: Sendable {
    let values = Mutex<[Int64]>([])
    func add(_ value: Int64) { values.withLock { $0.append(value) } }
}

/// CPU time used so far by the calling thread, µs.
func threadCPUMicros() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

func percentile(_ sorted: [Int64], _ p: Double) -> Int64 {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
}

func pad(_ text: String, _ width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}

print("drumnet-bench: \(rate) hits/s per pad plus pings, \(seconds) s per row, loopback, \(ProcessInfoLite.cores) cores")
print(pad("pads", 5) + pad("hits", 8) + pad("lost", 6) + pad("p50 µs", 9) + pad("p99 µs", 9)
      + pad("max µs", 9) + pad("brain CPU", 11))

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
    latencies.values.withLock { $0.removeAll() }
    let loop = brain.eventLoop
    let cpuBefore = try await loop.submit { threadCPUMicros() }.get()
    let wallBefore = MonotonicClock.nowMicros()
    // Each pad sends on its own phase of the period.
    let periodMicros = Int64(1e6 / rate)
    var tasks: [RepeatedTask] = []
    for (i, link) in links.enumerated() {
        let phase = periodMicros * Int64(i) / Int64(count)
        tasks.append(padGroup.next().scheduleRepeatedTask(initialDelay: .microseconds(phase),
                                                          delay: .microseconds(periodMicros)) { _ in
            link.send(DrumHit(drum: "snare", velocity: 0.8, padTimeMicros: MonotonicClock.nowMicros()))
        })
    }
    try await Task.sleep(for: .microseconds(Int64(seconds * 1e6)))
    for task in tasks { task.cancel() }
    try await Task.sleep(for: .milliseconds(200))  // the last hits arrive
    let cpuAfter = try await loop.submit { threadCPUMicros() }.get()
    let wall = MonotonicClock.nowMicros() - wallBefore
    var sent = 0
    for link in links { sent += await link.stop().sentHits }
    await brain.stop()
    let sorted = latencies.values.withLock { $0 }.sorted()
    let cpuShare = Double(cpuAfter - cpuBefore) / Double(wall) * 100
    print(pad("\(count)", 5) + pad("\(sorted.count)", 8) + pad("\(max(0, sent - sorted.count))", 6)
          + pad("\(percentile(sorted, 0.5))", 9) + pad("\(percentile(sorted, 0.99))", 9)
          + pad("\(sorted.last ?? 0)", 9) + pad(oneDecimal(cpuShare) + " %", 11))
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

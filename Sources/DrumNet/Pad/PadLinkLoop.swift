import CEpoll
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// The thread pad links run on: one epoll loop for their sockets, their timers (pings, retries,
/// connect deadlines) and the jobs other threads hand them.
///
/// A pad has one link, so it runs one loop of its own; a benchmark or test with many links can
/// give them one loop to share. Why not SwiftNIO, which pads used before: a pad needs one TCP
/// connection, and NIO's modules are about 1.5 MB of a board's static binary
/// (docs/deployment.md#build). The brain's network thread is a loop like this one (`BrainLoop`).
///
/// Thread safety: `execute`, `run` and `shutdown` from any thread; everything else on the loop's
/// own thread (from its jobs, timers and descriptor handlers).
public final class PadLinkLoop: @unchecked Sendable {
    // @unchecked: the timers, handlers and `stopping` are touched only on the loop's thread;
    // the inbox is the only state shared with other threads, and its mutex guards it.

    /// A job due at a time; `cancel()` keeps it from running.
    final class Timer {
        let dueMicros: Int64
        let job: () -> Void
        private(set) var isCancelled = false

        init(dueMicros: Int64, job: @escaping () -> Void) {
            self.dueMicros = dueMicros
            self.job = job
        }

        func cancel() { isCancelled = true }
    }

    private let epollFD: Int32
    /// The jobs submitted from other threads (its mutex guards them).
    private let inbox: LoopInbox
    /// Timers by due time: a binary min-heap.
    private var timers: [Timer] = []
    /// What to do when a watched descriptor is ready, by descriptor.
    private var handlers: [Int32: (UInt32) -> Void] = [:]
    private var stopping = false

    /// Starts the loop's thread. Throws when epoll or eventfd cannot be had (out of descriptors).
    public init() throws(DrumNetError) {
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw .socket(operation: "epoll_create1", code: errno) }
        do {
            inbox = try LoopInbox()
        } catch {
            Glibc.close(epollFD)
            throw error
        }
        var event = CEpoll_event(inbox.wakeFD, EPOLLIN.rawValue)
        _ = epoll_ctl(epollFD, EPOLL_CTL_ADD, inbox.wakeFD, &event)  // a new eventfd in a new epoll: cannot fail
        let created = startLoopThread(name: "drumpad-link") { self.loop() }
        guard created == 0 else {
            inbox.close()
            Glibc.close(epollFD)
            throw .socket(operation: "pthread_create", code: created)
        }
    }

    /// Runs `job` on the loop's thread; false (and `job` dropped) once the loop has stopped.
    @discardableResult
    public func execute(_ job: @escaping @Sendable () -> Void) -> Bool {
        inbox.submit(job)
    }

    /// Runs `body` on the loop's thread and returns its result; nil once the loop has stopped.
    public func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { continuation in
            let accepted = execute { continuation.resume(returning: body()) }
            if !accepted { continuation.resume(returning: nil) }
        }
    }

    /// Ends the loop once the jobs already given have run; later ones are refused.
    public func shutdown() {
        _ = execute { [self] in stopping = true }
    }

    // MARK: On the loop's thread

    /// Runs `job` after `micros`; the timer can cancel it.
    @discardableResult
    func schedule(inMicros micros: Int64, _ job: @escaping () -> Void) -> Timer {
        let timer = Timer(dueMicros: MonotonicClock.nowMicros().saturatingAdd(max(0, micros)), job: job)
        timers.append(timer)
        var child = timers.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard timers[parent].dueMicros > timers[child].dueMicros else { break }
            timers.swapAt(parent, child)
            child = parent
        }
        return timer
    }

    /// Calls `handler` with the events (EPOLLIN, EPOLLOUT, ...) whenever `fd` is ready for
    /// `events`; again for the same descriptor changes what it waits for.
    func watch(_ fd: Int32, events: UInt32, handler: @escaping (UInt32) -> Void) {
        var event = CEpoll_event(fd, events)
        let operation = handlers[fd] == nil ? EPOLL_CTL_ADD : EPOLL_CTL_MOD
        // Fails only for a descriptor that is not open: a bug here.
        let result = epoll_ctl(epollFD, operation, fd, &event)
        precondition(result == 0, "epoll_ctl(\(operation), \(fd)) failed: \(String(cString: strerror(errno)))")
        handlers[fd] = handler
    }

    /// Stops watching `fd` (before it is closed).
    func unwatch(_ fd: Int32) {
        guard handlers.removeValue(forKey: fd) != nil else { return }
        var event = CEpoll_event(fd, 0)
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, &event)  // gone already: nothing to undo
    }

    private func loop() {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        while !stopping {
            runDueTimers()
            var timeoutMillis: Int32 = -1
            if let next = timers.first {
                timeoutMillis = Int32(clamping: (next.dueMicros.saturatingSubtract(MonotonicClock.nowMicros()) + 999) / 1000)
            }
            let count = events.withUnsafeMutableBufferPointer {
                epoll_wait(epollFD, $0.baseAddress, Int32($0.count), max(0, timeoutMillis))
            }
            guard count >= 0 else {
                precondition(errno == EINTR, "epoll_wait failed: \(String(cString: strerror(errno)))")
                continue
            }
            for i in 0..<Int(count) {
                var event = events[i]
                let fd = CEpoll_eventFD(&event)
                if fd == inbox.wakeFD {
                    for job in inbox.takeAll() { job() }
                } else {
                    handlers[fd]?(event.events)  // nil: unwatched by an earlier handler this turn
                }
            }
        }
        for job in inbox.takeAll(closing: true) { job() }
        for fd in handlers.keys { Glibc.close(fd) }
        handlers = [:]
        timers = []
        inbox.close()
        Glibc.close(epollFD)
    }

    private func runDueTimers() {
        let now = MonotonicClock.nowMicros()
        while let first = timers.first, first.dueMicros <= now {
            popFirstTimer()
            if !first.isCancelled { first.job() }
        }
    }

    private func popFirstTimer() {
        timers.swapAt(0, timers.count - 1)
        timers.removeLast()
        var parent = 0
        while true {
            var smallest = parent
            for child in (2 * parent + 1)...(2 * parent + 2) where child < timers.count
                && timers[child].dueMicros < timers[smallest].dueMicros {
                smallest = child
            }
            guard smallest != parent else { return }
            timers.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

import CEpoll
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Jobs other threads hand to an epoll loop's thread, and the eventfd that wakes the loop when
/// one arrives: shared by the brain's network loop (`BrainLoop`) and the pad link's
/// (`PadLinkLoop`). The loop watches `wakeFD` for reading and, when it fires, runs `takeAll()`.
///
/// Thread safety: `submit` from any thread; `takeAll` and `close` on the loop's thread.
final class LoopInbox: Sendable {
    /// Jobs waiting, and whether the loop still takes them.
    struct Jobs {
        var waiting: [@Sendable () -> Void] = []
        var isClosed = false
    }

    /// Readable while jobs wait.
    let wakeFD: Int32
    /// Guards the jobs: the only state the loop shares with other threads.
    private let jobs = Mutex(Jobs())

    /// Throws when no eventfd can be had (out of descriptors).
    init() throws(DrumNetError) {
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw .socket(operation: "eventfd", code: errno) }
    }

    /// Queues `job` and wakes the loop; false (and `job` dropped) once the loop has closed.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        jobs.withLock { jobs in
            guard !jobs.isClosed else { return false }
            jobs.waiting.append(job)
            var one: UInt64 = 1
            _ = Glibc.write(wakeFD, &one, 8)  // cannot fail short of 2^64 - 1 pending wakes
            return true
        }
    }

    /// The jobs submitted so far, taken out (the wake read too); `closing` refuses any later ones.
    func takeAll(closing: Bool = false) -> [@Sendable () -> Void] {
        var count: UInt64 = 0
        _ = Glibc.read(wakeFD, &count, 8)  // EAGAIN when a job already ran: nothing to do
        return jobs.withLock { jobs in
            if closing { jobs.isClosed = true }
            defer { jobs.waiting = [] }
            return jobs.waiting
        }
    }

    /// Closes the eventfd, after `takeAll(closing: true)`.
    func close() {
        Glibc.close(wakeFD)
    }
}

/// Starts a detached thread named `name` (for top and perf) that runs `body`; the error code of
/// `pthread_create` when it cannot.
func startLoopThread(name: String, _ body: @escaping () -> Void) -> Int32 {
    final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }
    let start = Unmanaged.passRetained(Start(name: name, body: body))
    var thread = pthread_t()
    let created = pthread_create(&thread, nil, { argument in
        let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
        _ = CEpoll_nameThread(start.name)  // without it, only the name is lost
        start.body()
        return nil
    }, start.toOpaque())
    guard created == 0 else {
        start.release()
        return created
    }
    pthread_detach(thread)
    return 0
}

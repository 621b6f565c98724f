import CALSA
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Monotonic

/// An ALSA playback PCM: interleaved stereo, float if the device takes it, else 16-bit, with the
/// period and buffer asked for (or the nearest the device allows).
final class ALSAPlayback: @unchecked Sendable {
    // @unchecked: the audio thread owns the PCM while it runs; afterwards one closing thread
    // does, and `closed` tells the others when it has.
    let pcm: OpaquePointer
    let device: String
    let rate: Int
    let periodFrames: Int
    let bufferFrames: Int
    let isFloat: Bool
    /// Conversion buffer for 16-bit devices, allocated once.
    private let s16: UnsafeMutablePointer<Int16>
    /// How long the device buffer plays when full (µs).
    let bufferMicros: Int64
    /// When the last write returned (µs, monotonic); 0 before the first.
    private var lastWriteMicros: Int64 = 0
    /// Frames left to write in which an underrun ALSA reports is the one already counted.
    private var stallCredit = 0
    /// Frames written since the device was last prepared (it starts once a buffer is queued).
    private var queuedSincePrepare = 0
    /// When the first write since the device was last prepared returned (µs, monotonic).
    private var preparedMicros: Int64 = 0
    /// The device took frames faster than it could play them (ALSA's `null` and `file`
    /// plugins take every write at once): it does not pace its writer, and never runs dry.
    /// Once seen, for good.
    private(set) var takesFramesAtOnce = false
    /// Rung by `interrupt()` to wake a write waiting for room (an eventfd).
    private let wakeFD: Int32
    /// The PCM's poll descriptors and the wake-up's after them, allocated once.
    private let pollFDs: UnsafeMutablePointer<pollfd>
    private let pcmPollCount: Int

    /// What `write` returns when `interrupt()` woke it before it had written everything.
    static let interrupted: Int32 = 1

    /// Opens and configures `device`. The corresponding C functions are `snd_pcm_open` and the
    /// `snd_pcm_hw_params_set_*` family.
    init(device: String, rate: Int, periodFrames: Int, periods: Int) throws(DrumAudioError) {
        CALSA_silence_errors()  // our errors carry snd_strerror's text; alsa-lib's own lines are noise
        var handle: OpaquePointer?
        // Non-blocking: the audio thread waits for room in poll(), beside an eventfd that stop()
        // rings, so stopping never waits on a device or sound server that stands still.
        var error = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard error >= 0, let handle else {
            throw .output(name: "alsa:\(device)", reason: String(cString: snd_strerror(error)),
                          hint: "check `aplay -L` for device names, or use --output wav:FILE on a machine without sound")
        }
        func fail(_ what: String, _ code: Int32) -> DrumAudioError {
            snd_pcm_close(handle)
            return .output(name: "alsa:\(device)", reason: "\(what): \(String(cString: snd_strerror(code)))",
                           hint: "try another device (`aplay -L`), rate or period, or --output wav:FILE")
        }
        var params: OpaquePointer?
        snd_pcm_hw_params_malloc(&params)
        defer { snd_pcm_hw_params_free(params) }
        error = snd_pcm_hw_params_any(handle, params)
        guard error >= 0 else { throw fail("no configuration", error) }
        error = snd_pcm_hw_params_set_access(handle, params, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard error >= 0 else { throw fail("interleaved access", error) }
        var float = true
        if snd_pcm_hw_params_set_format(handle, params, SND_PCM_FORMAT_FLOAT_LE) < 0 {
            float = false
            error = snd_pcm_hw_params_set_format(handle, params, SND_PCM_FORMAT_S16_LE)
            guard error >= 0 else { throw fail("neither float nor 16-bit samples", error) }
        }
        error = snd_pcm_hw_params_set_channels(handle, params, 2)
        guard error >= 0 else { throw fail("stereo", error) }
        var actualRate = UInt32(rate)
        var direction: Int32 = 0
        error = snd_pcm_hw_params_set_rate_near(handle, params, &actualRate, &direction)
        guard error >= 0 else { throw fail("rate \(rate)", error) }
        var period = snd_pcm_uframes_t(periodFrames)
        error = snd_pcm_hw_params_set_period_size_near(handle, params, &period, &direction)
        guard error >= 0 else { throw fail("period \(periodFrames)", error) }
        var buffer = snd_pcm_uframes_t(periodFrames * periods)
        error = snd_pcm_hw_params_set_buffer_size_near(handle, params, &buffer)
        guard error >= 0 else { throw fail("buffer \(periodFrames * periods)", error) }
        error = snd_pcm_hw_params(handle, params)
        guard error >= 0 else { throw fail("applying the configuration", error) }
        pcm = handle
        self.device = device
        self.rate = Int(actualRate)
        self.periodFrames = Int(period)
        self.bufferFrames = Int(buffer)
        isFloat = float
        bufferMicros = Int64(buffer) * 1_000_000 / Int64(actualRate)
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else { throw fail("eventfd", -errno) }
        let count = max(0, Int(snd_pcm_poll_descriptors_count(handle)))
        pollFDs = .allocate(capacity: count + 1)
        pollFDs.initialize(repeating: pollfd(), count: count + 1)
        pcmPollCount = Int(snd_pcm_poll_descriptors(handle, pollFDs, UInt32(count)))
        pollFDs[pcmPollCount] = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        wakeFD = wake
        s16 = .allocate(capacity: Int(period) * 2 * 4)
        s16.initialize(repeating: 0, count: Int(period) * 2 * 4)
        snd_pcm_prepare(handle)
    }

    deinit {
        if !closed.load(ordering: .acquiring) { dropAndClose() }
        Glibc.close(wakeFD)
        pollFDs.deallocate()
        s16.deallocate()
    }

    /// Whether the PCM has been closed.
    private let closed = Atomic<Bool>(false)

    /// Drop, not drain: draining waits for the device to play what it holds, forever if the
    /// sound server has stopped; the last few milliseconds are not worth a hang.
    private func dropAndClose() {
        snd_pcm_drop(pcm)
        snd_pcm_close(pcm)
        closed.store(true, ordering: .releasing)
    }

    /// Drops and closes the device on a thread of its own, waiting at most `micros` for it:
    /// ALSA's pulse plugin waits for the sound server even to drop, so a stopped server would
    /// hold whoever closes. True when it closed in time; when not, the thread is left to finish
    /// whenever the server answers (or the process ends), holding this object until then.
    /// Control side only, after the audio thread has ended.
    func close(waitingAtMostMicros micros: Int64) -> Bool {
        guard !closed.load(ordering: .acquiring) else { return true }
        var thread = pthread_t()
        let me = Unmanaged.passRetained(self).toOpaque()
        guard pthread_create(&thread, nil, { argument in
            let playback = Unmanaged<ALSAPlayback>.fromOpaque(argument!).takeRetainedValue()
            playback.dropAndClose()
            return nil
        }, me) == 0 else {
            Unmanaged<ALSAPlayback>.fromOpaque(me).release()
            dropAndClose()
            return true
        }
        pthread_detach(thread)
        let deadline = MonotonicClock.nowMicros() + micros
        while !closed.load(ordering: .acquiring) {
            if MonotonicClock.nowMicros() >= deadline { return false }
            usleep(1000)
        }
        return true
    }

    /// Wakes a `write` waiting for room, which then returns `interrupted`; a later write waits
    /// again. Thread safety: any thread. The corresponding C function is `write` on an eventfd.
    func interrupt() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)  // fails only at 2^64 − 1 pending wakes
    }

    /// Waits until the device has room or `interrupt()` rings; false when interrupted.
    /// The corresponding C functions are `poll` and `snd_pcm_poll_descriptors_revents`.
    private func waitForRoom() -> Bool {
        while true {
            for i in 0...pcmPollCount { pollFDs[i].revents = 0 }
            let ready = poll(pollFDs, nfds_t(pcmPollCount + 1), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return true  // let the write report what is wrong
            }
            if pollFDs[pcmPollCount].revents != 0 {
                var count: UInt64 = 0
                _ = Glibc.read(wakeFD, &count, 8)  // consumed: the next stop rings again
                return false
            }
            var events: UInt16 = 0
            if snd_pcm_poll_descriptors_revents(pcm, pollFDs, UInt32(pcmPollCount), &events) < 0 { return true }
            if events & UInt16(POLLOUT | POLLERR | POLLHUP) != 0 { return true }
        }
    }

    /// Writes `frames` stereo frames, recovering from underruns (each one counted in `xruns`).
    /// Returns a negative ALSA error only when recovery failed.
    ///
    /// An underrun is counted when ALSA reports one, and also when the device ran dry without
    /// saying so: a period took longer than the whole buffer plays to go out (from the last
    /// write's return to this one's), and afterwards the device held no more than that period,
    /// so everything queued before it had played and the device waited. Not every device says:
    /// ALSA's pulse plugin reports the server's underflow only if its notice arrives in time
    /// (never with `handle_underrun false`), and a whole process stopped (SIGSTOP, a debugger,
    /// the machine swapping) stops that notice too. A device stalled itself (a sound server
    /// falling behind) makes the write slow but leaves the buffer full, and is not counted; nor
    /// is a device that takes frames faster than it could play them (ALSA's `null`).
    /// An underrun ALSA reports before two more buffers have been written is the same one.
    ///
    /// Returns `interrupted` when `interrupt()` woke it while it waited for room.
    ///
    /// Real-time safety: waits in poll() until the device has room (that is the pacing); no
    /// allocation; reads the monotonic clock (vDSO).
    func write(_ samples: UnsafePointer<Float>, frames: Int, xruns: inout Int) -> Int32 {
        var done = 0
        while done < frames {
            let written: snd_pcm_sframes_t
            if isFloat {
                written = snd_pcm_writei(pcm, samples + done * 2, snd_pcm_uframes_t(frames - done))
            } else {
                let count = min(frames - done, periodFrames * 4)
                for i in 0..<(count * 2) {
                    s16[i] = Int16(max(-32767, min(32767, (samples[done * 2 + i] * 32767).rounded())))
                }
                written = snd_pcm_writei(pcm, s16, snd_pcm_uframes_t(count))
            }
            if written >= 0 {
                done += Int(written)
                continue
            }
            if written == -snd_pcm_sframes_t(EAGAIN) {
                if !waitForRoom() { return Self.interrupted }
                continue
            }
            if written == -snd_pcm_sframes_t(EPIPE) {
                if stallCredit > 0 { stallCredit = 0 } else { xruns += 1 }
            }
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            if recovered < 0 { return recovered }
            queuedSincePrepare = 0
        }
        let now = MonotonicClock.nowMicros()
        if queuedSincePrepare == 0 { preparedMicros = now }
        stallCredit = max(0, stallCredit - frames)
        if queuedSincePrepare >= bufferFrames && !isPaced(now: now) { takesFramesAtOnce = true }
        if queuedSincePrepare >= bufferFrames && now - lastWriteMicros > bufferMicros && !takesFramesAtOnce
            && ranDry(after: frames) {
            xruns += 1
            stallCredit = 2 * bufferFrames
        }
        lastWriteMicros = now
        queuedSincePrepare += frames
        return 0
    }

    /// Whether the device has taken frames no faster than it plays them since it was prepared:
    /// give or take 1 % (its clock against ours) and a few buffers (a sound server takes some
    /// ahead).
    private func isPaced(now: Int64) -> Bool {
        Int64(queuedSincePrepare) <= (now - preparedMicros) * Int64(rate) / 990_000 + Int64(4 * bufferFrames)
    }

    /// Frames written but not yet heard (`snd_pcm_delay`: the device's buffer and, through a
    /// sound server, the server's own), or nil if the device cannot say now. Audio thread.
    func delayFrames() -> Int? {
        var delay: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &delay) >= 0 ? Int(delay) : nil
    }

    /// Whether the device holds no more than the `frames` just written: all it had before them
    /// has played. Both the room (`snd_pcm_avail_update`) and the delay (`snd_pcm_delay`) must
    /// say so: a sound server that has taken the buffer into its own shows the room, not the
    /// delay.
    private func ranDry(after frames: Int) -> Bool {
        guard snd_pcm_avail_update(pcm) >= bufferFrames - frames else { return false }
        var delay: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &delay) >= 0 && delay <= frames
    }
}

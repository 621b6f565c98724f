import CSndFile
#if canImport(Glibc)
import Glibc
#endif

/// Writes what the audio thread played to a WAV file from its own thread, through a
/// `SampleRing`, so the audio thread never does file I/O.
final class WAVWriter: @unchecked Sendable {
    // @unchecked: `file` is used only by the writer thread after start and by `finish` after that
    // thread has been joined.
    let path: String
    let ring: SampleRing
    private var file: OpaquePointer?
    private var thread = pthread_t()
    private var running = true
    private let runningLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private(set) var framesWritten = 0
    private(set) var writeError: String?

    /// Creates the file (32-bit float stereo WAV). The corresponding C function is `sf_open`.
    init(path: String, sampleRate: Int) throws(DrumAudioError) {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = 2
        info.format = Int32(SF_FORMAT_WAV) | Int32(SF_FORMAT_FLOAT)
        guard let opened = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .output(name: "wav:\(path)", reason: String(cString: sf_strerror(nil)),
                          hint: "check the folder exists and is writable")
        }
        self.path = path
        file = opened
        ring = SampleRing(capacity: sampleRate * 2 * 4)  // four seconds of stereo
        pthread_mutex_init(runningLock, nil)
        let me = Unmanaged.passRetained(self).toOpaque()
        pthread_create(&thread, nil, { argument in
            let writer = Unmanaged<WAVWriter>.fromOpaque(argument!).takeRetainedValue()
            writer.loop()
            return nil
        }, me)
    }

    deinit {
        pthread_mutex_destroy(runningLock)
        runningLock.deallocate()
    }

    private var isRunning: Bool {
        pthread_mutex_lock(runningLock)
        defer { pthread_mutex_unlock(runningLock) }
        return running
    }

    private func loop() {
        while isRunning {
            flush()
            usleep(20_000)
        }
        flush()
    }

    private func flush() {
        _ = ring.drain { samples in
            guard let file, writeError == nil else { return }
            let frames = samples.count / 2
            let written = sf_writef_float(file, samples.baseAddress, sf_count_t(frames))
            if written != frames { writeError = String(cString: sf_strerror(file)) }
            framesWritten += Int(written)
        }
    }

    /// Writes what is left and closes the file.
    func finish() {
        pthread_mutex_lock(runningLock)
        running = false
        pthread_mutex_unlock(runningLock)
        pthread_join(thread, nil)
        if let file { sf_close(file) }
        file = nil
    }
}

/// Interleaved float audio in memory that never moves or changes after it is made, so the audio
/// thread can read it without locks.
///
/// Thread safety: immutable after init; share freely.
/// Real-time safety: reading `samples` is plain memory access.
public final class AudioBuffer: @unchecked Sendable {
    // @unchecked: `samples` is written only in init and never again; after that every thread
    // only reads it.
    /// Frames (samples per channel).
    public let frames: Int
    /// 1 (mono) or 2 (stereo).
    public let channels: Int
    /// Frames per second.
    public let sampleRate: Double
    /// `frames × channels` samples, interleaved.
    public let samples: UnsafeMutableBufferPointer<Float>

    /// Takes a copy of `interleaved` (`frames × channels` samples).
    public init(interleaved: [Float], channels: Int, sampleRate: Double) {
        precondition(channels == 1 || channels == 2, "buffers are mono or stereo")
        precondition(interleaved.count % channels == 0, "sample count must be a multiple of channels")
        self.channels = channels
        self.frames = interleaved.count / channels
        self.sampleRate = sampleRate
        samples = .allocate(capacity: max(1, interleaved.count))
        _ = samples.initialize(from: interleaved)
    }

    deinit { samples.deallocate() }

    /// The sample at `frame`, `channel` (a mono buffer has channel 0 only).
    public subscript(frame: Int, channel: Int) -> Float { samples[frame * channels + channel] }
}

import CSampleRate
import CSndFile

/// Audio files through libsndfile (any format it reads) and rate conversion through
/// libsamplerate. Control-side only: these allocate and do I/O.
public enum SoundFile {
    /// The sample rates a kit's sound may have, Hz.
    public static let lowestRate = 1_000, highestRate = 768_000
    /// The longest sound a kit may hold, seconds.
    public static let longestSeconds = 600
    /// Reads a whole file as interleaved floats, keeping mono as mono and mixing more than two
    /// channels down to stereo. The corresponding C functions are `sf_open` and `sf_readf_float`.
    public static func read(_ path: String) throws(DrumAudioError) -> AudioBuffer {
        var info = SF_INFO()
        guard let file = sf_open(path, Int32(SFM_READ), &info) else {
            throw .soundFile(path: path, reason: String(cString: sf_strerror(nil)))
        }
        defer { sf_close(file) }
        let channels = Int(info.channels)
        let frames = Int(info.frames)
        guard channels > 0, info.samplerate > 0 else {
            throw .soundFile(path: path, reason: "no channels or no sample rate")
        }
        // The header's word is checked before it sizes anything: a rate no sound card runs at
        // (a WAV saying 1 Hz asked libsamplerate for 48,000 times its frames, 192 GB) or more
        // frames than a kit holds in memory.
        guard (Self.lowestRate...Self.highestRate).contains(Int(info.samplerate)) else {
            throw .soundFile(path: path, reason: "a sample rate of \(info.samplerate) Hz is not an audio rate "
                             + "(\(Self.lowestRate)–\(Self.highestRate) Hz)")
        }
        // In absolute terms too: ten minutes at 768 kHz on 64 channels would still be 118 GB.
        guard channels <= 64, frames >= 0, frames <= Self.longestSeconds * Int(info.samplerate),
              frames * channels <= Self.longestSeconds * 96_000 * 2 else {
            throw .soundFile(path: path, reason: "\(channels) channels of \(frames) frames: more than the "
                             + "\(Self.longestSeconds / 60) minutes (of 96 kHz stereo, and 64 channels) a kit's sound may hold")
        }
        var data = [Float](repeating: 0, count: frames * channels)
        let read = data.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(frames)) }
        guard read == frames else {
            throw .soundFile(path: path, reason: "read \(read) of \(frames) frames: \(String(cString: sf_strerror(file)))")
        }
        // A float file may hold NaN or infinities (or values a mix would take to them): silence
        // and ±16 (+24 dBFS), so that one bad sample cannot poison the mix it is added to.
        for i in data.indices where !(data[i].magnitude <= 16) { data[i] = data[i].isNaN ? 0 : (data[i] > 0 ? 16 : -16) }
        if channels <= 2 {
            return AudioBuffer(interleaved: data, channels: channels, sampleRate: Double(info.samplerate))
        }
        // More than stereo: odd channels to the left, even to the right.
        var stereo = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            for channel in 0..<channels {
                stereo[frame * 2 + channel % 2] += data[frame * channels + channel] / Float((channels + 1 - channel % 2) / 2)
            }
        }
        return AudioBuffer(interleaved: stereo, channels: 2, sampleRate: Double(info.samplerate))
    }

    /// Writes interleaved floats as a WAV file (32-bit float, or 16-bit PCM with `pcm16`).
    /// The corresponding C functions are `sf_open` and `sf_writef_float`.
    public static func writeWAV(_ path: String, interleaved: UnsafeBufferPointer<Float>, channels: Int,
                                sampleRate: Int, pcm16: Bool = false) throws(DrumAudioError) {
        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(SF_FORMAT_WAV) | Int32(pcm16 ? SF_FORMAT_PCM_16 : SF_FORMAT_FLOAT)
        guard let file = sf_open(path, Int32(SFM_WRITE), &info) else {
            throw .soundFile(path: path, reason: "cannot create: \(String(cString: sf_strerror(nil)))")
        }
        defer { sf_close(file) }
        let frames = interleaved.count / channels
        let written = sf_writef_float(file, interleaved.baseAddress, sf_count_t(frames))
        guard written == frames else {
            throw .soundFile(path: path, reason: "wrote \(written) of \(frames) frames: \(String(cString: sf_strerror(file)))")
        }
    }

    /// `buffer` converted to `rate` with libsamplerate's medium sinc converter (97 dB SNR, 90 %
    /// bandwidth; the best one takes seconds per kit to load), or itself when the rate
    /// already matches). The corresponding C function is `src_simple`.
    public static func resampled(_ buffer: AudioBuffer, to rate: Double, path: String) throws(DrumAudioError) -> AudioBuffer {
        guard buffer.sampleRate != rate else { return buffer }
        let ratio = rate / buffer.sampleRate
        let outFrames = Int((Double(buffer.frames) * ratio).rounded(.up)) + 16
        var output = [Float](repeating: 0, count: outFrames * buffer.channels)
        var generated = 0
        let status: Int32 = output.withUnsafeMutableBufferPointer { out in
            var data = SRC_DATA()
            data.data_in = UnsafePointer(buffer.samples.baseAddress)
            data.input_frames = Int(buffer.frames)
            data.data_out = out.baseAddress
            data.output_frames = outFrames
            data.src_ratio = ratio
            let status = src_simple(&data, Int32(SRC_SINC_MEDIUM_QUALITY), Int32(buffer.channels))
            generated = Int(data.output_frames_gen)
            return status
        }
        guard status == 0 else { throw .resampling(path: path, reason: String(cString: src_strerror(status))) }
        return AudioBuffer(interleaved: Array(output[0..<(generated * buffer.channels)]),
                           channels: buffer.channels, sampleRate: rate)
    }
}

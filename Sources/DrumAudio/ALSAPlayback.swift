import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// An ALSA playback PCM: interleaved stereo, float if the device takes it, else 16-bit, with the
/// period and buffer asked for (or the nearest the device allows).
final class ALSAPlayback {
    let pcm: OpaquePointer
    let device: String
    let rate: Int
    let periodFrames: Int
    let bufferFrames: Int
    let isFloat: Bool
    /// Conversion buffer for 16-bit devices, allocated once.
    private let s16: UnsafeMutablePointer<Int16>

    /// Opens and configures `device`. The corresponding C functions are `snd_pcm_open` and the
    /// `snd_pcm_hw_params_set_*` family.
    init(device: String, rate: Int, periodFrames: Int, periods: Int) throws(DrumAudioError) {
        CALSA_silence_errors()  // our errors carry snd_strerror's text; alsa-lib's own lines are noise
        var handle: OpaquePointer?
        var error = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
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
        s16 = .allocate(capacity: Int(period) * 2 * 4)
        s16.initialize(repeating: 0, count: Int(period) * 2 * 4)
        snd_pcm_prepare(handle)
    }

    deinit {
        snd_pcm_drain(pcm)
        snd_pcm_close(pcm)
        s16.deallocate()
    }

    /// Writes `frames` stereo frames, recovering from underruns (each one counted in `xruns`).
    /// Returns a negative ALSA error only when recovery failed.
    ///
    /// Real-time safety: blocks in ALSA until the device has room (that is the pacing); no
    /// allocation.
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
            if written == -snd_pcm_sframes_t(EAGAIN) { continue }
            if written == -snd_pcm_sframes_t(EPIPE) { xruns += 1 }
            let recovered = snd_pcm_recover(pcm, Int32(written), 1)
            if recovered < 0 { return recovered }
        }
        return 0
    }
}

#if canImport(Glibc)
import Glibc
#endif
import DrumAudio
import Testing

/// The end-to-end test's comparison of a recording with the brain's render, on made-up audio:
/// it must follow a gap in the sound path and still notice a hit that was never heard.
struct HeardAudioTests {
    static let hits = stride(from: 10_000, to: 130_000, by: 12_000).map { $0 }

    /// Bursts of decaying noise at `hits`, each at its own gain (as hits have velocities).
    static func reference() -> [Float] {
        var audio = [Float](repeating: 0, count: 150_000 * 2)
        var state: UInt32 = 1
        for (n, start) in hits.enumerated() {
            let gain = Float(0.3 + 0.07 * Double(n % 7))
            for i in 0..<3_000 {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Float(Int32(bitPattern: state)) / Float(Int32.max)
                let value = gain * noise * Float(exp(-Double(i) / 600))
                audio[(start + i) * 2] += value
                audio[(start + i) * 2 + 1] += value * 0.5
            }
        }
        return audio
    }

    static func buffer(_ samples: [Float]) -> AudioBuffer {
        AudioBuffer(interleaved: samples, channels: 2, sampleRate: 48_000)
    }

    /// The reference as a recording: starting `lead` frames early, with `gap` frames of silence
    /// inserted at frame `at`, and the hit at `silenced` (if any) never played.
    static func recording(lead: Int, gap: Int, at: Int, silenced: Int? = nil) -> [Float] {
        var reference = Self.reference()
        if let silenced { for i in (silenced * 2)..<((silenced + 3_000) * 2) { reference[i] = 0 } }
        return [Float](repeating: 0, count: lead * 2) + reference[..<(at * 2)]
            + [Float](repeating: 0, count: gap * 2) + reference[(at * 2)...]
    }

    @Test func aGapInTheRecordingIsFollowedAndEveryHitStillMatches() throws {
        let heard = try #require(HeardAudio(heard: Self.buffer(Self.recording(lead: 1_000, gap: 7_000, at: 60_000)),
                                            reference: Self.buffer(Self.reference())))
        let check = heard.follow(Self.hits, reach: 48_000)
        #expect(check.remainders.allSatisfy { $0 < 0.01 }, "\(check.remainders)")
        #expect(check.stretches.map(\.lag) == [1_000, 8_000], "\(check.stretches)")
        #expect(check.whole < 0.01)
    }

    @Test func aHitNeverHeardFailsEvenWhereAnotherSoundsLikeIt() throws {
        let heard = try #require(HeardAudio(heard: Self.buffer(Self.recording(lead: 1_000, gap: 7_000, at: 60_000,
                                                                           silenced: 94_000)),
                                            reference: Self.buffer(Self.reference())))
        let check = heard.follow(Self.hits, reach: 48_000)
        let missing = try #require(Self.hits.firstIndex(of: 94_000))
        #expect(check.remainders[missing] > 0.5)
        #expect(check.remainders.enumerated().allSatisfy { $0.offset == missing || $0.element < 0.01 }, "\(check.remainders) \(check.stretches)")
        #expect(check.stretches.count == 2)
    }
}

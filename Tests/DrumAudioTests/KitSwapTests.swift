import AllocationCounter
import Testing
@testable import DrumAudio

/// Kits swap by pointer handoff while the mixer plays (docs/architecture.md, Brain audio).
struct KitSwapTests {
    @Test func theNewKitPlaysFromTheNextPeriodAndTheOldOneFadesWithinIt() {
        let first = testKit([("kick", 0, 48_000, { _ in 0.5 })])
        let second = testKit([("kick", 0, 48_000, { _ in 0.25 }), ("snare", 0, 48_000, { _ in 0.125 })])
        let queue = HitQueue()
        let mixer = Mixer(kit: first, queue: queue)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        queue.push(ScheduledHit(drum: 0, velocity: 1))
        mixer.render(into: out, frames: 128)
        #expect(abs(out[200] - 0.5 * MixerTests.centre) < 1e-6)   // the old kick sounds
        let generation = mixer.swap(to: second)
        #expect(generation == 2 && mixer.kit.kit.drums.count == 2 && mixer.kit.generation == 2)
        mixer.render(into: out, frames: 128)                       // the swap period: fades out
        #expect(out[2 * 127] == 0)                                  // gone by the period's end
        queue.push(ScheduledHit(drum: 0, velocity: 1, kitGeneration: 1))   // resolved against the old kit
        queue.push(ScheduledHit(drum: 1, velocity: 1, kitGeneration: 2))   // the new kit's snare
        mixer.render(into: out, frames: 128)
        #expect(abs(out[200] - 0.125 * MixerTests.centre) < 1e-6)  // only the snare
        #expect(mixer.counters.staleHits == 1)
        mixer.collectRetired()                                      // the old kit's tables freed now
    }

    @Test func swappingAllocatesNothingOnTheAudioThread() {
        let kits = [testKit([("kick", 0, 4_800, sine)]), testKit([("kick", 0, 4_800, sine), ("tom", 30, 4_800, sine)])]
        let queue = HitQueue()
        let mixer = Mixer(kit: kits[0], queue: queue)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        mixer.render(into: out, frames: 128)
        for round in 0..<20 {
            let generation = mixer.swap(to: kits[(round + 1) % 2])  // control side: allocates
            queue.push(ScheduledHit(drum: 0, velocity: 0.8, kitGeneration: generation))
            allocation_counter_start()
            for _ in 0..<4 { mixer.render(into: out, frames: 128) }
            let counted = allocation_counter_stop()
            #expect(counted == 0)
        }
        #expect(mixer.counters.hits == 20 && mixer.counters.staleHits == 0)
    }

    /// The control side may release retired tables at any moment, also while the audio thread
    /// is still mixing the period that fades the old kit out: the old kit must outlive that
    /// period. (Before the fix, the tables were retired when the kit was taken, and released here
    /// freed the samples the fade then read.)
    @Test func theOldKitLivesUntilThePeriodThatFadesItIsRendered() {
        let queue = HitQueue()
        weak var oldKit: Kit?
        let mixer: Mixer = {
            let first = testKit([("kick", 0, 48_000, { _ in 0.5 })])
            oldKit = first
            return Mixer(kit: first, queue: queue)
        }()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        queue.push(ScheduledHit(drum: 0, velocity: 1))
        mixer.render(into: out, frames: 128)                        // the old kick sounds
        mixer.swap(to: testKit([("kick", 0, 48_000, { _ in 0.25 })]))
        #expect(oldKit != nil)                                       // held by the playing tables
        var aliveWhileFading: Bool?
        mixer.afterKitTakenForTesting = {
            mixer.collectRetired()                                   // as the control side may, now
            aliveWhileFading = oldKit != nil
        }
        mixer.render(into: out, frames: 128)                        // the swap period: fades it out
        mixer.afterKitTakenForTesting = nil
        #expect(aliveWhileFading == true)
        #expect(out[2 * 10] > 0 && out[2 * 127] == 0)                // it did fade, from the old samples
        mixer.collectRetired()                                      // now it may go
        #expect(oldKit == nil)
    }
}

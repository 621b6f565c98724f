import AllocationCounter
import Monotonic
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import DrumAudio

/// A kit built in memory: each drum a mono sample given as a function of the frame.
func testKit(_ drums: [(name: String, azimuth: Double, frames: Int, sample: (Int) -> Float)],
             rate: Double = 48_000) -> Kit {
    Kit(name: "Test", drums: drums.map { drum in
        let samples = (0..<drum.frames).map(drum.sample)
        return Kit.Drum(name: drum.name, azimuth: drum.azimuth, gain: 1,
                        layers: [Kit.Layer(buffer: AudioBuffer(interleaved: samples, channels: 1, sampleRate: rate),
                                           source: "\(drum.name).wav")])
    }, sampleRate: rate)
}

/// A 382 Hz tone at 48 kHz (a period of 125.66 frames).
func sine(_ frame: Int) -> Float { 0.5 * Float(sinOf(Double(frame) * 0.05)) }

/// sin on any angle, from the kit's Taylor sine on the first quadrant.
func sinOf(_ x: Double) -> Double {
    let a = x.truncatingRemainder(dividingBy: 2 * .pi)
    switch a {
    case ..<(Double.pi / 2): return Kit.Drum.sine(a)
    case ..<(Double.pi): return Kit.Drum.sine(.pi - a)
    case ..<(3 * Double.pi / 2): return -Kit.Drum.sine(a - .pi)
    default: return -Kit.Drum.sine(2 * .pi - a)
    }
}

struct MixerTests {
    static let centre = Float(Kit.Drum.cosine(Double.pi / 4))  // 0.7071

    @Test(arguments: [0.0, 0.001, 0.5, 1.23456, 2.0000104])
    func onsetsAreSampleExact(time: Double) throws {
        let kit = testKit([("kick", 0, 100, { $0 == 0 ? 0.5 : 0.1 })])
        let (out, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: time, drum: "kick")])
        let first = stride(from: 0, to: out.count, by: 2).first { out[$0] != 0 }.map { $0 / 2 }
        #expect(first == Int((time * 48_000).rounded()))
    }

    @Test func retriggerRestartsTheSampleAndNeverSumsTwoVoices() throws {
        // A long, steady sample: two voices summed would read twice as loud.
        let kit = testKit([("snare", 0, 20_000, { _ in 0.5 })])
        let (out, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "snare"),
                                                             TimedHit(time: 0.1, drum: "snare")])
        let single = 0.5 * Self.centre
        let second = 4800, fade = 48
        #expect(abs(out[(second - 1) * 2] - single) < 1e-6)
        // During the 1 ms fade the cut sound ramps down under the new one...
        #expect(out[(second + fade / 2) * 2] > single && out[(second + fade / 2) * 2] < 2 * single)
        // ...and after it only the new voice sounds, and it lasts its full length from the retrigger.
        for frame in [second + fade, second + 10_000, second + 19_999] {
            #expect(abs(out[frame * 2] - single) < 1e-6)
        }
        #expect(out.count / 2 >= second + 20_000)
    }

    @Test func retriggerGivesTheSameWaveformAfterEachOnset() throws {
        let kit = testKit([("tom", 0, 6_000, sine)])
        let onsets = [0, 2_000, 9_000]
        let (out, _) = try OfflineRender.render(kit: kit, hits: onsets.map { TimedHit(time: Double($0) / 48_000, drum: "tom") })
        for k in [48, 100, 1_500] {
            #expect(abs(out[(onsets[1] + k) * 2] - out[(onsets[0] + k) * 2]) < 1e-6)
            #expect(abs(out[(onsets[2] + k) * 2] - out[(onsets[0] + k) * 2]) < 1e-6)
        }
    }

    @Test func differentDrumsOverlapFreely() throws {
        let kit = testKit([("kick", 0, 5_000, { _ in 0.25 }), ("snare", 0, 5_000, { _ in 0.125 })])
        let (both, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "kick"), TimedHit(time: 0.01, drum: "snare")])
        let (kick, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "kick")])
        let (snare, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0.01, drum: "snare")])
        for frame in [100, 480, 1_000, 4_999] {
            #expect(abs(both[frame * 2] - (kick[frame * 2] + snare[frame * 2])) < 1e-6)
        }
    }

    @Test(arguments: [(-90.0, 1.0), (0.0, 0.5), (90.0, 0.0), (-45.0, 0.8536)])
    func azimuthGivesTheLeftShareOfEnergy(azimuth: Double, leftShare: Double) throws {
        let kit = testKit([("ride", azimuth, 4_800, sine)])
        let (out, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "ride")])
        var left = 0.0, right = 0.0
        for i in stride(from: 0, to: out.count, by: 2) {
            left += Double(out[i] * out[i])
            right += Double(out[i + 1] * out[i + 1])
        }
        let share = left / (left + right)
        #expect(abs(share - leftShare) < 0.0012)
        // Constant power: the total is the same wherever the drum sits.
        let (centred, _) = try OfflineRender.render(kit: testKit([("ride", 0, 4_800, sine)]), hits: [TimedHit(time: 0, drum: "ride")])
        let total = centred.reduce(0) { $0 + Double($1 * $1) }
        #expect(abs(10 * log10Approx((left + right) / total)) < 0.1)
    }

    @Test func halfVelocityIsTwelveDecibelsDown() throws {
        let kit = testKit([("kick", 0, 1_000, { _ in 0.5 })])
        let (full, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "kick", velocity: 1)])
        let (half, _) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "kick", velocity: 0.5)])
        #expect(abs(half[200] / full[200] - Mixer.velocityGain(0.5)) < 1e-6)
        #expect(abs(20 * log10Approx(Double(half[200] / full[200])) + 12.04) < 0.01)
    }

    @Test func sevenFullHitsAtOnceStayUnderFullScale() throws {
        let names = ["kick", "snare", "hihat", "racktom", "floortom", "crash", "ride"]
        var drums: [(name: String, azimuth: Double, frames: Int, sample: (Int) -> Float)] = []
        for (i, name) in names.enumerated() {
            drums.append((name: name, azimuth: Double(i * 30 - 90), frames: 4_800, sample: { _ in Float(0.95) }))
        }
        let kit = testKit(drums)
        let (out, _) = try OfflineRender.render(kit: kit, hits: names.map { TimedHit(time: 0.01, drum: $0) })
        let peak = out.map(abs).max() ?? 0
        #expect(peak < 1.0)
        #expect(peak > Mixer.limiterKnee)  // it was loud: the limiter bent it rather than it being quiet
    }

    @Test func renderingIsDeterministic() throws {
        let kit = testKit([("kick", -20, 3_000, sine), ("snare", 30, 2_000, { Float($0 % 7) / 10 })])
        var hits: [TimedHit] = []
        for i in 0..<40 {
            let drum = i % 3 == 0 ? "snare" : "kick"
            hits.append(TimedHit(time: Double(i) * 0.0371, drum: drum, velocity: Float(i % 10) / 10))
        }
        let first = try OfflineRender.render(kit: kit, hits: hits).samples
        let second = try OfflineRender.render(kit: kit, hits: hits).samples
        #expect(first == second)
    }

    @Test func unknownDrumsAreSkippedAndNamed() throws {
        let kit = testKit([("kick", 0, 100, { _ in 0.5 })])
        let (_, unknown) = try OfflineRender.render(kit: kit, hits: [TimedHit(time: 0, drum: "cowbell"), TimedHit(time: 0, drum: "kick")])
        #expect(unknown == ["cowbell"])
    }

    /// The audio thread's path: popping hits, retriggering and mixing allocate nothing.
    @Test func renderDoesNotAllocate() {
        let kit = testKit([("kick", 0, 30_000, sine), ("snare", 20, 30_000, { _ in 0.3 })])
        let queue = HitQueue(capacity: 64)
        let mixer = Mixer(kit: kit, queue: queue)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        mixer.render(into: out, frames: 128)  // first call outside: nothing lazily made inside
        allocation_counter_start()
        for period in 0..<500 {
            if period % 5 == 0 { queue.push(ScheduledHit(drum: Int32(period % 2), velocity: 0.7, id: UInt32(period + 1))) }
            _ = mixer.started.pop()
            if period % 7 == 0 { queue.push(ScheduledHit(drum: 9, velocity: 1)) }  // unknown drum
            mixer.render(into: out, frames: 128)
        }
        let counted = allocation_counter_stop()
        #expect(counted == 0)
        #expect(mixer.counters.hits == 100 && mixer.counters.unknownDrums == 72)
    }
}

struct StartedReportTests {
    /// One kick of 1,000 frames at 0.5.
    static let kit = testKit([("kick", 0, 1_000, { _ in 0.5 })])

    /// A mixer of `kit` and the queue it takes hits from.
    static func mixer() -> (mixer: Mixer, queue: HitQueue) {
        let queue = HitQueue()
        return (Mixer(kit: kit, queue: queue), queue)
    }

    @Test func numberedHitsReportTheFrameTheyStartAt() {
        let (mixer, queue) = Self.mixer()
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 300, id: 7))
        queue.push(ScheduledHit(drum: 0, velocity: 1, id: 8))       // at the next period's start
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 50))   // no number: no report
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        for _ in 0..<4 { mixer.render(into: out, frames: 128) }
        let first = mixer.started.pop(), second = mixer.started.pop()
        #expect(first?.id == 8 && first?.frame == 0)
        #expect(second?.id == 7 && second?.frame == 300)
        #expect(second!.renderedMicros >= first!.renderedMicros)
        #expect(mixer.started.pop() == nil)
        #expect(first?.lateFrames == 0 && second?.lateFrames == 0 && mixer.counters.lateHits == 0)
    }

    @Test func aHitWhoseFrameHasPassedStartsAtOnceAndIsReportedLate() {
        let (mixer, queue) = Self.mixer()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { out.deallocate() }
        for _ in 0..<2 { mixer.render(into: out, frames: 128) }  // frames 0..<256 are gone
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 200, id: 1))  // 56 frames too late
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 300, id: 2))  // in time
        for _ in 0..<2 { mixer.render(into: out, frames: 128) }
        let late = mixer.started.pop(), onTime = mixer.started.pop()
        #expect(late?.id == 1 && late?.frame == 256 && late?.requestedFrame == 200 && late?.lateFrames == 56)
        #expect(onTime?.id == 2 && onTime?.frame == 300 && onTime?.lateFrames == 0)
        #expect(mixer.counters.lateHits == 1)
    }

    /// A waiting hit taken back (crosstalk shown up by a louder hit that came after it) never
    /// sounds and is reported so; one that has started already plays on, and nothing is reported.
    @Test func aWaitingHitTakenBackNeverSounds() {
        let (mixer, queue) = Self.mixer()
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { out.deallocate() }
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 10, id: 1))   // starts in the first period
        queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 600, id: 2))  // waits
        mixer.render(into: out, frames: 256)
        queue.push(.takeBack(id: 2))
        queue.push(.takeBack(id: 1))  // too late: it has started
        var heard = 0.0
        for _ in 0..<3 {
            mixer.render(into: out, frames: 256)
            for i in 0..<512 { heard += Double(abs(out[i])) }
        }
        let first = mixer.started.pop(), second = mixer.started.pop()
        #expect(first?.id == 1 && first?.frame == 10 && first?.wasTakenBack == false)
        #expect(second?.id == 2 && second?.wasTakenBack == true && second?.lateFrames == 0)
        #expect(mixer.started.pop() == nil)
        #expect(mixer.counters.hits == 1 && mixer.counters.takenBackHits == 1)
        // Only hit 1's 1,000 frames sound: from frame 256 on, 754 of them at 0.5 in two channels,
        // panned; hit 2 would have added as much again from frame 600.
        let alone = Self.mixer().mixer
        let reference = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { reference.deallocate() }
        var expected = 0.0
        alone.queue.push(ScheduledHit(drum: 0, velocity: 1, frame: 10))
        for period in 0..<4 {
            alone.render(into: reference, frames: 256)
            if period > 0 { for i in 0..<512 { expected += Double(abs(reference[i])) } }
        }
        #expect(abs(heard - expected) < 1e-3 && expected > 0)
    }
}

struct HitQueueTests {
    @Test func carriesHitsInOrderBetweenThreadsAndCountsOverflow() {
        let queue = HitQueue(capacity: 128)
        let total = 100_000
        // A lost hit would leave the consumer below waiting forever, and a stopped consumer the
        // producer: after 60 s (100,000 hits take milliseconds) both stop, and it is a failure
        // that says how many came. The producer is a thread of its own (not a task: two tasks
        // yielding to each other on a cooperative pool whose threads other tests hold can both
        // wait a minute), and each side yields its thread when the queue is full or empty.
        let deadline = MonotonicClock.nowMicros() + 60_000_000
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var sent = 0
            while sent < total && MonotonicClock.nowMicros() < deadline {
                if queue.push(ScheduledHit(drum: Int32(sent % 7), velocity: 0, frame: Int64(sent))) { sent += 1 } else { sched_yield() }
            }
            done.signal()
        }
        var expected: Int64 = 0
        var ok = true
        while expected < Int64(total) && MonotonicClock.nowMicros() < deadline {
            if let hit = queue.pop() {
                ok = ok && hit.frame == expected && hit.drum == Int32(expected % 7)
                expected += 1
            } else {
                sched_yield()
            }
        }
        #expect(expected == Int64(total), "\(expected) of \(total) hits came through the queue")
        done.wait()
        #expect(ok && queue.pop() == nil)
        let small = HitQueue(capacity: 2)
        #expect(small.push(ScheduledHit(drum: 0, velocity: 1)) && small.push(ScheduledHit(drum: 0, velocity: 1)))
        #expect(!small.push(ScheduledHit(drum: 0, velocity: 1)) && small.refusedCount == 1)
    }
}

/// log10 without Foundation, for dB figures in tests.
func log10Approx(_ x: Double) -> Double {
    var n = 0.0, v = x
    while v >= 10 { v /= 10; n += 1 }
    while v < 1 { v *= 10; n -= 1 }
    // ln(v)/ln(10) by series around 1 on v in [1,10): use ln(v) = 2 atanh((v-1)/(v+1)).
    let y = (v - 1) / (v + 1)
    var term = y, sum = 0.0
    for k in stride(from: 1, through: 199, by: 2) {
        sum += term / Double(k)
        term *= y * y
    }
    return n + 2 * sum / 2.302585092994046
}

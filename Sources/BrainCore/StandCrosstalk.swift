import Monotonic
import Synchronization

/// The brain's crosstalk decisions from what it learned of its stands (`StandModel`), on the
/// network thread: each hit with a strength is judged against the hits on other pads around it,
/// a weak one that a coupled neighbour's strike could still explain waits for it (at most that
/// pad's sensor period + 1 ms), and a strike that arrives late takes back the waiting crosstalk
/// it explains.
///
/// Thread safety: any thread (a mutex, uncontended: one producer of hits).
public final class StandCrosstalk: Sendable {
    /// What to do with a hit.
    public enum Decision: Sendable, Equatable {
        /// Crosstalk of another pad's hit: not played.
        case crosstalk
        /// Play it, after `holdMicros` (0: at once); the ids listed are waiting crosstalk this
        /// hit shows up, to take back.
        case play(holdMicros: Int64, takeBack: [UInt32])
        /// A push the pad felt, learned from as any hit and not played; the ids listed are
        /// waiting crosstalk it shows up, or waiting readings of a shake it completes, to take
        /// back.
        case felt(takeBack: [UInt32])
        /// A shake of the whole stand (`StandModel.shake`), not played; the ids listed are
        /// waiting hits of the same shake, to take back.
        case shaken(takeBack: [UInt32])
    }

    private struct State {
        var model: StandModel
        // Hits waiting for a cause that arrives later, until when, and whether they play (a felt
        // push or a hit too weak for a stroke never does: it waits only to be marked).
        var waiting: [(hit: StandModel.Waiting, untilMicros: Int64, plays: Bool)] = []
        var cancelled = 0
        var takenBack = 0
        var swayed = 0
        var weak = 0
        var shaken = 0

        /// Of the waiting hits numbered `ids`, those queued to play (a felt push or a hit too weak
        /// for a stroke waits only to be marked): what a take-back hands the router.
        func queuedToPlay(_ ids: [UInt32]) -> [UInt32] {
            ids.filter { id in waiting.contains { $0.hit.id == id && $0.plays } }
        }

        /// Puts hit `hit`, arrived at `arrivalMicros` (its slot at `slotMicros`, if later), to
        /// wait for a cause that may arrive later, where one could explain it (`StandModel.hold`):
        /// until its slot at no cost, past it at most the hold. Returns how long it holds the hit
        /// past its slot (0 where it does not wait). `plays`: whether it plays once it has waited.
        mutating func wait(_ hit: StandModel.Waiting, arrivalMicros: Int64, slotMicros: Int64?, plays: Bool) -> Int64 {
            guard let hold = model.hold(for: hit.pad, strength: hit.strength) else { return 0 }
            let starts = max(arrivalMicros, slotMicros ?? arrivalMicros)
            let until = max(arrivalMicros.saturatingAdd(hold), starts)
            waiting.append((hit, until, plays))
            return until.saturatingSubtract(starts)
        }
    }

    private let state: Mutex<State>
    /// Told each pair of pads found to share a stand (on the deciding thread).
    private let onStandFound: @Sendable (_ source: String, _ receiver: String, _ coupling: Double) -> Void

    /// Decisions from `model` (fresh, or as saved).
    public init(model: StandModel = StandModel(),
                onStandFound: @escaping @Sendable (String, String, Double) -> Void = { _, _, _ in }) {
        state = Mutex(State(model: model))
        self.onStandFound = onStandFound
    }

    /// Decides the hit numbered `id` on pad `padKey` (sensor `rateHz` if known), struck at
    /// `strikeMicros` and arrived at `arrivalMicros` (one clock), of `strength` g. `slotMicros`:
    /// when the hit starts anyway (its slot in a jitter buffer), if later than its arrival. A
    /// hit that could be crosstalk waits for its cause until then at no cost, and beyond it at
    /// most the hold; the `holdMicros` returned is only what it adds past the slot.
    ///
    /// A push the pad felt (`felt`) is judged, waits and is learned from as any hit (but by a
    /// stand's sway, `StandModel.swayingPad`, and by the floor, `StandModel.isTooWeak`), so the
    /// model sees the stand as it would if the pad had sent it as one; it never plays, and is
    /// counted neither as cancelled nor as taken back. A hit too weak for a stroke at its pad's
    /// rate (`isTooWeak`) is cancelled, and waits as a felt push does, to be marked as the
    /// crosstalk of a strike arriving later. A hit that is a shake of the whole stand
    /// (`StandModel.shake`) is cancelled (`.shaken`) and takes back the readings of that shake
    /// still waiting to play; a felt push that completes a shake takes them back too.
    public func decide(padKey: String, rateHz: Double?, strikeMicros: Int64, arrivalMicros: Int64,
                       strength: Double, id: UInt32, slotMicros: Int64? = nil, felt: Bool = false) -> Decision {
        var found: [(String, String, Double)] = []
        let decision: Decision = state.withLock { s in
            guard let pad = s.model.pad(padKey, rateHz: rateHz) else { return .play(holdMicros: 0, takeBack: []) }
            s.waiting.removeAll { $0.untilMicros < arrivalMicros }
            let explained = s.model.explainingHit(receiver: pad, strikeMicros: strikeMicros, strength: strength, felt: felt)
            let shown = explained == nil
                ? s.model.explained(bySource: pad, strikeMicros: strikeMicros, strength: strength,
                                    among: s.waiting.map(\.hit))
                : []
            var coupled: [StandModel.PairKey] = []
            // Not crosstalk of a hit around it: perhaps of a neighbour's sway (`swayingPad`), from a
            // strike whose window has closed (settled first, as `learn` would next, so that its
            // sway counts). A swayed hit shows up no waiting crosstalk. A felt push is not judged
            // by the sway: it never plays, and stays free to wait for a later cause.
            var swayed = false
            if explained == nil && !felt && s.model.judgesSway(pad) {
                coupled = s.model.settle(before: strikeMicros)
                swayed = s.model.swayingPad(receiver: pad, strikeMicros: strikeMicros, strength: strength) != nil
            }
            // Too weak for a stroke at its pad's rate (`leastStrokeG`): learned from as a hit no
            // strike explains, as a swayed one is.
            let weak = explained == nil && !felt && !swayed && s.model.isTooWeak(pad, strength: strength)
            // A shake of the whole stand (`StandModel.shake`): no stroke, nor any of the hits
            // alike around it (those still waiting to play are taken back, and none of them is
            // a strike the model learns from, played or not); it explains no other hit, and
            // does not wait for a strike arriving later, as a swayed hit does not.
            let shakenWith = explained == nil && !swayed && !weak
                ? s.model.shake(of: pad, strikeMicros: strikeMicros, strength: strength) : nil
            let shaken = shakenWith != nil
            let shakenWaiting = s.queuedToPlay(shakenWith ?? [])
            s.model.markCrosstalk(shakenWith ?? [])
            if !shakenWaiting.isEmpty {
                s.waiting.removeAll { shakenWaiting.contains($0.hit.id) }
                s.takenBack += shakenWaiting.count
                s.shaken += shakenWaiting.count
            }
            let takeBack = swayed || weak || shaken ? [] : shown
            coupled += s.model.learn(pad: pad, strikeMicros: strikeMicros, strength: strength, id: id,
                                     isSource: explained == nil && !swayed && !weak && !shaken, felt: felt, cause: explained?.id)
            for key in coupled {
                if let estimate = s.model.pairs[key]?.estimate {
                    found.append((s.model.padKeys[key.source], s.model.padKeys[key.receiver], estimate))
                }
            }
            if explained != nil || swayed || weak || shaken {
                if felt { return .felt(takeBack: shakenWaiting) }
                s.cancelled += 1
                if swayed { s.swayed += 1 }
                if shaken { s.shaken += 1 }
                if weak {
                    s.weak += 1
                    // It still waits for a cause arriving later, which marks it as its crosstalk
                    // (the strike it witnesses), as it would a hit that plays; it never plays.
                    _ = s.wait((id, pad, strikeMicros, strength, felt), arrivalMicros: arrivalMicros, slotMicros: slotMicros, plays: false)
                }
                return shaken ? .shaken(takeBack: shakenWaiting) : .crosstalk
            }
            // Felt pushes taken back are only marked: none was queued to play. (Every id shown is
            // a waiting hit's: `explained(bySource:)` judges only those.)
            let queued = s.queuedToPlay(takeBack)
            s.waiting.removeAll { takeBack.contains($0.hit.id) }
            s.model.markCrosstalk(takeBack, of: id)
            s.takenBack += queued.count
            let holdMicros = s.wait((id, pad, strikeMicros, strength, felt), arrivalMicros: arrivalMicros, slotMicros: slotMicros, plays: !felt)
            return felt ? .felt(takeBack: queued) : .play(holdMicros: holdMicros, takeBack: queued)
        }
        for (source, receiver, coupling) in found { onStandFound(source, receiver, coupling) }
        return decision
    }

    /// Takes pad `padKey`'s hello (sensor `rateHz`): the pad is known before its first hit, so
    /// a weak hit on a neighbour struck with that first hit waits for it.
    public func greet(padKey: String, rateHz: Double?) {
        state.withLock { _ = $0.model.pad(padKey, rateHz: rateHz) }
    }

    /// Hits cancelled on arrival, waiting hits taken back, and of those cancelled the ones a
    /// neighbour's sway explained (`StandModel.swayingPad`) and the ones too weak for a stroke
    /// (`StandModel.isTooWeak`), and of both the ones a shake of the whole stand explained
    /// (`StandModel.shake`), so far (read together).
    public var counts: (cancelled: Int, takenBack: Int, swayed: Int, weak: Int, shaken: Int) {
        state.withLock { ($0.cancelled, $0.takenBack, $0.swayed, $0.weak, $0.shaken) }
    }

    /// The model as it stands (to show or save).
    public var model: StandModel { state.withLock { $0.model } }
}

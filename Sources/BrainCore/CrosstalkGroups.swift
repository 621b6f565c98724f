import HitDetect
import Synchronization

/// The crosstalk cancellers of the --crosstalk-group stands, by drum name; used on the network
/// thread (the one producer of hits), behind a lock that is never contended.
///
/// Thread safety: any thread (a mutex).
public final class CrosstalkGroups: Sendable {
    private let members: [String: (group: Int, member: Int)]
    private let state: Mutex<[CrosstalkCanceller]>

    /// Cancellers for `groups` (each a stand's drum names), each with `configuration`.
    public init(_ groups: [[String]], _ configuration: CrosstalkCanceller.Configuration) {
        var members: [String: (group: Int, member: Int)] = [:]
        for (group, drums) in groups.enumerated() {
            for (member, drum) in drums.enumerated() { members[drum] = (group, member) }
        }
        self.members = members
        state = Mutex(groups.map { _ in CrosstalkCanceller(configuration) })
    }

    /// Whether a hit on `drum` at `micros` (the brain's clock), which arrived at `arrivalMicros`
    /// and is numbered `id`, sounds; drums in no group always do. A louder hit takes back the
    /// waiting crosstalk it shows up: `takeBack` gets each one's number (0 for a hit without
    /// one, which the mixer's take-back ignores).
    public func admit(drum: String, micros: Int64, arrivalMicros: Int64, velocity: Float, id: UInt32,
                      takeBack: (UInt32) -> Void) -> Bool {
        guard let place = members[drum] else { return true }
        return state.withLock {
            $0[place.group].admit(source: place.member, time: Double(micros) / 1e6, velocity: Double(velocity),
                                  arrival: Double(arrivalMicros) / 1e6, id: id, revoke: takeBack)
        }
    }

    /// Hits cancelled so far, every group together.
    public var cancelled: Int { state.withLock { $0.reduce(0) { $0 + $1.cancelled } } }
}

/// Offline crosstalk cancelling, as the brain would do it (`drumpad replay --neighbour`): one log's hits decided against its neighbours' in the
/// order the brain would receive them (`CrosstalkCanceller`), each held until no later hit can
/// take it back (its time plus the jitter buffer), then released in order.
///
/// Thread safety: a value type.
public struct CrosstalkReplay {
    /// A neighbour's hit: its pad (`source`, not 0), time and velocity, and when it would arrive.
    public typealias Neighbour = (source: Int, time: Double, velocity: Double, arrival: Double)

    /// The neighbours' hits, in the order they would arrive.
    public let neighbours: [Neighbour]
    private var nextNeighbour = 0
    private var canceller: CrosstalkCanceller
    /// This log's admitted hits that a later hit could still take back, in order.
    private var waiting: [(hit: Hit, id: UInt32, takenBack: Bool)] = []
    private var nextID: UInt32 = 1
    /// This log's hits not played as crosstalk, when they arrived or taken back later.
    public private(set) var cancelled = 0
    /// Of those, the ones taken back.
    public private(set) var takenBack = 0

    /// Decides one log's hits against `neighbours` (in arrival order) under `configuration`.
    public init(neighbours: [Neighbour], configuration: CrosstalkCanceller.Configuration) {
        self.neighbours = neighbours
        canceller = CrosstalkCanceller(configuration)
    }

    /// Decides `hit` of this log, arriving at `arrival`; appends to `sounding` this log's hits
    /// that are now final and play, in order. Without neighbours every hit plays at once.
    public mutating func decide(_ hit: Hit, arrival: Double, into sounding: inout [Hit]) {
        guard !neighbours.isEmpty else {
            sounding.append(hit)
            return
        }
        admitNeighbours(through: (arrival, hit.time))
        // Its own pad's hits are never its crosstalk, so this hit takes back only neighbours'.
        if canceller.admit(source: 0, time: hit.time, velocity: hit.velocity, arrival: arrival, id: nextID, revoke: { _ in }) {
            waiting.append((hit, nextID, false))
            nextID += 1
        } else {
            cancelled += 1
        }
        release(arrivedBy: arrival, into: &sounding)
    }

    /// After the last hit: the neighbours' remaining hits, then every waiting hit.
    public mutating func finish(into sounding: inout [Hit]) {
        admitNeighbours(through: (.infinity, .infinity))
        release(arrivedBy: .infinity, into: &sounding)
    }

    private mutating func admitNeighbours(through arrival: (Double, Double)) {
        var taken: [UInt32] = []
        while nextNeighbour < neighbours.count
                && (neighbours[nextNeighbour].arrival, neighbours[nextNeighbour].time) <= arrival {
            let other = neighbours[nextNeighbour]
            _ = canceller.admit(source: other.source, time: other.time, velocity: other.velocity,
                                arrival: other.arrival, id: 0) { taken.append($0) }
            nextNeighbour += 1
        }
        // Neighbours' hits (id 0) taken back are simply forgotten; this log's are marked.
        for id in taken {
            if let k = waiting.firstIndex(where: { $0.id == id }) { waiting[k].takenBack = true }
        }
    }

    /// Releases the waiting hits that nothing arriving at `arrival` or later can take back.
    private mutating func release(arrivedBy arrival: Double, into sounding: inout [Hit]) {
        let hold = canceller.configuration.hold
        while let first = waiting.first, arrival >= first.hit.time + hold {
            waiting.removeFirst()
            if first.takenBack {
                cancelled += 1
                takenBack += 1
            } else {
                sounding.append(first.hit)
            }
        }
    }
}

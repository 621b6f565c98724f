extension StandModel {
    /// How much crosstalk the hits around a receiver's hit can cause together. Learned couplings
    /// add up (a pad between two pads struck together feels both); the prior, a guess that each
    /// pair may be coupled, counts once, for the strongest, or a unison of two loud pads would
    /// explain a third pad's real strike. The receiver's floor allowance comes with a learned
    /// coupling only.
    struct Bound {
        private var coupled = 0.0
        private var assumed = 0.0
        private var anyCoupled = false

        /// Adds what one hit around the receiver's can cause, `share` g, through a learned
        /// (`isCoupled`) or an assumed coupling.
        mutating func add(_ share: Double, coupled isCoupled: Bool) {
            if isCoupled {
                coupled += share
                anyCoupled = true
            } else {
                assumed = max(assumed, share)
            }
        }

        /// The most the hits added can cause together, with the receiver's floor `allowance`
        /// where any coupling was learned.
        func value(allowance: Double) -> Double {
            coupled + assumed + (anyCoupled ? allowance : 0)
        }
    }
}

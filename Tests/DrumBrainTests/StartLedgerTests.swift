import BrainCore
@testable import DrumAudio
import Testing

/// The printer's table of start reports: matched reports come out, and reports for hits the
/// printer has passed are dropped, so that the table stays small however long the brain runs.
struct StartLedgerTests {
    static func report(_ id: UInt32) -> StartedHit {
        StartedHit(id: id, frame: Int64(id) * 10, renderedMicros: Int64(id))
    }

    @Test func aReportIsTakenOnceForItsHit() {
        var ledger = StartLedger()
        ledger.add(Self.report(2))  // the audio thread can be ahead of the printer
        ledger.reach(1)
        ledger.add(Self.report(1))
        #expect(ledger.has(1) && ledger.has(2))
        #expect(ledger.take(1)?.frame == 10 && ledger.take(1) == nil)
        ledger.reach(2)
        #expect(ledger.has(2) && ledger.take(2)?.frame == 20 && ledger.count == 0)
    }

    @Test func aReportForAHitThePrinterPassedIsDropped() {
        var ledger = StartLedger()
        ledger.reach(5)  // hit 4's wait ran out, or it never reached the printer
        ledger.add(Self.report(4))
        #expect(!ledger.has(4) && ledger.count == 0)
        ledger.add(Self.report(5))
        ledger.add(Self.report(6))
        #expect(ledger.has(5) && ledger.has(6))
    }

    @Test func reportsNeverAskedForDoNotPileUp() {
        // Every other hit never reaches the printer (a full hand-off): its report comes in before
        // the printer gets past it, and is never taken.
        var ledger = StartLedger()
        var largest = 0
        for number in stride(from: UInt32(1), through: 200_000, by: 2) {
            ledger.add(Self.report(number + 1))
            ledger.reach(number)
            ledger.add(Self.report(number))
            #expect(ledger.take(number) != nil)
            largest = max(largest, ledger.count)
        }
        #expect(largest <= 512, "the table grew to \(largest) reports")
    }

    @Test func numbersWrapAroundAndSkipZero() {
        var ledger = StartLedger()
        ledger.reach(UInt32.max)
        ledger.add(Self.report(1))  // after the wrap: ahead, kept
        ledger.add(Self.report(UInt32.max - 1))  // just behind: passed
        #expect(ledger.has(1) && !ledger.has(UInt32.max - 1))
        ledger.reach(1)
        #expect(ledger.take(1) != nil)
    }
}

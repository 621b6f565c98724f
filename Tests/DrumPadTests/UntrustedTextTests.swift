#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

/// Text from a file or a device never reaches the terminal raw: a sensor log's bad field quoted in
/// an error, a device's name in the device list, in messages and in a recorded log's metadata,
/// an evemu recording's device name. Each control character is written as `\xNN`
/// (`TerminalText`), so an escape sequence cannot clear the screen or forge a line.
struct UntrustedTextTests {
    /// Whether `text` holds a byte that acts on a terminal: ESC, BEL, or a carriage return.
    static func acts(_ text: String) -> Bool { text.utf8.contains { $0 == 0x1B || $0 == 0x07 || $0 == 0x0D } }

    @Test func aSensorLogsBadFieldIsQuotedEscaped() {
        let log = Program.temporaryFile("# drumpad sensor log v1\nt,z\n0,1\n0.01,\u{1B}[31mRED\u{07}\rX\n")
        defer { unlink(log) }
        let run = Program.run("drumpad", ["replay", log])
        #expect(run.status != 0)
        #expect(!Self.acts(run.stderr), "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains(":4: column \"z\": \"\\x1B[31mRED\\x07\\x0DX\" is not a number"), "\(run.stderr)")
    }

    /// A device names itself (a USB controller's strings, a driver's `name`): with an escape
    /// sequence, a bell and a newline in it, `drumpad devices` lists it on one line, `record`
    /// says it escaped, and the log it writes keeps it on its `# device:` line and replays.
    @Test func aDevicesNameIsEscapedInTheListTheMessagesAndTheLog() {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        tree.write("\(SensorCommandTests.adxl)/name", "adxl\u{1B}[2J\u{07}\nforged line\n")
        let escaped = "adxl\\x1B[2J\\x07\\x0Aforged line"
        let devices = Program.runTool("env", ["DRUMPAD_SYSFS_ROOT=\(tree.root)/sys", "DRUMPAD_DEV_ROOT=\(tree.root)/dev",
                                              Program.productsFolder + "/drumpad", "devices"])
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(!Self.acts(devices.stdout) && devices.stdout.contains("\"\(escaped)\"\n"), "\(devices.stdout.debugDescription)")
        #expect(!devices.stdout.contains("\nforged line"))
        let out = "\(tree.root)/rec.csv"
        let record = Program.run("drumpad", ["record", "--device", "\(tree.root)/\(SensorCommandTests.adxl)", "--rate", "100",
                                             "--seconds", "0.3", "--out", out])
        #expect(record.status == 0, "\(record.stderr)")
        #expect(!Self.acts(record.stderr) && record.stderr.contains("\"\(escaped)\""), "\(record.stderr.debugDescription)")
        let log = Program.contents(out)
        #expect(log.contains("\n# device: \(escaped)\n") && !Self.acts(log), "\(log.prefix(300).debugDescription)")
        let replay = Program.run("drumpad", ["replay", out])
        #expect(replay.status == 0, "\(replay.stderr)")
    }

    @Test func anEvemuRecordingsDeviceNameIsEscaped() {
        var evemu = "# EVEMU 1.3\nN: Evil\u{1B}]0;title\u{07}Sensors\nP: 40 00 00 00 00 00 00 00\n"
            + "A: 00 -32768 32767 0 0 8192\nA: 01 -32768 32767 0 0 8192\nA: 02 -32768 32767 0 0 8192\n"
        for row in 0..<50 {
            let micros = row * 4000
            let time = "0.\(String(micros + 1_000_000).dropFirst())"
            evemu += "E: \(time) 0003 0002 8192\nE: \(time) 0000 0000 0\n"
        }
        let path = Program.temporaryFile(evemu, suffix: ".evemu")
        defer { unlink(path) }
        let replay = Program.run("drumpad", ["replay", path])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!Self.acts(replay.stderr), "\(replay.stderr.debugDescription)")
        #expect(replay.stderr.contains("evemu recording of \"Evil\\x1B]0;title\\x07Sensors\""), "\(replay.stderr)")
    }
}

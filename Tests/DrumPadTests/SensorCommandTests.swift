#if canImport(Glibc)
import Glibc
#endif
import HitDetect
import Monotonic
import Testing
import TestSupport

/// `drumpad record`, `run --device` and replays of evemu recordings, as a user runs them, on fake
/// IIO devices (the real-kernel evdev test is scripts/kernel-evdev).
struct SensorCommandTests {
    static let adxl = "sys/bus/iio/devices/iio:device0"

    @Test func anEvemuRecordingReplaysToTheSameHitsAsTheSameSamplesInACSV() throws {
        // The bundled snare log quantised to 1/8192 g, written both ways.
        let source = Program.contents(Program.repositoryRoot + "/Samples/logs/snare-250hz.csv")
        var csv = "t,x,y,z\n"
        var evemu = "# EVEMU 1.3\nN: Test Motion Sensors\nP: 40 00 00 00 00 00 00 00\n"
            + "A: 00 -32768 32767 0 0 8192\nA: 01 -32768 32767 0 0 8192\nA: 02 -32768 32767 0 0 8192\n"
        var row = 0
        var stamp = UInt32.max - 1_000_000  // wraps a second in
        for line in source.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("t") {
            let fields = line.split(separator: ",")
            let z = Int32((Double(fields[3])! * 8192).rounded())
            let micros = row * 4000
            csv += "\(Double(micros) / 1e6),0,0,\(Double(z) / 8192)\n"
            let time = "\(micros / 1_000_000).\(String(micros % 1_000_000 + 1_000_000).dropFirst())"
            evemu += "E: \(time) 0003 0002 \(z)\nE: \(time) 0004 0005 \(Int32(bitPattern: stamp))\nE: \(time) 0000 0000 0\n"
            stamp &+= 4000
            row += 1
        }
        let csvPath = Program.temporaryFile(csv)
        let evemuPath = Program.temporaryFile(evemu, suffix: ".evemu")
        defer { unlink(csvPath); unlink(evemuPath) }
        let fromCSV = Program.run("drumpad", ["replay", csvPath])
        let fromEvemu = Program.run("drumpad", ["replay", evemuPath])
        #expect(fromEvemu.status == 0, "\(fromEvemu.stderr)")
        #expect(fromEvemu.stdout.components("\n") > 10)
        #expect(fromEvemu.stdout == fromCSV.stdout)
        #expect(fromEvemu.stderr.contains("evemu recording of \"Test Motion Sensors\", axis z"))
    }

    @Test func recordWritesALogThatStopsCleanlyOnCtrlC() throws {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        let out = "\(tree.root)/rec.csv"
        let record = try #require(BackgroundProcess([
            Program.productsFolder + "/drumpad", "record", "--device", "\(tree.root)/\(Self.adxl)",
            "--rate", "200", "--out", out]))
        // Written out four times a second: rows show up while it runs, not only at the end.
        #expect(eventually(within: 30) { Program.contents(out).components("\n") > 20 })
        #expect(record.stop(signal: SIGINT) == 0)
        let log = Program.contents(out)
        #expect(log.hasPrefix("# drumpad sensor log v1\n# device: adxl345\n# rate_hz: 200\n"))
        #expect(log.contains("# units_per_g: 256\n"))
        #expect(log.contains("# time: read time (polled)\n"))
        #expect(log.hasSuffix(" (measured)\n"))
        // Every data row is whole, and replays.
        let rows = log.split(separator: "\n").filter { !$0.hasPrefix("#") }.dropFirst()
        #expect(rows.allSatisfy { $0.split(separator: ",").count == 4 && $0.hasSuffix(",1.00000") })
        #expect(Program.run("drumpad", ["replay", out]).status == 0)
        #expect(record.output.contains("drumpad record: \(tree.root)/\(Self.adxl) \"adxl345\" → \(out)"))
        #expect(record.output.contains("samples over"))
    }

    @Test func recordForSecondsStopsByItself() {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        let out = "\(tree.root)/rec.csv"
        let run = Program.run("drumpad", ["record", "--device", "\(tree.root)/\(Self.adxl)", "--rate", "100",
                                          "--seconds", "0.5", "--out", out])
        #expect(run.status == 0, "\(run.stderr)")
        let rows = Program.contents(out).split(separator: "\n").filter { !$0.hasPrefix("#") }.count - 1
        // At most what 100 Hz gives in 0.5 s; fewer when a loaded machine wakes the poll late.
        #expect((1...52).contains(rows), "\(rows) rows in 0.5 s at 100 Hz")
        #expect(run.stderr.contains("samples over"))
    }

    @Test(.enabled(if: getuid() == 0 && toolAvailable("unshare"), "needs root to mount a small tmpfs"))
    func aFullDiskStopsRecordingWithAClearErrorAndAReadableLog() {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: false)
        // A 64 KiB tmpfs in a private mount namespace fills in a few seconds at 1 kHz; what was
        // written is copied out before the namespace (and its tmpfs) goes.
        let disk = "\(tree.root)/disk", kept = "\(tree.root)/kept.csv"
        mkdir(disk, 0o755)
        let script = "mount -t tmpfs -o size=64k tmpfs \(disk) && "
            + "\(Program.productsFolder)/drumpad record --device \(tree.root)/\(Self.adxl) --rate 1000 --seconds 60 "
            + "--out \(disk)/rec.csv; status=$?; cp \(disk)/rec.csv \(kept); exit $status"
        let run = Program.runTool("unshare", ["-m", "sh", "-c", script])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("\(disk)/rec.csv: write failed: No space left on device; the "), "\(run.stderr)")
        #expect(run.stderr.contains("rows before are kept and the file is a readable log; free some space"))
        // The log ends on a whole row and replays; the count of rows is the one the error gave.
        let log = Program.contents(kept)
        #expect(log.hasSuffix("\n") && log.count > 40_000, "\(log.count) bytes kept")
        let rows = log.split(separator: "\n").filter { !$0.hasPrefix("#") }.count - 1
        #expect(run.stderr.contains("the \(rows) rows before are kept"), "\(rows) rows in the file")
        let replay = Program.run("drumpad", ["replay", kept])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("\(rows) samples"))
        if replay.status == 0 && run.stderr.contains("the \(rows) rows before are kept") {
            FaultTable.record("disk full while recording", load: "64 KiB tmpfs, 1 kHz sensor",
                              result: "clear error; data lost: none of the \(rows) rows written, the log replays")
        }
    }

    @Test(.enabled(if: getuid() == 0 && toolAvailable("setpriv"), "needs root to run drumpad as another user"))
    func devicesNamesAPermissionProblemAndItsFix() {
        let tree = FakeSysfs()
        tree.addInputNode("event3", name: "Drum Pad Motion Sensors", properties: "40", abs: "7", msc: "20")
        // A copy of drumpad the other user can run wherever the checkout lives.
        _ = system("chmod 755 '\(tree.root)' && chmod 600 '\(tree.root)/dev/input/event3' && "
                   + "cp '\(Program.productsFolder)/drumpad' '\(tree.root)/drumpad' && chmod 755 '\(tree.root)/drumpad'")
        // As an unprivileged user, as on a board without the udev rule.
        let run = Program.runTool("setpriv", [
            "--reuid=65534", "--regid=65534", "--clear-groups", "env",
            "DRUMPAD_SYSFS_ROOT=\(tree.root)/sys", "DRUMPAD_DEV_ROOT=\(tree.root)/dev",
            "\(tree.root)/drumpad", "devices"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(tree.root)/dev/input/event3  evdev  \"Drum Pad Motion Sensors\""), "\(run.stdout)")
        #expect(run.stdout.contains("MSC_TIMESTAMP: yes"))
        #expect(run.stdout.contains("problem: \(tree.root)/dev/input/event3: cannot open: Permission denied; "
                                    + "install the udev rule that gives the drumpad group access to accelerometers"))
        #expect(run.stdout.contains("contrib/udev/70-drumpad.rules"))
    }

    @Test func aMissingDeviceSaysWhatToDo() {
        let run = Program.run("drumpad", ["record", "--device", "/dev/input/event99", "--out", "/tmp/never.csv"])
        #expect(run.status != 0)
        #expect(run.stderr.contains("/dev/input/event99: cannot open: No such file or directory; "
                                    + "the device is not there; run `drumpad devices` to see what is"))
        #expect(access("/tmp/never.csv", F_OK) != 0)
    }

    @Test func runWithASensorPlaysHitsAndSurvivesAnUnplug() throws {
        let tree = FakeSysfs()
        tree.addADXL345(buffered: true)
        let port = freePort()
        let brain = try #require(BackgroundProcess([
            Program.productsFolder + "/drumbrain", "--port", "\(port)", "--bind", "127.0.0.1", "--output", "null"]))
        defer { brain.stop() }
        #expect(brain.waitForOutput("listening"), "\(brain.output)")
        let pad = try #require(BackgroundProcess([
            "env", "DRUMPAD_SYSFS_ROOT=\(tree.root)/sys", "DRUMPAD_DEV_ROOT=\(tree.root)/dev",
            Program.productsFolder + "/drumpad", "run", "--drum", "snare", "--device", "iio:device0",
            // The card's detector: the made-up jolts are one sample tall, this test is about reading.
            "--brain", "127.0.0.1:\(port)", "--name", "iio-pad", "--detector", "card"]))
        #expect(pad.waitForOutput("reading \(tree.root)/\(Self.adxl) \"adxl345\""))

        // Strikes into the buffer node: rest at 1 g, a 3 g jolt every 100 ms (400 Hz records).
        func strike(count: Int) {
            // Non-blocking, so that a pad that never opened the node fails the test, not hangs it.
            var writer: Int32 = -1
            guard eventually(within: 10, {
                writer = open("\(tree.root)/dev/iio:device0", O_WRONLY | O_NONBLOCK)
                return writer >= 0
            }) else {
                Issue.record("the pad never opened the buffer node")
                return
            }
            var bytes: [UInt8] = []
            let start = MonotonicClock.nowMicros() * 1000
            for i in 0..<(count * 40) {
                let z = Int16(i % 40 == 20 ? 768 : 256)
                for value in [Int16(0), Int16(0), z] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
                bytes += [0, 0]
                withUnsafeBytes(of: (start + Int64(i) * 2_500_000).littleEndian) { bytes += $0 }
            }
            _ = bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
            close(writer)  // the writer going away is the sensor unplugged
        }
        strike(count: 5)
        // One hit per strike: the drop back to rest falls within the refractory period.
        #expect(eventually(within: 30) { brain.output.components("pad=iio-pad ") == 5 },
                "\(brain.output)\n\(pad.output)")
        #expect(pad.waitForOutput("sensor unplugged"))
        strike(count: 2)
        #expect(pad.waitForOutput("sensor back"), "\(pad.output)")
        #expect(eventually(within: 30) { brain.output.components("pad=iio-pad ") == 7 }, "\(brain.output)")
        #expect(pad.stop(signal: SIGINT) == 0)
        #expect(pad.output.contains("7 hits, 7 sent, 0 dropped"), "\(pad.output)")
        if pad.output.contains("7 hits, 7 sent, 0 dropped") && pad.output.contains("sensor back") {
            FaultTable.record("IIO sensor unplugged and back (fake sysfs, FIFO buffer)", load: "drumpad run playing a brain",
                              result: "survived; said so, reopened, 7 of 7 hits played")
        }
    }
}

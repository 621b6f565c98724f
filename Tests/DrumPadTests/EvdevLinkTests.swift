import CEvdev
import Testing
import TestSupport

/// libevdev links and answers (a broken toolchain set-up shows here first).
struct EvdevLinkTests {
    @Test func libevdevNamesTheAccelerometerAxes() {
        #expect(String(cString: libevdev_event_type_get_name(UInt32(EV_ABS))) == "EV_ABS")
        #expect(String(cString: libevdev_event_code_get_name(UInt32(EV_ABS), UInt32(ABS_Z))) == "ABS_Z")
        #expect(libevdev_event_code_from_name(UInt32(EV_ABS), "ABS_Z") == ABS_Z)
    }

    @Test func versionNamesTheLinkedLibrary() {
        let run = Program.run("drumpad", ["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("drumpad 0.1.0 (libevdev linked)"))
    }
}

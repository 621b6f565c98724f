// swift-tools-version:6.0
// The drum trigger network: pads that detect drumstick hits on accelerometers and a brain that
// plays them. Layout and contracts: docs/architecture.md.
import PackageDescription

let package = Package(
    name: "DrumTrigger",
    products: [
        .executable(name: "drumbrain", targets: ["DrumBrain"]),
        .executable(name: "drumpad", targets: ["DrumPad"]),
        .library(name: "HitDetect", targets: ["HitDetect"]),
        .library(name: "DrumNet", targets: ["DrumNet"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Only for a test: the pairing key's HMAC-SHA256 (DrumNet's own, Foundation-free) is
        // checked against swift-crypto's.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
    ],
    targets: [
        // C system libraries: one module each, their headers from Debian's -dev packages. Those a pad
        // may do without (sound, discovery) name no library to link: the brain and the tests link
        // them through `LinkedLibraries`, a pad loads them when first used (`CLazyLibraries`).
        .systemLibrary(name: "CALSA", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndFile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CAvahiClient", providers: [.apt(["libavahi-client-dev"])]),
        .systemLibrary(
            name: "CEvdev", pkgConfig: "libevdev",
            providers: [.apt(["libevdev-dev"])]),
        .systemLibrary(name: "CSampleRate", providers: [.apt(["libsamplerate0-dev"])]),
        // alsa-lib, libsndfile, libsamplerate and avahi-client, linked as usual: for the brain,
        // the benchmarks and the tests.
        .target(
            name: "LinkedLibraries",
            linkerSettings: [.linkedLibrary("asound"), .linkedLibrary("sndfile"), .linkedLibrary("samplerate"),
                             .linkedLibrary("avahi-client"), .linkedLibrary("avahi-common")]),
        // The same libraries for a pad: stubs that load each one when it is first used, so a pad
        // that neither plays locally nor discovers maps none of them (docs/deployment.md#build).
        .target(name: "CLazyLibraries"),
        // Linux's epoll and eventfd (part of libc) for the brain's network thread.
        .systemLibrary(name: "CEpoll"),
        // The JACK client library (jackd2's, or PipeWire's) for the brain's --output jack.
        .systemLibrary(
            name: "CJack", pkgConfig: "jack",
            providers: [.apt(["libjack-jackd2-dev"])]),

        // Pure Swift signal code: detectors, sensor logs, scoring, sweeps. No Foundation, no C.
        .target(name: "HitDetect"),
        // Wire codec, connection state machines, brain server and pad link (epoll loops of their
        // own), Avahi discovery.
        .target(
            name: "DrumNet",
            dependencies: [
                "Monotonic", "CAvahiClient", "CEpoll", "Console",
            ]),
        // The wait-free single-producer, single-consumer ring every thread hand-off uses.
        .target(name: "SPSCRing"),
        // Substring search without Swift's string-processing module (and its regex engine), for
        // the pad's modules: a board's binary stays small (docs/deployment.md#build).
        .target(name: "TextSearch"),
        // The monotonic clock in µs that pads, the network and the audio thread share.
        .target(name: "Monotonic"),
        // Both executables' standard output and error: one write per line, made safe for a terminal.
        .target(name: "Console"),
        // The pad's command line: the part of swift-argument-parser's API drumpad uses, without
        // the Foundation and regex modules the package brings (docs/deployment.md#build).
        .target(name: "PadCommandLine", dependencies: ["Console"]),
        // Accelerometer sources of a pad: evdev nodes through libevdev, IIO devices, evemu
        // recordings; device discovery.
        .target(name: "PadSensors", dependencies: ["Monotonic", "CEvdev", "TextSearch", "Console", "HitDetect"]),
        // The audio engine: kits, the real-time mixer, outputs, offline rendering. Shared by the
        // brain and a pad's --local playback.
        .target(name: "DrumAudio", dependencies: ["SPSCRing", "Monotonic", "CSndFile", "CSampleRate", "CALSA", "TextSearch", "Console"]),
        // Hydrogen kits (drumkit.xml) through Foundation's XML parser: the brain's, never the
        // pad's (a board's drumpad carries no Foundation; docs/deployment.md).
        .target(name: "HydrogenKit", dependencies: ["DrumAudio", "Console"]),
        // The brain's terminal visual: the pure model (layout, bursts, status) and its renderer.
        .target(name: "DrumVisual", dependencies: ["SPSCRing"]),
        // The brain's JACK client: its process callback renders the mixer and writes MIDI at
        // each hit's frame. A target of its own, so that a pad's binary never links libjack.
        .target(name: "JACKAudio", dependencies: ["DrumAudio", "CJack", "Monotonic", "SPSCRing"]),
        // The brain's decisions and its printer, shared by `drumbrain` and the serve-path fuzzer:
        // the hit router (drum, crosstalk, timing), the hand-off to the printer thread, the lines.
        .target(name: "BrainCore", dependencies: ["DrumNet", "DrumAudio", "HitDetect", "Monotonic", "SPSCRing"]),
        .executableTarget(
            name: "DrumBrain",
            dependencies: [
                "BrainCore", "Console", "DrumNet", "DrumAudio", "DrumVisual", "HitDetect", "Monotonic", "SPSCRing", "CALSA", "CSndFile",
                "JACKAudio", "HydrogenKit", "LinkedLibraries", "PadSensors",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "DrumPad",
            dependencies: [
                "Console", "HitDetect", "DrumNet", "PadSensors", "DrumAudio", "Monotonic", "CEvdev",
                "PadCommandLine", "CLazyLibraries",
            ]),

        // Release-mode throughput benchmark: swift run -c release hitdetect-bench
        .executableTarget(name: "hitdetect-bench", dependencies: ["HitDetect"],
                          path: "Benchmarks/HitDetectBench"),

        // Loopback benchmark of pads and brain: swift run -c release drumnet-bench
        .executableTarget(
            name: "drumnet-bench",
            dependencies: ["DrumNet", "Monotonic", "DrumVisual", "PadSensors", "CEpollFloor", "LinkedLibraries", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio")],
            path: "Benchmarks/DrumNetBench"),
        // drumnet-bench's peer in the same run: a bare C epoll server that decodes nothing.
        .target(name: "CEpollFloor", path: "Benchmarks/EpollFloor"),

        // The mixer's render path as real-time factors: swift run -c release audio-bench
        .executableTarget(name: "audio-bench", dependencies: ["DrumAudio", "LinkedLibraries"], path: "Benchmarks/AudioBench"),

        // The terminal visual's CPU use at 60 fps: swift run -c release visual-bench
        .executableTarget(name: "visual-bench", dependencies: ["DrumVisual"], path: "Benchmarks/VisualBench"),

        // Counts allocations per thread in test executables (see its header for why).
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .testTarget(name: "HitDetectTests", dependencies: ["HitDetect", "AllocationCounter", "TestSupport"]),
        // Runs executables and system tools from tests.
        .target(name: "TestSupport", dependencies: ["Monotonic", "HitDetect"], path: "Tests/TestSupport"),
        // swift-crypto only to check the pairing key's own HMAC-SHA256 against.
        .testTarget(name: "DrumNetTests", dependencies: ["DrumNet", "LinkedLibraries", "Monotonic", "TestSupport", "AllocationCounter",
                                                         .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "DrumBrainTests",
                    dependencies: ["DrumBrain", "BrainCore", "DrumAudio", "DrumVisual", "DrumNet", "Monotonic", "SPSCRing", "CALSA", "CSndFile", "TestSupport", "JACKAudio", "AllocationCounter", "HydrogenKit"]),
        .testTarget(name: "DrumAudioTests", dependencies: ["DrumAudio", "LinkedLibraries", "HydrogenKit", "Monotonic", "DrumVisual", "AllocationCounter", "TestSupport"]),
        .testTarget(name: "PadSensorsTests", dependencies: ["PadSensors", "TestSupport"]),
        .testTarget(name: "DrumPadTests", dependencies: ["DrumPad", "PadCommandLine", "HitDetect", "DrumAudio", "Monotonic", "CEvdev", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

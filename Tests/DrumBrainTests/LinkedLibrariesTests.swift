import Testing
@testable import DrumBrain

/// alsa-lib and libsndfile link and answer (a broken toolchain set-up shows here first).
struct LinkedLibrariesTests {
    @Test func reportsAlsaAndSndfileVersions() {
        #expect(LinkedLibraries.alsa.hasPrefix("alsa-lib 1."))
        #expect(LinkedLibraries.sndfile.hasPrefix("libsndfile-1."))
    }
}

// This target holds no code: it links alsa-lib, libsndfile, libsamplerate and avahi-client
// (Package.swift's linker settings) into the executables that depend on it. A pad does not: it
// loads them when first used (Sources/CLazyLibraries/lazy.c).

// The pad's C libraries for sound and discovery, loaded when first used.
//
// A board's `drumpad` that plays into a brain at an address calls no function of alsa-lib,
// libsndfile, libsamplerate or avahi-client: they serve `--local` playback and discovery. Linked
// as usual, the loader maps all of them and what they pull in (libsndfile's FLAC, Vorbis, Opus
// and MP3 codecs; avahi-client's D-Bus, systemd and gcrypt) at every start: about 2 MB of a
// pad's 10 MB of resident memory (docs/deployment.md#build). So the pad links these stubs
// instead: each defines one library function under its own name and calls the library's,
// which the first call of any of the library's functions loads (dlopen) and resolves whole.
// systemd loads its optional libraries the same way.
//
// Real time: every function of a library is resolved when the first one is called, which for
// alsa-lib is snd_pcm_open on the thread that opens the output; the audio thread's calls then
// cost one atomic load and an indirect call, and never lock. The brain links the libraries as
// usual (the `LinkedLibraries` target).
//
// A library that cannot be loaded is said on standard error with the Debian package that has
// it, and the pad exits: a call cannot be answered without it.
#define _GNU_SOURCE
#include "CLazyLibraries.h"

#include <alsa/asoundlib.h>
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <dlfcn.h>
#include <pthread.h>
#include <samplerate.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>

#include "stubs.inc"

/// One function to resolve: its name and where its address goes.
struct lazy_symbol {
    const char *name;
    void **slot;
};

/// A library: its sonames (searched in order for each function), the Debian package that has
/// them, what the pad needs it for, and its functions.
struct lazy_library {
    const char *sonames[2];
    const char *package;
    const char *purpose;
    const struct lazy_symbol *symbols;
    size_t count;
    int ready;  // atomic: set once every function is resolved
};

/// Guards the loading of libraries (not the calls once loaded).
static pthread_mutex_t lazy_lock = PTHREAD_MUTEX_INITIALIZER;

static void lazy_fail(const struct lazy_library *library, const char *what) {
    fprintf(stderr, "drumpad: cannot load %s, which %s needs (%s); install Debian's %s\n",
            library->sonames[0], library->purpose, what, library->package);
    exit(1);
}

/// Loads `library` and resolves all its functions, once.
static void lazy_load(struct lazy_library *library) {
    if (__atomic_load_n(&library->ready, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&lazy_lock);
    if (!library->ready) {
        void *handles[2] = {NULL, NULL};
        for (int i = 0; i < 2 && library->sonames[i]; i++) {
            handles[i] = dlopen(library->sonames[i], RTLD_NOW | RTLD_LOCAL);
            if (!handles[i]) lazy_fail(library, dlerror());
        }
        for (size_t i = 0; i < library->count; i++) {
            void *address = NULL;
            for (int h = 0; h < 2 && handles[h] && !address; h++) address = dlsym(handles[h], library->symbols[i].name);
            if (!address) lazy_fail(library, library->symbols[i].name);
            *library->symbols[i].slot = address;
        }
        __atomic_store_n(&library->ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lazy_lock);
}

// Per library: a table of pointers, its symbol list, its descriptor, and the stubs.
#define LAZY_POINTER(result, name, parameters, arguments) result(*name) parameters;
#define LAZY_VOID_POINTER(name, parameters, arguments) void(*name) parameters;
#define LAZY_ENTRY(result, name, parameters, arguments) {#name, (void **)&LAZY_TABLE.name},
#define LAZY_VOID_ENTRY(name, parameters, arguments) {#name, (void **)&LAZY_TABLE.name},
#define LAZY_STUB(result, name, parameters, arguments)                                             \
    result name parameters {                                                                       \
        lazy_load(&LAZY_LIBRARY);                                                                  \
        return LAZY_TABLE.name arguments;                                                          \
    }
#define LAZY_VOID_STUB(name, parameters, arguments)                                                \
    void name parameters {                                                                         \
        lazy_load(&LAZY_LIBRARY);                                                                  \
        LAZY_TABLE.name arguments;                                                                 \
    }
#define LAZY_DEFINE(LIST, table, library, symbols, soname1, soname2, package, purpose)             \
    static struct { LIST(LAZY_POINTER, LAZY_VOID_POINTER) } table;                                \
    static const struct lazy_symbol symbols[] = {LIST(LAZY_ENTRY, LAZY_VOID_ENTRY)};               \
    static struct lazy_library library = {                                                        \
        {soname1, soname2}, package, purpose, symbols, sizeof(symbols) / sizeof(symbols[0]), 0};

#define LAZY_TABLE lazy_alsa_table
#define LAZY_LIBRARY alsa_library
LAZY_DEFINE(LAZY_ALSA, lazy_alsa_table, alsa_library, alsa_symbols, "libasound.so.2", NULL, "libasound2",
            "--local playback through ALSA")
LAZY_ALSA(LAZY_STUB, LAZY_VOID_STUB)
#undef LAZY_TABLE
#undef LAZY_LIBRARY

#define LAZY_TABLE lazy_sndfile_table
#define LAZY_LIBRARY sndfile_library
LAZY_DEFINE(LAZY_SNDFILE, lazy_sndfile_table, sndfile_library, sndfile_symbols, "libsndfile.so.1", NULL, "libsndfile1",
            "--local playback (the kit's samples)")
LAZY_SNDFILE(LAZY_STUB, LAZY_VOID_STUB)
#undef LAZY_TABLE
#undef LAZY_LIBRARY

#define LAZY_TABLE lazy_samplerate_table
#define LAZY_LIBRARY samplerate_library
LAZY_DEFINE(LAZY_SAMPLERATE, lazy_samplerate_table, samplerate_library, samplerate_symbols, "libsamplerate.so.0", NULL,
            "libsamplerate0", "--local playback (the kit's samples at the output's rate)")
LAZY_SAMPLERATE(LAZY_STUB, LAZY_VOID_STUB)
#undef LAZY_TABLE
#undef LAZY_LIBRARY

#define LAZY_TABLE lazy_avahi_table
#define LAZY_LIBRARY avahi_library
LAZY_DEFINE(LAZY_AVAHI, lazy_avahi_table, avahi_library, avahi_symbols, "libavahi-common.so.3", "libavahi-client.so.3",
            "libavahi-client3", "finding the brain (without --brain)")
LAZY_AVAHI(LAZY_STUB, LAZY_VOID_STUB)
#undef LAZY_TABLE
#undef LAZY_LIBRARY

int CLazyLibraries_loaded(void) {
    return __atomic_load_n(&alsa_library.ready, __ATOMIC_ACQUIRE)
        | __atomic_load_n(&sndfile_library.ready, __ATOMIC_ACQUIRE) << 1
        | __atomic_load_n(&samplerate_library.ready, __ATOMIC_ACQUIRE) << 2
        | __atomic_load_n(&avahi_library.ready, __ATOMIC_ACQUIRE) << 3;
}

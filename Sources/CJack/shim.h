// Why this shim exists: Swift imports the JACK client library through this one header, and
// JACK's port type names are C string macros that Swift does not import.
#pragma once
#include <jack/jack.h>
#include <jack/midiport.h>

static inline const char *CJack_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }
static inline const char *CJack_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }

// jack_client_open is variadic, which Swift cannot call: never starts a server (a brain should
// not start jackd behind the user's back); the server named by $JACK_DEFAULT_SERVER, if set.
static inline jack_client_t *CJack_open(const char *name, jack_status_t *status) {
    return jack_client_open(name, JackNoStartServer, status);
}

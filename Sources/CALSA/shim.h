// Why this shim exists: Swift imports alsa-lib through this one header, and cannot define the
// variadic error handler alsa-lib takes, so the one that silences alsa-lib's own printing to
// stderr (our errors carry snd_strerror's text instead) is defined here.
#pragma once
#include <alsa/asoundlib.h>
// eventfd, which Swift's Glibc module leaves out: it wakes the audio thread's wait for room.
#include <sys/eventfd.h>

static void CALSA_quiet_error_handler(const char *file, int line, const char *function, int err,
                                      const char *format, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)format;
}

/// Stops alsa-lib from printing its own error messages to standard error.
static inline void CALSA_silence_errors(void) {
    snd_lib_error_set_handler(CALSA_quiet_error_handler);
}

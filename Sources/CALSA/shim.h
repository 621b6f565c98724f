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

// The ALSA sequencer's event helpers are macros, which Swift does not import: a note is made
// and queued for output here. `at_ns` < 0 sends it at once; otherwise it is scheduled at that
// real time on `queue`. Returns snd_seq_event_output's result.
static inline int CALSA_seq_note(snd_seq_t *seq, int port, int queue, unsigned char channel, unsigned char note,
                                 unsigned char velocity, int on, long long at_ns) {
    snd_seq_event_t ev;
    snd_seq_ev_clear(&ev);
    snd_seq_ev_set_source(&ev, port);
    snd_seq_ev_set_subs(&ev);
    if (on) {
        snd_seq_ev_set_noteon(&ev, channel, note, velocity);
    } else {
        snd_seq_ev_set_noteoff(&ev, channel, note, 64);
    }
    if (at_ns < 0) {
        snd_seq_ev_set_direct(&ev);
    } else {
        snd_seq_real_time_t t = { (unsigned int)(at_ns / 1000000000LL), (unsigned int)(at_ns % 1000000000LL) };
        snd_seq_ev_schedule_real(&ev, queue, 0, &t);
    }
    return snd_seq_event_output(seq, &ev);
}

// Reads one event from the sequencer: 1 for a note-on (velocity > 0; channel, note and velocity
// filled in), 0 for anything else, a negative errno (-EAGAIN: none waiting) on failure.
static inline int CALSA_seq_read_note(snd_seq_t *seq, unsigned char *channel, unsigned char *note,
                                      unsigned char *velocity) {
    snd_seq_event_t *ev = NULL;
    int result = snd_seq_event_input(seq, &ev);
    if (result < 0) return result;
    if (ev == NULL || ev->type != SND_SEQ_EVENT_NOTEON || ev->data.note.velocity == 0) return 0;
    *channel = ev->data.note.channel;
    *note = ev->data.note.note;
    *velocity = ev->data.note.velocity;
    return 1;
}

// Starts a sequencer queue (snd_seq_start_queue is a macro).
static inline int CALSA_seq_start_queue(snd_seq_t *seq, int queue) {
    return snd_seq_control_queue(seq, queue, SND_SEQ_EVENT_START, 0, NULL);
}

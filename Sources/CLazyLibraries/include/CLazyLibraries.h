#pragma once

/// Which of the pad's lazily loaded libraries are loaded so far (lazy.c): bit 0 alsa-lib, 1
/// libsndfile, 2 libsamplerate, 3 avahi-client. For tests and `drumpad --version`.
int CLazyLibraries_loaded(void);

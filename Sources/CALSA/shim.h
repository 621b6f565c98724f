// Why this shim exists: Swift imports alsa-lib through this one header; shims for macros that
// Swift cannot call (snd_pcm_hw_params_alloca and friends) are added here as `CALSA_` inlines.
#pragma once
#include <alsa/asoundlib.h>

// Why this shim exists: Swift imports libsamplerate through this one header.
#pragma once
#include <samplerate.h>

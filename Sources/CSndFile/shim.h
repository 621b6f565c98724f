// Why this shim exists: Swift imports libsndfile through this one header.
#pragma once
#include <sndfile.h>

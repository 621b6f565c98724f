// Why this module exists: tests must show that hot paths (detectors, later the audio render)
// never allocate. Swift has no allocation hook, so this C target defines malloc and friends in
// the test executable itself, where they take precedence over glibc's for every library in the
// process, counts calls made on the current thread while counting is on, and forwards to glibc's
// own allocator (__libc_malloc and friends), so every pointer stays a normal glibc pointer.
#pragma once
#include <stdint.h>

/// Starts counting allocations made by the calling thread, from zero.
void allocation_counter_start(void);

/// Stops counting on the calling thread and returns the allocations counted since the start.
int64_t allocation_counter_stop(void);

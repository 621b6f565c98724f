// Why this shim exists: Swift imports libevdev (and the kernel's input constants it re-exports)
// through this one header; pkg-config supplies the libevdev-1.0 include folder.
#pragma once
#include <libevdev/libevdev.h>
#include <stdint.h>

// The event time in µs. The fields differ by ABI (a timeval on 64-bit, __sec/__usec on 32-bit
// with 64-bit time), and only the kernel's input_event_sec/usec macros name them everywhere.
static inline int64_t CEvdev_event_micros(const struct input_event *event) {
    return (int64_t)event->input_event_sec * 1000000 + (int64_t)event->input_event_usec;
}

// Why this shim exists: Swift imports libevdev (and the kernel's input constants it re-exports)
// through this one header; pkg-config supplies the libevdev-1.0 include folder.
#pragma once
#include <libevdev/libevdev.h>

#include "AllocationCounter.h"
#include <errno.h>
#include <stddef.h>

// glibc's allocator under its internal names: exported by libc.so for exactly this purpose.
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

// Per thread, so tests running in parallel on other threads do not disturb a measurement.
// initial-exec: TLS in the executable itself, which needs no allocation to reach.
static __thread int counting __attribute__((tls_model("initial-exec")));
static __thread int64_t counted __attribute__((tls_model("initial-exec")));

static inline void note(void) {
    if (counting) counted++;
}

void allocation_counter_start(void) {
    counted = 0;
    counting = 1;
}

int64_t allocation_counter_stop(void) {
    counting = 0;
    return counted;
}

void *malloc(size_t size) {
    note();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    note();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    note();
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    __libc_free(pointer);
}

void *aligned_alloc(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    note();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    note();
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

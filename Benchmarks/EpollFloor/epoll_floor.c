// See include/epoll_floor.h. Level-triggered, one read of up to 64 KiB per event: per hit one
// epoll wakeup and one read, as the brain's loop; pings answered with a 36-byte pong that echoes
// the ping's time, as the brain does; each hit's latency taken from its pad time, as the bench's
// brain handler does.
#define _GNU_SOURCE
#include "epoll_floor.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct epoll_floor {
    int listen_fd, epoll_fd;
    pthread_t thread;
    atomic_int stop;
    atomic_long connections, messages;
    // CPU readings: the caller raises `asked`, the thread answers and sets `answered` to it.
    atomic_long asked, answered;
    int64_t total, user, system;
    // Accepted descriptors, so that stopping closes them: -1 once closed. The thread's alone.
    int *accepted;
    long accepted_count, accepted_capacity;
    // Each hit's latency, µs, in the order read. The thread writes entry n, then publishes n + 1
    // in `latency_count` (release), so a reader that loads the count (acquire) may read below it.
    int64_t *latencies;
    atomic_long latency_count;
};

enum { latency_capacity = 1 << 20 };  // 256 pads at 20 hits/s for 200 s

static int64_t micros(struct timeval t) { return (int64_t)t.tv_sec * 1000000 + t.tv_usec; }

static void answer_cpu(struct epoll_floor *f) {
    long asked = atomic_load(&f->asked);
    if (asked == atomic_load(&f->answered)) return;
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    f->total = (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
    f->user = micros(usage.ru_utime);
    f->system = micros(usage.ru_stime);
    atomic_store(&f->answered, asked);
}

// Writes the pong for the ping `packet` (after its length prefix, `length` bytes): /drum/pong
// with the ping's time and the server's clock, 8-byte big-endian integers.
static void pong(int fd, const unsigned char *packet, uint32_t length) {
    // "/drum/ping\0\0" then ",h\0\0" or ",hhh\0\0\0\0": the time follows the type tags.
    uint32_t time_at = packet[14] == 'h' && packet[15] == 'h' ? 20 : 16;
    if (length < time_at + 8) return;
    unsigned char out[36] = {0, 0, 0, 32, '/', 'd', 'r', 'u', 'm', '/', 'p', 'o', 'n', 'g', 0, 0, ',', 'h', 'h', 0};
    memcpy(out + 20, packet + time_at, 8);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t brain = (uint64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000;
    for (int i = 0; i < 8; i++) out[28 + i] = (unsigned char)(brain >> (56 - 8 * i));
    (void)!send(fd, out, sizeof out, MSG_NOSIGNAL);
}

// The hit's pad time (its first `h` argument, µs), or -1 if it has none. `packet` is the OSC
// message after its length prefix, `length` bytes; every field starts 4-byte aligned.
static int64_t pad_time(const unsigned char *packet, uint32_t length) {
    uint32_t at = 0;
    while (at < length && packet[at]) at++;  // the address
    at = (at + 4) & ~3u;                      // past its NUL and padding
    if (at >= length || packet[at] != ',') return -1;
    uint32_t tags = at + 1, end = tags;
    while (end < length && packet[end]) end++;
    uint32_t argument = (end + 4) & ~3u;
    for (uint32_t tag = tags; tag < end; tag++) {
        switch (packet[tag]) {
        case 'h': {
            if (argument + 8 > length) return -1;
            uint64_t value = 0;
            for (int i = 0; i < 8; i++) value = value << 8 | packet[argument + i];
            return (int64_t)value;
        }
        case 's': {
            uint32_t nul = argument;
            while (nul < length && packet[nul]) nul++;
            argument = (nul + 4) & ~3u;
            break;
        }
        case 'i': case 'f': argument += 4; break;
        case 'd': case 't': argument += 8; break;
        default: return -1;
        }
    }
    return -1;
}

static void record_latency(struct epoll_floor *f, const unsigned char *packet, uint32_t length) {
    int64_t sent = pad_time(packet, length);
    long n = atomic_load_explicit(&f->latency_count, memory_order_relaxed);
    if (sent < 0 || n == latency_capacity) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    f->latencies[n] = (int64_t)now.tv_sec * 1000000 + now.tv_nsec / 1000 - sent;
    atomic_store_explicit(&f->latency_count, n + 1, memory_order_release);
}

static void *serve(void *argument) {
    struct epoll_floor *f = argument;
    unsigned char buffer[65536];
    struct epoll_event events[64];
    while (!atomic_load(&f->stop)) {
        answer_cpu(f);
        int n = epoll_wait(f->epoll_fd, events, 64, 20);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == f->listen_fd) {
                int c = accept4(f->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (c < 0) continue;
                if (f->accepted_count == f->accepted_capacity) {
                    long capacity = f->accepted_capacity ? 2 * f->accepted_capacity : 64;
                    int *grown = realloc(f->accepted, sizeof(int) * capacity);
                    if (!grown) { close(c); continue; }
                    f->accepted = grown;
                    f->accepted_capacity = capacity;
                }
                f->accepted[f->accepted_count++] = c;
                int one = 1;
                setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
                epoll_ctl(f->epoll_fd, EPOLL_CTL_ADD, c, &e);
                atomic_fetch_add(&f->connections, 1);
                continue;
            }
            ssize_t r = read(fd, buffer, sizeof buffer);
            if (r <= 0) {
                if (r < 0 && errno == EAGAIN) continue;
                epoll_ctl(f->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
                for (long k = 0; k < f->accepted_count; k++) if (f->accepted[k] == fd) f->accepted[k] = -1;
                close(fd);
                continue;
            }
            // Whole packets only: the pads here write each packet whole, and a read of 64 KiB
            // holds many. A packet cut by the buffer's end is skipped (not in this load).
            for (ssize_t at = 0; at + 4 <= r;) {
                uint32_t length = (uint32_t)buffer[at] << 24 | buffer[at + 1] << 16 | buffer[at + 2] << 8 | buffer[at + 3];
                if (at + 4 + (ssize_t)length > r || length < 16) break;
                const unsigned char *packet = buffer + at + 4;
                if (memcmp(packet, "/drum/ping", 10) == 0) {
                    pong(fd, packet, length);
                } else {
                    if (memcmp(packet, "/drum/hit", 10) == 0) record_latency(f, packet, length);
                    atomic_fetch_add_explicit(&f->messages, 1, memory_order_relaxed);
                }
                at += 4 + length;
            }
        }
    }
    return NULL;
}

epoll_floor *epoll_floor_start(int listen_fd) {
    struct epoll_floor *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->latencies = malloc(sizeof(int64_t) * latency_capacity);
    if (!f->latencies) { free(f); return NULL; }
    f->listen_fd = listen_fd;
    f->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (f->epoll_fd < 0) { free(f->latencies); free(f); return NULL; }
    struct epoll_event e = {.events = EPOLLIN, .data.fd = listen_fd};
    epoll_ctl(f->epoll_fd, EPOLL_CTL_ADD, listen_fd, &e);
    int failed = pthread_create(&f->thread, NULL, serve, f);
    if (failed) {
        close(f->epoll_fd);
        free(f->latencies);
        free(f);
        errno = failed;
        return NULL;
    }
    pthread_setname_np(f->thread, "epoll-floor");
    return f;
}

long epoll_floor_connections(epoll_floor *f) { return atomic_load(&f->connections); }
long epoll_floor_messages(epoll_floor *f) { return atomic_load(&f->messages); }

long epoll_floor_latency_count(epoll_floor *f) { return atomic_load_explicit(&f->latency_count, memory_order_acquire); }

long epoll_floor_latencies(epoll_floor *f, long from, int64_t *out, long capacity) {
    long to = atomic_load_explicit(&f->latency_count, memory_order_acquire);
    long n = to - from < capacity ? to - from : capacity;
    if (n <= 0) return 0;
    memcpy(out, f->latencies + from, sizeof(int64_t) * n);
    return n;
}

void epoll_floor_cpu(epoll_floor *f, int64_t *total, int64_t *user, int64_t *system) {
    long ask = atomic_fetch_add(&f->asked, 1) + 1;
    while (atomic_load(&f->answered) < ask) usleep(1000);
    *total = f->total;
    *user = f->user;
    *system = f->system;
}

void epoll_floor_stop(epoll_floor *f) {
    atomic_store(&f->stop, 1);
    pthread_join(f->thread, NULL);
    for (long k = 0; k < f->accepted_count; k++) if (f->accepted[k] >= 0) close(f->accepted[k]);
    free(f->accepted);
    free(f->latencies);
    close(f->epoll_fd);
    close(f->listen_fd);
    free(f);
}

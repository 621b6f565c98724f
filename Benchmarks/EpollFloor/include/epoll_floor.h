// The floor under drumnet-bench's "brain CPU" and latency: a bare C epoll server thread that does
// only what the kernel makes any brain do per message (wake, read, answer pings with a pong), and
// of each hit reads only its pad time, to measure its latency as the bench's brain handler does.
// drumnet-bench runs it against the same pads as the brain, in the same run, so the difference
// between the two is what the brain's own code costs (docs/performance.md).
#ifndef EPOLL_FLOOR_H
#define EPOLL_FLOOR_H

#include <stdint.h>

typedef struct epoll_floor epoll_floor;

/// Starts the server thread on `listen_fd` (bound, listening, non-blocking; the floor closes it
/// when stopped). Returns NULL, with errno set, if epoll or the thread cannot be had.
epoll_floor *epoll_floor_start(int listen_fd);

/// Connections accepted so far, and messages read that were not pings (hits, hellos).
long epoll_floor_connections(epoll_floor *floor);
long epoll_floor_messages(epoll_floor *floor);

/// Hits whose latency (the clock when read, less the pad time in the hit, µs) was measured so far
/// (up to 2^20), and a copy of those from index `from` on into `out` (at most `capacity`);
/// returns how many were copied.
long epoll_floor_latency_count(epoll_floor *floor);
long epoll_floor_latencies(epoll_floor *floor, long from, int64_t *out, long capacity);

/// The server thread's CPU time so far, in µs: total (CLOCK_THREAD_CPUTIME_ID), user and system
/// (getrusage RUSAGE_THREAD), read by the thread itself at its next wake (within 20 ms).
void epoll_floor_cpu(epoll_floor *floor, int64_t *total, int64_t *user, int64_t *system);

/// Stops the thread, closes every connection and frees the floor.
void epoll_floor_stop(epoll_floor *floor);

#endif

#ifndef CEPOLL_SHIM_H
#define CEPOLL_SHIM_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <pthread.h>
#include <sys/socket.h>

/// The fd stored in an event's data. epoll_event is packed on x86_64, so Swift cannot take the
/// union member's address; this reads it by value.
static inline int CEpoll_eventFD(const struct epoll_event *event) { return event->data.fd; }

/// An event for `fd` with `events` (EPOLLIN, …), for epoll_ctl.
static inline struct epoll_event CEpoll_event(int fd, unsigned int events) {
    struct epoll_event event = {.events = events};
    event.data.fd = fd;
    return event;
}

/// accept4(2) with SOCK_NONBLOCK and SOCK_CLOEXEC: Glibc's Swift module hides the GNU call.
static inline int CEpoll_accept(int fd) { return accept4(fd, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC); }

/// Names the calling thread (seen by top and perf): pthread_setname_np is a GNU call too.
static inline int CEpoll_nameThread(const char *name) { return pthread_setname_np(pthread_self(), name); }

#endif

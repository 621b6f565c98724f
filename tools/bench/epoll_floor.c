// The floor under drumnet-bench's "brain CPU": a bare C epoll loop doing only what the kernel
// makes any brain do per hit (wake, read, answer pings), against the same load: N pads at 20
// hits/s each from a random phase, one 48-byte write per hit, TCP_NODELAY, a 36-byte ping per pad
// per second answered by a pong. Prints the server thread's CPU time as a share of one core.
// Nothing is decoded: the difference to drumnet-bench's figure is what the brain's own code costs.
//
//   gcc -O2 -o /tmp/epoll-floor tools/bench/epoll_floor.c -lpthread && /tmp/epoll-floor [PADS] [SECONDS]
//
// Loopback only (127.0.0.1); it stops by itself after SECONDS (default 8).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdatomic.h>

static int npads = 256; static double rate = 20, seconds = 8;
static atomic_int stop_flag; static atomic_long received;
static int64_t now_ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000LL + t.tv_nsec; }
static int64_t cpu_before, cpu_after;
static atomic_int measuring;

static void *server(void *arg) {
    int ls = *(int *)arg;
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    unsigned char buf[65536];
    struct epoll_event evs[64];
    int phase = 0;
    while (!atomic_load(&stop_flag)) {
        int m = atomic_load(&measuring);
        if (m == 1 && phase == 0) { cpu_before = now_ns(CLOCK_THREAD_CPUTIME_ID); phase = 1; }
        if (m == 2 && phase == 1) { cpu_after = now_ns(CLOCK_THREAD_CPUTIME_ID); phase = 2; }
        int n = epoll_wait(ep, evs, 64, 20);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c = accept4(ls, NULL, NULL, SOCK_NONBLOCK);
                int one = 1; setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                struct epoll_event e = {.events = EPOLLIN, .data.fd = c};
                epoll_ctl(ep, EPOLL_CTL_ADD, c, &e);
                continue;
            }
            ssize_t r = read(fd, buf, sizeof buf);
            if (r <= 0) { close(fd); continue; }
            for (ssize_t off = 0; off + 4 <= r;) {
                uint32_t len = ntohl(*(uint32_t *)(buf + off));
                if (buf[off + 4 + 6] == 'p') { unsigned char pong[36] = {0,0,0,32}; write(fd, pong, 36); }
                else atomic_fetch_add(&received, 1);
                off += 4 + len;
            }
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) npads = atoi(argv[1]);
    if (argc > 2) seconds = atof(argv[2]);
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    bind(ls, (void *)&a, sizeof a); listen(ls, 512);
    socklen_t al = sizeof a; getsockname(ls, (void *)&a, &al);
    pthread_t th; pthread_create(&th, NULL, server, &ls);
    int *fds = malloc(sizeof(int) * npads); int64_t *next = malloc(8 * npads), *nextping = malloc(8 * npads);
    int64_t period = (int64_t)(1e9 / rate), t0 = now_ns(CLOCK_MONOTONIC) + 300000000LL;
    srand(4);
    for (int i = 0; i < npads; i++) {
        fds[i] = socket(AF_INET, SOCK_STREAM, 0);
        connect(fds[i], (void *)&a, sizeof a);
        int one = 1; setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        fcntl(fds[i], F_SETFL, O_NONBLOCK);
        next[i] = t0 + (int64_t)((double)rand() / RAND_MAX * period);
        nextping[i] = t0 + (int64_t)((double)rand() / RAND_MAX * 1e9);
    }
    unsigned char hit[48] = {0,0,0,44,'/','d','r','u','m','/','h','i','t',0,0,0,',','s','f','h','i',0,0,0,'s','n','a','r','e',0,0,0};
    unsigned char ping[36] = {0,0,0,32,'/','d','r','u','m','/','p','i','n','g',0,0,',','h','h','h',0,0,0,0};
    unsigned char sink[4096];
    int64_t end = t0 + (int64_t)(seconds * 1e9);
    long sent = 0;
    atomic_store(&measuring, 1);
    int64_t wall0 = now_ns(CLOCK_MONOTONIC);
    while (1) {
        int64_t now = now_ns(CLOCK_MONOTONIC);
        if (now >= end) break;
        int64_t soonest = end;
        for (int i = 0; i < npads; i++) {
            if (next[i] <= now) { write(fds[i], hit, 48); sent++; next[i] += period; }
            if (nextping[i] <= now) { write(fds[i], ping, 36); nextping[i] += 1000000000LL; while (read(fds[i], sink, sizeof sink) > 0) {} }
            if (next[i] < soonest) soonest = next[i];
            if (nextping[i] < soonest) soonest = nextping[i];
        }
        struct timespec ts = {soonest / 1000000000LL, soonest % 1000000000LL};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    usleep(200000);
    atomic_store(&measuring, 2);
    usleep(50000);
    int64_t wall = now_ns(CLOCK_MONOTONIC) - wall0;
    atomic_store(&stop_flag, 1); pthread_join(th, NULL);
    printf("pads %d sent %ld received %ld server CPU %.1f %% of one core\n", npads, sent, atomic_load(&received),
           100.0 * (cpu_after - cpu_before) / wall);
    return 0;
}

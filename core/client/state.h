/* state.h - the process-wide profiler state shared by the API, the worker and the
 * connections: configuration, registered threads, the serial stream, thread names, the
 * last error and the drop count. The bottom of the client: it calls nothing above it
 * (lifecycle.h starts and stops the profiler). */
#ifndef TRACYC_CLIENT_STATE_H
#define TRACYC_CLIENT_STATE_H

#include "client/stream.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define TC_MAX_CONNS 2 /* the in-process capture and one TCP server */

enum tc_state {
    TC_STATE_OFF, /* not started yet */
    TC_STATE_RUNNING,
    TC_STATE_STOPPING, /* shutdown in progress: the worker flushes */
    TC_STATE_STOPPED,  /* shut down; calls are ignored */
    TC_STATE_DISABLED, /* TRACYC_DISABLE=1, or a forked child */
};

struct tc_fiber;

/* The zones open in one context: an OS thread outside any fiber, or a fiber (whose zones
 * move with it from thread to thread, as Tracy nests them). The running context's stack
 * lives in the thread's state, where the hot path reads it; entering or leaving a fiber
 * saves it and loads the next one. */
struct tc_zone_stack {
    uint32_t key;   /* high bits of the zone ids issued in this context */
    uint32_t depth; /* zones begun here and not yet ended */
};

/* Per-thread recording state. The owning thread writes `stream` and the zone fields;
 * the worker reads the stream and owns the per-connection fields. */
struct tc_thread {
    struct tc_stream stream;
    /* owning thread */
    _Alignas(64) uint32_t tid;
    struct tc_zone_stack zones; /* the running context's: the thread's, or the fiber's */
    struct tc_fiber *running;   /* the fiber entered, NULL for none */
    struct tc_zone_stack own;   /* the thread's own, saved while a fiber runs */
    _Atomic int exited;
    /* It has written records that own heap data (an allocated source location, a frame
     * image), which the worker releases: written once, before that record's publication. */
    _Atomic uint8_t owns_heap;
    struct tc_thread *next;
    /* worker side */
    _Alignas(64) uint32_t conn_depth[TC_MAX_CONNS]; /* zones open outside fibers, on each connection */
    struct tc_fiber *conn_fiber[TC_MAX_CONNS];      /* fiber entered, as sent on each connection */
    struct tc_fiber *fiber;                         /* fiber entered, as drained so far */
    int stalled;                                    /* its drain waits at a fiber enter for another thread (fiber.h) */
    int stalled_passes;                             /* worker passes that ended with it waiting, in a row */
    struct tc_stream_mark mark;                     /* drain limit of the current worker pass */
    int64_t last_time;                              /* the latest time of its records encoded */
};

struct tc_config {
    uint16_t port; /* 0: search from 8086 */
    int listen_any;
    int broadcast;
    int no_exit;
    size_t buffer_limit;
    char *output;             /* TRACYC_OUTPUT */
    int no_callstack;         /* TRACY_NO_CALLSTACK: no callstacks at all */
    int no_sampling;          /* TRACY_NO_SAMPLING */
    int no_context_switch;    /* TRACY_NO_CONTEXT_SWITCH */
    int sampling_hz;          /* TRACY_SAMPLING_HZ */
    char *connect_host;       /* TRACYC_CONNECT: dial out to a collector at this host (NULL: listen) */
    uint16_t connect_port;    /* ...and port */
    int follow_fork;          /* TRACYC_FOLLOW_FORK: a forked child starts a profiler of its own */
    int exit_signals;         /* TRACYC_EXIT_SIGNALS (default 1): Ctrl-C and kill write the capture */
    int clock_skewed;         /* TRACYC_TEST_CLOCK_SKEW_NS (tests): the clock extension reports */
    int64_t clock_skew_ns;    /* the clocks this far off, and a host id not this host's */
    char debug_cache[4096];   /* TRACYC_DEBUG_CACHE: directory of inflated debug files ("": none) */
    size_t debug_cache_limit; /* TRACYC_DEBUG_CACHE_LIMIT */
};

struct tc_profiler {
    _Atomic int state;
    struct tc_config config;
    pthread_mutex_t threads_lock;
    struct tc_thread *threads;
    pthread_mutex_t serial_lock;
    struct tc_stream serial;
    int64_t init_begin, init_end;
    int64_t exit_time; /* when the shutdown began: zones still open end then (worker.c) */
    uint64_t epoch;
    uint32_t main_tid;
    _Atomic uint64_t dropped;
    _Atomic uint64_t plot_skipped; /* NaN and infinite plot values, not sent */
    _Atomic int connected;         /* a TCP server is connected */
    _Atomic uint32_t next_lock_id;
    _Atomic int capture_failed; /* the in-process capture failed or could not be written */
};

extern struct tc_profiler tc_prof;
extern _Thread_local struct tc_thread *tc_self __attribute__((tls_model("initial-exec")));

uint32_t tc_current_tid(void);
/* The high bits of the ids of the zones of a new context (thread or fiber). */
uint32_t tc_zone_key_next(void);
void tc_count_drop(void);
/* In a forked child that starts a profiler of its own (TRACYC_FOLLOW_FORK): no threads, no
 * buffered bytes, no counts, fresh locks. */
void tc_state_reset_after_fork(void);
void tc_set_error(const char *fmt, ...);

/* Thread names outlive their threads: the server may ask after a thread exited. Each name
 * set gets the next version number (from 1), so a connection can tell which names it
 * gave have changed since (docs/protocol.md §27). */
void tc_names_set(uint32_t tid, const char *name);
/* Copies the name of tid into buf (NUL-terminated); falls back to "Main thread" for the
 * process's main thread and the decimal id otherwise. Returns the length; *version (may
 * be NULL) receives the name's version, 0 for a fallback. */
size_t tc_names_get(uint32_t tid, char *buf, size_t cap, uint64_t *version);
/* The version of the latest name set, 0 before any. Lock-free. */
uint64_t tc_names_version(void);
/* Calls fn for each name set with a version above `since`, with a copy of the name and
 * outside the names' lock (fn may block). */
void tc_names_each_since(uint64_t since, void (*fn)(void *user, uint32_t tid, const char *name, uint64_t version),
                         void *user);
/* Whether the program named thread tid. */
int tc_names_has(uint32_t tid);

#endif

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

/* Per-thread recording state. The owning thread writes `stream` and the zone fields;
 * the worker reads the stream and owns the per-connection fields. */
struct tc_thread {
    struct tc_stream stream;
    /* owning thread */
    _Alignas(64) uint32_t tid;
    uint32_t zone_key; /* high bits of zone ids issued on this thread */
    uint32_t depth;    /* zones begun here and not yet ended */
    _Atomic int exited;
    struct tc_thread *next;
    /* worker side */
    _Alignas(64) uint32_t conn_depth[TC_MAX_CONNS]; /* zones open on each connection */
    uint64_t conn_fiber[TC_MAX_CONNS];              /* fiber entered, as sent on each connection */
    struct tc_stream_mark mark;                     /* drain limit of the current worker pass */
};

struct tc_config {
    uint16_t port; /* 0: search from 8086 */
    int listen_any;
    int broadcast;
    int no_exit;
    size_t buffer_limit;
    char *output;          /* TRACYC_OUTPUT */
    int no_callstack;      /* TRACY_NO_CALLSTACK: no callstacks at all */
    int no_sampling;       /* TRACY_NO_SAMPLING */
    int no_context_switch; /* TRACY_NO_CONTEXT_SWITCH */
    int sampling_hz;       /* TRACY_SAMPLING_HZ */
};

struct tc_profiler {
    _Atomic int state;
    struct tc_config config;
    pthread_mutex_t threads_lock;
    struct tc_thread *threads;
    pthread_mutex_t serial_lock;
    struct tc_stream serial;
    int64_t init_begin, init_end;
    uint64_t epoch;
    uint32_t main_tid;
    _Atomic uint64_t dropped;
    _Atomic int connected; /* a TCP server is connected */
    _Atomic uint32_t next_lock_id;
    _Atomic uint32_t worker_tid; /* tracyc's own thread: not sampled */
};

extern struct tc_profiler tc_prof;
extern _Thread_local struct tc_thread *tc_self __attribute__((tls_model("initial-exec")));

uint32_t tc_current_tid(void);
void tc_count_drop(void);
void tc_set_error(const char *fmt, ...);

/* Thread names outlive their threads: the server may ask after a thread exited. */
void tc_names_set(uint32_t tid, const char *name);
/* Copies the name of tid into buf (NUL-terminated); falls back to "Main thread" for the
 * process's main thread and the decimal id otherwise. Returns the length. */
size_t tc_names_get(uint32_t tid, char *buf, size_t cap);
/* Whether the program named thread tid. */
int tc_names_has(uint32_t tid);

#endif

/* profiler.c - start-up, configuration, thread registration, thread names, the serial
 * stream, fork and shutdown. Everything here is off the hot path. */
#include "profiler.h"

#include "clock.h"
#include "inproc.h"
#include "tracyc.h"
#include "record.h"
#include "worker.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct tc_profiler tc_prof = {
    .threads_lock = PTHREAD_MUTEX_INITIALIZER,
    .serial_lock = PTHREAD_MUTEX_INITIALIZER,
};
_Thread_local struct tc_thread *tc_self __attribute__((tls_model("initial-exec")));

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;
static _Thread_local char last_error[256];

struct name_entry {
    uint32_t tid;
    char *name;
};
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_entry *names;
static size_t names_len, names_cap;

uint32_t tc_current_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

void tc_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

const char *tracyc_last_error(void)
{
    return last_error;
}

void tc_count_drop(void)
{
    atomic_fetch_add_explicit(&tc_prof.dropped, 1, memory_order_relaxed);
}

uint64_t tracyc_dropped_events(void)
{
    return atomic_load_explicit(&tc_prof.dropped, memory_order_relaxed);
}

static int env_true(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] == '1';
}

static size_t parse_size(const char *s, size_t fallback)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return fallback;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        break;
    default:
        break;
    }
    return v ? (size_t)v : fallback;
}

static void read_config(struct tc_config *c)
{
    const char *v;
    c->port = (v = getenv("TRACY_PORT")) ? (uint16_t)atoi(v) : 0;
    v = getenv("TRACYC_LISTEN");
    c->listen_any = v && strcmp(v, "any") == 0;
    c->broadcast = env_true("TRACYC_BROADCAST");
    c->no_exit = env_true("TRACY_NO_EXIT");
    c->buffer_limit = (v = getenv("TRACYC_BUFFER_LIMIT")) ? parse_size(v, (size_t)256 << 20) : (size_t)256 << 20;
    v = getenv("TRACYC_OUTPUT");
    c->output = v && *v ? tc_inproc_absolute_path(v) : NULL; /* where the program started */
}

static void thread_exit(void *arg)
{
    struct tc_thread *t = arg;
    tc_stream_commit(&t->stream); /* a last zone begin may not be published yet */
    atomic_store_explicit(&t->exited, 1, memory_order_release);
}

static void at_exit(void)
{
    ___tracy_shutdown_profiler();
}

/* A forked child must not write into the parent's connection: it becomes inert. */
static void after_fork_child(void)
{
    atomic_store(&tc_prof.state, TC_STATE_DISABLED);
    tc_self = NULL;
    tc_worker_forget_after_fork();
}

static int start_locked(void)
{
    int state = atomic_load(&tc_prof.state);
    if (state != TC_STATE_OFF)
        return state == TC_STATE_RUNNING ? 0 : -1;
    if (env_true("TRACYC_DISABLE")) {
        atomic_store(&tc_prof.state, TC_STATE_DISABLED);
        return -1;
    }
    read_config(&tc_prof.config);
    tc_buffer_limit = tc_prof.config.buffer_limit;
    tc_clock_init();
    tc_prof.init_begin = tc_clock_now();
    tc_prof.epoch = (uint64_t)time(NULL);
    tc_prof.main_tid = (uint32_t)getpid();
    pthread_key_create(&thread_key, thread_exit);
    if (tc_stream_init(&tc_prof.serial) != 0)
        return -1;
    tc_prof.init_end = tc_clock_now();
    atomic_store(&tc_prof.state, TC_STATE_RUNNING);
    if (tc_worker_start() != 0) {
        atomic_store(&tc_prof.state, TC_STATE_DISABLED);
        return -1;
    }
    pthread_atfork(NULL, NULL, after_fork_child);
    atexit(at_exit);
    return 0;
}

int tc_profiler_ensure(void)
{
    if (atomic_load_explicit(&tc_prof.state, memory_order_acquire) == TC_STATE_RUNNING)
        return 0;
    pthread_mutex_lock(&start_lock);
    int r = start_locked();
    pthread_mutex_unlock(&start_lock);
    return r;
}

struct tc_thread *tc_thread_attach(void)
{
    static _Atomic uint32_t next_key = 1;
    if (tc_profiler_ensure() != 0)
        return NULL;
    struct tc_thread *t = aligned_alloc(64, sizeof *t);
    if (!t)
        return NULL;
    memset(t, 0, sizeof *t);
    if (tc_stream_init(&t->stream) != 0) {
        free(t);
        return NULL;
    }
    t->tid = tc_current_tid();
    t->zone_key = (atomic_fetch_add(&next_key, 1) & 0xfff) << 20;
    pthread_mutex_lock(&tc_prof.threads_lock);
    t->next = tc_prof.threads;
    tc_prof.threads = t;
    pthread_mutex_unlock(&tc_prof.threads_lock);
    pthread_setspecific(thread_key, t);
    tc_self = t;
    return t;
}

void tc_names_set(uint32_t tid, const char *name)
{
    char *copy = strdup(name ? name : "");
    if (!copy)
        return;
    pthread_mutex_lock(&names_lock);
    for (size_t i = 0; i < names_len; i++) {
        if (names[i].tid == tid) {
            free(names[i].name);
            names[i].name = copy;
            pthread_mutex_unlock(&names_lock);
            return;
        }
    }
    if (names_len == names_cap) {
        size_t cap = names_cap ? names_cap * 2 : 16;
        struct name_entry *n = realloc(names, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&names_lock);
            free(copy);
            return;
        }
        names = n;
        names_cap = cap;
    }
    names[names_len++] = (struct name_entry){tid, copy};
    pthread_mutex_unlock(&names_lock);
}

size_t tc_names_get(uint32_t tid, char *buf, size_t cap)
{
    int n = -1;
    pthread_mutex_lock(&names_lock);
    for (size_t i = names_len; i-- > 0;) {
        if (names[i].tid == tid) {
            n = snprintf(buf, cap, "%s", names[i].name);
            break;
        }
    }
    pthread_mutex_unlock(&names_lock);
    if (n < 0)
        n = tid == tc_prof.main_tid ? snprintf(buf, cap, "Main thread") : snprintf(buf, cap, "%u", tid);
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

void *tc_serial_reserve(unsigned type, size_t len, int force)
{
    if (tc_profiler_ensure() != 0)
        return NULL;
    pthread_mutex_lock(&tc_prof.serial_lock);
    struct tc_rec *r = tc_stream_reserve(&tc_prof.serial, tc_rec_size(type, len), force);
    if (!r) {
        pthread_mutex_unlock(&tc_prof.serial_lock);
        tc_count_drop();
        return NULL;
    }
    r->type = (uint8_t)type;
    r->len = (uint16_t)len;
    return r;
}

void tc_serial_commit(void)
{
    tc_stream_commit(&tc_prof.serial);
    pthread_mutex_unlock(&tc_prof.serial_lock);
}

void ___tracy_startup_profiler(void)
{
    tc_profiler_ensure();
}

int32_t ___tracy_profiler_started(void)
{
    return atomic_load(&tc_prof.state) == TC_STATE_RUNNING;
}

int tracyc_disabled(void)
{
    tc_profiler_ensure();
    return atomic_load(&tc_prof.state) == TC_STATE_DISABLED;
}

void ___tracy_shutdown_profiler(void)
{
    pthread_mutex_lock(&start_lock);
    int expected = TC_STATE_RUNNING;
    if (atomic_compare_exchange_strong(&tc_prof.state, &expected, TC_STATE_STOPPING)) {
        if (tc_self)
            tc_stream_commit(&tc_self->stream);
        tc_worker_stop();
        atomic_store(&tc_prof.state, TC_STATE_STOPPED);
    }
    pthread_mutex_unlock(&start_lock);
}

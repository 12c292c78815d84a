/* state.c - the profiler state, thread names, the last error and the drop count. */
#include "client/state.h"

#include "client/stream.h"
#include "tracyc.h"
#include "util/array.h"

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

static _Thread_local char last_error[256];

struct name_entry {
    uint32_t tid;
    uint64_t version;
    char *name;
};
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_entry *names;
static size_t names_len, names_cap;
static _Atomic uint64_t names_version; /* of the latest name set; written under names_lock */

uint32_t tc_current_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

uint32_t tc_zone_key_next(void)
{
    static _Atomic uint32_t next_key = 1;
    return (atomic_fetch_add(&next_key, 1) & 0xfff) << 20;
}

/* The parent's threads and serial stream, as they were at the fork: kept in the child for its
 * leak check (lifecycle.c, after_fork_child). */
static struct {
    struct tc_thread *threads;
    struct tc_stream serial;
} parents;

void tc_state_reset_after_fork(void)
{
    /* The parent's threads and their buffers stay where they are in this copy of its
     * memory, unread: this process records from scratch (its start makes a serial stream
     * of its own). A lock another thread of the parent held at the fork would never be
     * released here, so every lock starts anew. */
    pthread_mutex_init(&tc_prof.threads_lock, NULL);
    pthread_mutex_init(&tc_prof.serial_lock, NULL);
    pthread_mutex_init(&names_lock, NULL);
    parents.threads = tc_prof.threads;
    memcpy(&parents.serial, &tc_prof.serial, sizeof tc_prof.serial);
    tc_prof.threads = NULL;
    atomic_store(&tc_prof.dropped, 0);
    atomic_store(&tc_prof.plot_skipped, 0);
    atomic_store(&tc_prof.connected, 0);
    atomic_store(&tc_prof.capture_failed, 0);
    tc_prof.exit_time = 0;
    atomic_store(&tc_buffer_bytes, 0);
    atomic_store(&tc_buffer_peak, 0);
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

void tc_names_set(uint32_t tid, const char *name)
{
    char *copy = strdup(name ? name : "");
    if (!copy)
        return;
    pthread_mutex_lock(&names_lock);
    uint64_t version = atomic_load_explicit(&names_version, memory_order_relaxed) + 1;
    struct name_entry *e = NULL;
    for (size_t i = 0; i < names_len && !e; i++)
        if (names[i].tid == tid)
            e = &names[i];
    if (!e) {
        struct name_entry *grown = tcu_grow(NULL, names, &names_cap, names_len + 1, sizeof *names);
        if (!grown) {
            pthread_mutex_unlock(&names_lock);
            free(copy);
            return;
        }
        names = grown;
        e = &names[names_len++];
        *e = (struct name_entry){tid, 0, NULL};
    }
    free(e->name);
    e->name = copy;
    e->version = version;
    atomic_store_explicit(&names_version, version, memory_order_release);
    pthread_mutex_unlock(&names_lock);
}

uint64_t tc_names_version(void)
{
    return atomic_load_explicit(&names_version, memory_order_acquire);
}

void tc_names_each_since(uint64_t since, void (*fn)(void *user, uint32_t tid, const char *name, uint64_t version),
                         void *user)
{
    struct name_entry *changed = NULL;
    size_t n = 0;
    pthread_mutex_lock(&names_lock);
    for (size_t i = 0; i < names_len; i++)
        n += names[i].version > since;
    changed = n ? malloc(n * sizeof *changed) : NULL;
    size_t k = 0;
    for (size_t i = 0; changed && i < names_len; i++)
        if (names[i].version > since)
            changed[k++] = (struct name_entry){names[i].tid, names[i].version, strdup(names[i].name)};
    pthread_mutex_unlock(&names_lock);
    for (size_t i = 0; i < k; i++) {
        if (changed[i].name)
            fn(user, changed[i].tid, changed[i].name, changed[i].version);
        free(changed[i].name);
    }
    free(changed);
}

int tc_names_has(uint32_t tid)
{
    int found = 0;
    pthread_mutex_lock(&names_lock);
    for (size_t i = 0; i < names_len && !found; i++)
        found = names[i].tid == tid;
    pthread_mutex_unlock(&names_lock);
    return found;
}

size_t tc_names_get(uint32_t tid, char *buf, size_t cap, uint64_t *version)
{
    int n = -1;
    uint64_t v = 0;
    pthread_mutex_lock(&names_lock);
    for (size_t i = 0; i < names_len; i++) {
        if (names[i].tid == tid) {
            n = snprintf(buf, cap, "%s", names[i].name);
            v = names[i].version;
            break;
        }
    }
    pthread_mutex_unlock(&names_lock);
    if (n < 0)
        n = tid == tc_prof.main_tid ? snprintf(buf, cap, "Main thread") : snprintf(buf, cap, "%u", tid);
    if (version)
        *version = v;
    return (size_t)n < cap ? (size_t)n : cap - 1;
}

/* state.c - the profiler state, thread names, the last error and the drop count. */
#include "client/state.h"

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
    char *name;
};
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static struct name_entry *names;
static size_t names_len, names_cap;

uint32_t tc_current_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

uint32_t tc_zone_key_next(void)
{
    static _Atomic uint32_t next_key = 1;
    return (atomic_fetch_add(&next_key, 1) & 0xfff) << 20;
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
    for (size_t i = 0; i < names_len; i++) {
        if (names[i].tid == tid) {
            free(names[i].name);
            names[i].name = copy;
            pthread_mutex_unlock(&names_lock);
            return;
        }
    }
    struct name_entry *grown = tcu_grow(NULL, names, &names_cap, names_len + 1, sizeof *names);
    if (!grown) {
        pthread_mutex_unlock(&names_lock);
        free(copy);
        return;
    }
    names = grown;
    names[names_len++] = (struct name_entry){tid, copy};
    pthread_mutex_unlock(&names_lock);
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

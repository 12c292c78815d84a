/* api_thread.c - thread names, the profiler's own threads, fibers, the clock, connection
 * state, sampling, and the in-process capture entry point. */
#include "client/api.h"
#include "client/sampling.h"

#include "client/fiber.h"
#include "client/inproc.h"
#include "client/worker.h"
#include "util/threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void ___tracy_set_thread_name(const char *name)
{
    struct tc_thread *t = tc_thread_get();
    if (!t || !name)
        return;
    tc_names_set(t->tid, name);
    char os_name[16]; /* the kernel keeps 15 bytes */
    snprintf(os_name, sizeof os_name, "%s", name);
    pthread_setname_np(pthread_self(), os_name);
}

size_t tracyc_own_threads(uint32_t *tids, size_t cap)
{
    return tcu_threads_own(tids, cap);
}

void ___tracy_init_thread(void)
{
    tc_thread_get();
}

/* From here on the thread's zones are the fiber's: they nest in it, wherever it runs. */
void ___tracy_fiber_enter(const char *fiber)
{
    struct tc_thread *t = fiber ? tc_thread_get() : NULL;
    struct tc_fiber *f = t ? tc_fiber_get(fiber) : NULL;
    if (!f)
        return;
    tc_fiber_switch(t, f);
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_FIBER_ENTER, 0, 1);
    if (!r)
        return;
    r->fiber_enter.time = tc_clock_now();
    r->fiber_enter.fiber = f;
    r->fiber_enter.seq = tc_fiber_number_enter(f);
    tc_thread_commit(t);
}

void ___tracy_fiber_leave(void)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    tc_fiber_switch(t, NULL);
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_FIBER_LEAVE, 0, 1);
    if (!r)
        return;
    r->fiber_leave.time = tc_clock_now();
    tc_thread_commit(t);
}

int64_t ___tracy_get_time(void)
{
    tc_profiler_ensure();
    return tc_clock_now();
}

/* Starts the profiler like every entry point: a program may poll this before any other
 * call, waiting for a server (upstream's profiler starts with the program). */
int32_t ___tracy_connected(void)
{
    tc_profiler_ensure();
    return atomic_load(&tc_prof.connected);
}

/* Sampling runs from the profiler's start; these pause it and let it run again (a pause
 * takes effect in the call: sampling.c). */
int ___tracy_begin_sampling_profiling(void)
{
    if (tc_profiler_ensure() != 0)
        return 0;
    return tc_sampling_resume();
}

void ___tracy_end_sampling_profiling(void)
{
    if (tc_profiler_ensure() == 0)
        tc_sampling_pause();
}

/* Tracy 0.13 names. */
int ___tracy_begin_sampling_profiler(void)
{
    return ___tracy_begin_sampling_profiling();
}

void ___tracy_end_sampling_profiler(void)
{
    ___tracy_end_sampling_profiling();
}

int tracyc_output_check(const char *path)
{
    char err[256];
    if (!path || !*path) {
        tc_set_error("no output path");
        return -1;
    }
    if (tc_inproc_check_path(path, err, sizeof err) != 0) {
        tc_set_error("%s", err);
        return -1;
    }
    return 0;
}

int tracyc_collect_children(int on)
{
    if (tc_profiler_ensure() != 0) {
        tc_set_error("tracyc_collect_children: the profiler is disabled or shut down");
        return -1;
    }
    return tc_worker_collect_children(on);
}

int tracyc_capture_start(const char *path)
{
    if (!path || !*path) {
        tc_set_error("tracyc_capture_start: no output path");
        return -1;
    }
    if (tc_profiler_ensure() != 0) {
        tc_set_error("tracyc_capture_start: the profiler is disabled or shut down");
        return -1;
    }
    char err[256];
    if (tc_inproc_check_path(path, err, sizeof err) != 0) {
        tc_set_error("tracyc_capture_start: %s", err);
        return -1;
    }
    char *absolute = tc_inproc_absolute_path(path);
    if (!absolute) {
        tc_set_error("tracyc_capture_start: out of memory");
        return -1;
    }
    int busy = tc_worker_capture_start(absolute) != 0;
    free(absolute);
    if (busy) {
        tc_set_error("tracyc_capture_start: a capture is already running");
        return -1;
    }
    return 0;
}

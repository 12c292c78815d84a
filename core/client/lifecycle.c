/* lifecycle.c - start-up at the first call, configuration, thread registration, fork
 * and shutdown. Everything here is off the hot path. */
#include "client/lifecycle.h"

#include "native/callstack.h"
#include "client/clock.h"
#include "client/config.h"
#include "client/inproc.h"
#include "native/debug_cache.h"
#include "native/resolver.h"
#include "util/fd.h"
#include "util/threads.h"
#include "client/sampling.h"
#include "client/worker.h"
#include "tracyc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t thread_key;

static void thread_exit(void *arg)
{
    struct tc_thread *t = arg;
    tc_stream_commit(&t->stream); /* a last zone begin may not be published yet */
    atomic_store_explicit(&t->exited, 1, memory_order_release);
}

/* At exit the in-process capture is written. Whatever becomes of it (stderr says when it
 * fails), the program's exit status stays its own. */
static void at_exit(void)
{
    ___tracy_shutdown_profiler();
}

/* A forked child must not write into the parent's connection. By default it becomes
 * inert; with TRACYC_FOLLOW_FORK=1 it starts a profiler of its own at its first call, with
 * nothing of the parent's but the clock's calibration (the same TSC), and dials the
 * collector the parent's environment names (the parent's TRACYC_CONNECT, or its in-process
 * capture's socket: tracyc_collect_children). */
static void after_fork_child(void)
{
    int follow = tc_prof.config.follow_fork && atomic_load(&tc_prof.state) == TC_STATE_RUNNING;
    atomic_store(&tc_prof.state, follow ? TC_STATE_OFF : TC_STATE_DISABLED);
    tc_self = NULL;
    /* Nothing here frees or allocates: a thread of the parent may have held the allocator's
     * lock at the fork, and an allocator without a fork handler of its own (GCC 12's
     * AddressSanitizer's) never releases it in the child. The parent's memory is forgotten,
     * its descriptors closed. Each handler keeps what it forgets in a static of its own
     * ("parents"), never used nor freed: the child's leak check (LeakSanitizer's, at exit)
     * would otherwise report as lost what nothing points to once the handlers have reset
     * their state, or what only a thread the child does not have pointed to. It holds the
     * last fork's: a followed child that forks again puts its own there (test_fork_leak_check). */
    tcn_resolver_forget_after_fork();
    tc_worker_forget_after_fork();
    tcn_callstack_forget_after_fork();
    tcu_threads_forget_after_fork();
    /* The start lock in every child: an inert one takes it too, at its first call and at exit (the atexit
     * shutdown), and a thread of the parent may have held it at the fork (in a shutdown
     * waiting for a server, or in the start-up). */
    pthread_mutex_init(&start_lock, NULL);
    if (follow) {
        pthread_setspecific(thread_key, NULL);
        tc_state_reset_after_fork();
    }
}

/* Before a fork, the resolver and the callstack walks under way on other threads finish
 * (each wait bounded): the child finds neither in the middle of its work. */
static void before_fork(void)
{
    tcn_resolver_before_fork();
    tcn_callstack_before_fork();
}

static void after_fork_parent(void)
{
    tcn_callstack_after_fork_parent();
    tcn_resolver_after_fork_parent();
}

/* What a process does once, whichever profiler it starts (its own, or a forked child's). */
static void start_once(void)
{
    tc_clock_init();
    pthread_key_create(&thread_key, thread_exit);
    /* (After the descriptor guard's: ours runs first, while the guard's lock is free for the
     * callstack walks ours waits for.) */
    tcu_fd_guard_register_fork();
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    atexit(at_exit);
}

static int start_locked(void)
{
    static int started_once;
    int state = atomic_load(&tc_prof.state);
    if (state != TC_STATE_OFF)
        return state == TC_STATE_RUNNING ? 0 : -1;
    if (tc_config_disabled()) {
        atomic_store(&tc_prof.state, TC_STATE_DISABLED);
        return -1;
    }
    tc_config_read(&tc_prof.config);
    tc_buffer_limit = tc_prof.config.buffer_limit;
    tcn_debug_cache_configure(tc_prof.config.debug_cache[0] ? tc_prof.config.debug_cache : NULL,
                              tc_prof.config.debug_cache_limit);
    if (!started_once)
        start_once();
    started_once = 1;
    tc_prof.init_begin = tc_clock_now();
    tc_prof.epoch = (uint64_t)time(NULL);
    tc_prof.main_tid = (uint32_t)getpid();
    if (!tc_prof.config.no_callstack)
        tcn_callstack_init(tc_prof.config.follow_fork);
    if (tc_stream_init(&tc_prof.serial) != 0)
        return -1;
    tc_prof.init_end = tc_clock_now();
    atomic_store(&tc_prof.state, TC_STATE_RUNNING);
    if (tc_worker_start() != 0) {
        atomic_store(&tc_prof.state, TC_STATE_DISABLED);
        return -1;
    }
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
    t->zones.key = tc_zone_key_next();
    pthread_mutex_lock(&tc_prof.threads_lock);
    t->next = tc_prof.threads;
    tc_prof.threads = t;
    pthread_mutex_unlock(&tc_prof.threads_lock);
    pthread_setspecific(thread_key, t);
    tc_self = t;
    return t;
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
    int64_t now = tc_clock_now(); /* before STOPPING shows: whatever follows it comes later */
    int expected = TC_STATE_RUNNING;
    if (atomic_compare_exchange_strong(&tc_prof.state, &expected, TC_STATE_STOPPING)) {
        tc_prof.exit_time = now;
        if (tc_self)
            tc_stream_commit(&tc_self->stream);
        tc_clock_calibrate_now(); /* no event comes after now: the worker need not wait */
        tc_worker_stop();
        atomic_store(&tc_prof.state, TC_STATE_STOPPED);
    } else if (expected == TC_STATE_STOPPING) {
        /* Only an exit signal's shutdown runs outside this lock (on the worker: exit_signal.c):
         * the program must not end before that shutdown has written the capture (the signal
         * then ends it). */
        while (atomic_load(&tc_prof.state) == TC_STATE_STOPPING)
            nanosleep(&(struct timespec){0, 1000000L}, NULL);
    }
    pthread_mutex_unlock(&start_lock);
}

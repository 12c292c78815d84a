/* A child forked while a thread of the parent holds the symbol resolver's lock
 * (native/resolver.c) ends. Its fork handler closes the parent's connections, and closing
 * one with queries still unanswered tells the resolver to forget them, under that lock:
 * the handler must start the resolver's lock anew first (the child hung inside fork()
 * before).
 * The moment is made, not waited for, with two functions this program exports (they take
 * libc's place, and let everyone else's calls through):
 *   - dl_iterate_phdr holds the resolver's thread in its first query (its loader stamp
 *     calls it), outside the lock: the connection keeps a query unanswered;
 *   - pthread_cond_signal holds the worker in the second query's hand-over, which signals
 *     the resolver's thread with the lock held.
 * The fork's own wait for the resolver's lock (tcn_resolver_before_fork) ends at its bound,
 * about 2 s: the fork is then made with the lock held by the worker, as before.
 * Bounded waits only: a child still alive after WAIT_S is reported and killed. Skipped
 * under ThreadSanitizer, whose runtime calls dl_iterate_phdr before main. */
#include "held_dl_iterate_phdr.h"
#include "raw_server.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_S 30

#ifdef TT_UNDER_TSAN
int main(void)
{
    return 77;
}
#else
static void pause_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

/* 1 once *flag is set, 0 if it is not within WAIT_S. */
static int wait_for(atomic_int *flag)
{
    for (int i = 0; i < WAIT_S * 100; i++) {
        if (atomic_load(flag))
            return 1;
        pause_ms(10);
    }
    return 0;
}

static struct tt_hold handing_over = {.thread = "tracyc worker"};
static __typeof__(pthread_cond_signal) *real_cond_signal;

int pthread_cond_signal(pthread_cond_t *cond)
{
    tt_hold_pass(&handing_over);
    if (!real_cond_signal)
        real_cond_signal = (__typeof__(pthread_cond_signal) *)dlsym(RTLD_NEXT, "pthread_cond_signal");
    return real_cond_signal(cond);
}

static __attribute__((noinline)) void some_function(void)
{
    __asm__ volatile("" ::: "memory");
}

/* The child's fork handlers have run when fork returns in it: it only has to end. */
static void fork_and_check(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    int status = 0;
    int ended = tt_child_ended(pid, &status, WAIT_S);
    tt_check(ended, "a child forked while the worker holds the resolver's lock ended within %d s", WAIT_S);
    if (ended)
        tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exited with 0 (status %d)", status);
}

int main(void)
{
    real_cond_signal = (__typeof__(pthread_cond_signal) *)dlsym(RTLD_NEXT, "pthread_cond_signal");
    tt_dl_iterate_phdr_find_real();
    tt_dl_iterate_phdr_hold.thread = "tracyc symbols";
    unsetenv("TRACYC_FOLLOW_FORK");
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    struct tr_server srv;
    if (tr_connect(&srv, port, WAIT_S) != 0) {
        tt_check(0, "a raw server connected");
        return tt_finish("test_fork_resolver");
    }
    uint64_t address = (uint64_t)(uintptr_t)some_function;
    tt_hold_arm(&tt_dl_iterate_phdr_hold);
    tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, address, 0);
    int resolver_held = wait_for(&tt_dl_iterate_phdr_hold.held);
    tt_check(resolver_held, "the resolver's thread was held in its first query");
    if (resolver_held) {
        tt_hold_arm(&handing_over);
        tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, address + 1, 0);
        int worker_held = wait_for(&handing_over.held);
        tt_check(worker_held, "the worker was held handing the second query over");
        if (worker_held)
            fork_and_check();
    }
    tt_hold_release(&handing_over);
    tt_hold_release(&tt_dl_iterate_phdr_hold);
    tr_finish(&srv, WAIT_S);
    tr_free(&srv);
    ___tracy_shutdown_profiler();
    return tt_finish("test_fork_resolver");
}
#endif

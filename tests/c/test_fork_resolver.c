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
 * Bounded waits only: a child still alive after WAIT_S is reported and killed. Skipped
 * under ThreadSanitizer, whose runtime calls dl_iterate_phdr before main. */
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_S 30

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

#ifdef UNDER_TSAN
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

static int on_thread(const char *name)
{
    char mine[16] = {0};
    prctl(PR_GET_NAME, mine, 0, 0, 0);
    return strcmp(mine, name) == 0;
}

/* One hold: armed by the test, taken by the first call on the named thread, released by
 * the test. */
struct hold {
    const char *thread;
    atomic_int armed, held, released;
};

static struct hold resolving = {.thread = "tracyc symbols"};
static struct hold handing_over = {.thread = "tracyc worker"};

/* (Not instrumented by AddressSanitizer: called before its shadow is set up, see below.) */
__attribute__((no_sanitize("address"))) static void pass_or_hold(struct hold *h)
{
    if (!atomic_load(&h->armed) || !on_thread(h->thread) || !atomic_exchange(&h->armed, 0))
        return;
    atomic_store(&h->held, 1);
    while (!atomic_load(&h->released))
        pause_ms(1);
}

static __typeof__(dl_iterate_phdr) *real_dl_iterate_phdr;
static __typeof__(pthread_cond_signal) *real_cond_signal;

/* (Not instrumented by AddressSanitizer, whose runtime calls it before its shadow is set up.) */
__attribute__((no_sanitize("address"))) int dl_iterate_phdr(int (*callback)(struct dl_phdr_info *, size_t, void *),
                                                            void *data)
{
    pass_or_hold(&resolving);
    if (!real_dl_iterate_phdr) /* (before main) */
        real_dl_iterate_phdr = (__typeof__(dl_iterate_phdr) *)dlsym(RTLD_NEXT, "dl_iterate_phdr");
    return real_dl_iterate_phdr(callback, data);
}

int pthread_cond_signal(pthread_cond_t *cond)
{
    pass_or_hold(&handing_over);
    if (!real_cond_signal)
        real_cond_signal = (__typeof__(pthread_cond_signal) *)dlsym(RTLD_NEXT, "pthread_cond_signal");
    return real_cond_signal(cond);
}

static __attribute__((noinline)) void some_function(void)
{
    __asm__ volatile("" ::: "memory");
}

/* 1 if the child ended by itself within the bound; otherwise it is killed. */
static int child_ended(pid_t pid, int *status)
{
    for (int i = 0; i < WAIT_S * 100; i++) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        pause_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, status, 0);
    return 0;
}

/* The child's fork handlers have run when fork returns in it: it only has to end. */
static void fork_and_check(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    int status = 0;
    int ended = child_ended(pid, &status);
    tt_check(ended, "a child forked while the worker holds the resolver's lock ended within %d s", WAIT_S);
    if (ended)
        tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exited with 0 (status %d)", status);
}

int main(void)
{
    real_cond_signal = (__typeof__(pthread_cond_signal) *)dlsym(RTLD_NEXT, "pthread_cond_signal");
    unsetenv("TRACYC_FOLLOW_FORK");
    uint16_t port = tt_use_free_port();
    ___tracy_startup_profiler();
    struct tr_server srv;
    if (tr_connect(&srv, port, WAIT_S) != 0) {
        tt_check(0, "a raw server connected");
        return tt_finish("test_fork_resolver");
    }
    uint64_t address = (uint64_t)(uintptr_t)some_function;
    atomic_store(&resolving.armed, 1);
    tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, address, 0);
    int resolver_held = wait_for(&resolving.held);
    tt_check(resolver_held, "the resolver's thread was held in its first query");
    if (resolver_held) {
        atomic_store(&handing_over.armed, 1);
        tr_query(&srv, TCW_QUERY_CALLSTACK_FRAME, address + 1, 0);
        int worker_held = wait_for(&handing_over.held);
        tt_check(worker_held, "the worker was held handing the second query over");
        if (worker_held)
            fork_and_check();
    }
    atomic_store(&handing_over.armed, 0);
    atomic_store(&handing_over.released, 1);
    atomic_store(&resolving.armed, 0);
    atomic_store(&resolving.released, 1);
    tr_finish(&srv, WAIT_S);
    tr_free(&srv);
    ___tracy_shutdown_profiler();
    return tt_finish("test_fork_resolver");
}
#endif

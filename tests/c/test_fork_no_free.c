/* A forked child's fork handlers free and allocate nothing, the parent connected: a thread
 * of the parent (the profiler's worker, sampler or resolver, or one of the program's) may
 * have held the allocator's lock at the fork, and an allocator without a fork handler of its
 * own (GCC 12's AddressSanitizer's) never releases it in the child, whose free() then waits
 * forever. This program's allocator counts its calls between two fork handlers of its own,
 * one registered before the profiler's and one after: the child's run in the order
 * registered. Skipped under the sanitizers, whose allocators take the program's place, and
 * without glibc, whose allocator this one passes the calls to. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || !defined(__GLIBC__)
int main(void)
{
    puts("skip: a sanitizer's allocator, or no glibc");
    return 77;
}
#else
/* glibc's allocator, under the names it keeps for those who take its place. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t alignment, size_t size);

static atomic_int counting, calls;

static void count(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
}

void *malloc(size_t size)
{
    count();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    count();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    count();
    return __libc_realloc(p, size);
}

void free(void *p)
{
    count();
    __libc_free(p);
}

void *aligned_alloc(size_t alignment, size_t size)
{
    count();
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size)
{
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **p, size_t alignment, size_t size)
{
    count();
    *p = __libc_memalign(alignment, size);
    return *p ? 0 : ENOMEM;
}

static void start_counting(void)
{
    atomic_store(&counting, 1);
}

static void stop_counting(void)
{
    atomic_store(&counting, 0);
}

/* Before the library's constructors, some of which register fork handlers of their own. */
__attribute__((constructor(101))) static void count_from_the_first_handler(void)
{
    pthread_atfork(NULL, NULL, start_counting);
}

static const struct ___tracy_source_location_data loc = {"parent", "main", "fork_no_free.c", 1, 0};

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_end(z);
    for (int i = 0; i < 6000 && !___tracy_connected(); i++) /* 60 s: load only slows it */
        usleep(10000);
    tt_check(___tracy_connected(), "the parent is connected");
    pthread_atfork(NULL, NULL, stop_counting); /* after the profiler's */
    pid_t pid = fork();
    if (pid == 0) {
        int n = atomic_load(&calls);
        if (n)
            fprintf(stderr, "child: %d allocator calls in the fork handlers\n", n);
        _exit(n ? 1 : 0);
    }
    int status = 0;
    int ended = tt_child_ended(pid, &status, 30);
    tt_check(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the child's fork handlers neither free nor allocate (%s, status %#x)",
             ended ? "ended" : "hung: killed after 30 s", status);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_fork_no_free");
}
#endif

/* callstack.c - the unwinder behind every _callstack/S function (see callstack.h). */
#include "native/callstack.h"

#include "util/fd.h"
#include "util/monotonic.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

typedef int (*unwind_fn)(void **buffer, int size);

/* The unwinder's first walk sets up its state (libunwind's pipe, with every free descriptor
 * below the floor held meanwhile): ~2 ms here, which a program that never records a
 * callstack (python -m tracer, most C programs) would pay in its start-up. So libunwind's
 * library is loaded at start-up, and its first walk is made by the first capture. */
enum { COLD, WARMING, WARM };
static atomic_int warmth = COLD;
static _Thread_local int warming; /* this thread makes the first walk: its own captures meanwhile get none */
static unwind_fn unwinder;        /* set at start-up, before warmth leaves COLD */
static const char *unwinder_name = "none";

/* Walks under way, counted per stripe of threads (so that captures on different threads do
 * not share a cache line), and a fork about to be made: the fork waits for the walks, and
 * walks wait for the fork (begin_walk, tcn_callstack_before_fork). libunwind keeps what it
 * learns of each address in one cache shared by all threads, under a lock that a walk holds
 * (every signal blocked) while it looks up code it has not seen: a child forked meanwhile
 * would find that lock held by a thread it does not have, and its first capture would wait
 * on it forever. */
#define WALK_STRIPES 16
static struct {
    _Alignas(64) atomic_int n;
} walks[WALK_STRIPES];
static atomic_uint stripes_given;
static _Thread_local int stripe = -1;
static _Thread_local int walks_here; /* this thread's walks under way (one, or more in a signal handler) */
static atomic_int forking;
static _Thread_local int forking_here; /* this thread is forking: its own captures go on */
static int count_walks;                /* only when forked children capture (two atomic operations a capture) */

/* libunwind is loaded privately (RTLD_LOCAL): it also defines _Unwind_* and backtrace,
 * which must not take the place of libgcc's in the program's global scope. */
static unwind_fn load_libunwind(void)
{
    tcu_fd_guard_begin(); /* (the loader opens the libraries' files on low numbers for a moment) */
    void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    tcu_fd_guard_end(-1);
    if (!lib)
        return NULL;
    unwind_fn fn = (unwind_fn)dlsym(lib, "unw_backtrace");
    if (!fn)
        dlclose(lib);
    return fn;
}

static int glibc_backtrace(void **buffer, int size)
{
    return backtrace(buffer, size);
}

/* ThreadSanitizer forgets a thread before libunwind's per-thread cache is freed at its exit
 * (a destructor taking a lock), and crashes there: TSan builds use glibc's backtrace. */
#if defined(__SANITIZE_THREAD__)
#define USE_LIBUNWIND 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define USE_LIBUNWIND 0
#endif
#endif
#ifndef USE_LIBUNWIND
#define USE_LIBUNWIND 1
#endif

static void warm_up(void *unused)
{
    (void)unused;
    void *warm[4];
    unwinder(warm, 4);
}

/* The unwinder's first walk, which initialises its own state. libunwind opens a pipe then,
 * which it keeps by number (and reopens, closing those numbers, when a read of it fails): it
 * must not land on a number the program uses. */
static void first_walk(void)
{
    tcu_fd_run_above_floor(warm_up, NULL);
}

void tcn_callstack_init(int children_capture)
{
    count_walks = children_capture;
    if (unwinder)
        return;
    unwind_fn fn = USE_LIBUNWIND ? load_libunwind() : NULL;
    unwinder_name = fn ? "libunwind" : "backtrace";
    unwinder = fn ? fn : glibc_backtrace;
    if (fn)
        return; /* (walked first by the first capture) */
    /* glibc's backtrace loads libgcc_s at its first walk: a dlopen, which must not be made
     * at a capture, where another thread may hold the loader's lock (in a library's
     * constructor) while it waits for this walk. */
    first_walk();
    atomic_store_explicit(&warmth, WARM, memory_order_release);
}

/* The state once another thread's first walk under way has ended, or the wait outlasts
 * TCN_CALLSTACK_WAIT_NS. The walk takes milliseconds; the wait is bounded only so that
 * a thread the walk could wait for (one holding a lock of the program's allocator that the
 * walk's malloc needs, say) cannot deadlock with it. */
static int wait_for_first_walk(void)
{
    int64_t deadline = tcu_monotonic_ns() + TCN_CALLSTACK_WAIT_NS;
    int state;
    while ((state = atomic_load_explicit(&warmth, memory_order_acquire)) == WARMING && tcu_monotonic_ns() < deadline)
        nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
    return state;
}

/* Waits (up to TCN_CALLSTACK_WAIT_NS) for the other threads' walks under way to end. This
 * thread's own (a fork from a signal handler that interrupted one) cannot end before it. */
static void wait_for_walks(void)
{
    int64_t deadline = tcu_monotonic_ns() + TCN_CALLSTACK_WAIT_NS;
    for (;;) {
        int under_way = -walks_here;
        for (int i = 0; i < WALK_STRIPES; i++)
            under_way += atomic_load(&walks[i].n);
        if (under_way <= 0 || tcu_monotonic_ns() >= deadline)
            return;
        nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
    }
}

/* Counts this thread's walk as under way, once no fork is about to be made (waited for up
 * to TCN_CALLSTACK_WAIT_NS); NULL when the wait outlasts that: no frames then. */
static atomic_int *begin_walk(void)
{
    if (stripe < 0)
        stripe = atomic_fetch_add_explicit(&stripes_given, 1, memory_order_relaxed) % WALK_STRIPES;
    atomic_int *n = &walks[stripe].n;
    int64_t deadline = 0;
    for (;;) {
        atomic_fetch_add(n, 1); /* (sequentially consistent, with the fork's store and loads) */
        if (!atomic_load(&forking) || forking_here) {
            walks_here++;
            return n;
        }
        atomic_fetch_sub(n, 1);
        if (!deadline)
            deadline = tcu_monotonic_ns() + TCN_CALLSTACK_WAIT_NS;
        if (tcu_monotonic_ns() >= deadline)
            return NULL;
        nanosleep(&(struct timespec){0, 50 * 1000}, NULL);
    }
}

static void end_walk(atomic_int *n)
{
    walks_here--;
    atomic_fetch_sub_explicit(n, 1, memory_order_release);
}

/* The unwinder once it has made its first walk (this thread makes it if none has); NULL when
 * callstacks are off, or the walk is this thread's own or outlasts TCN_CALLSTACK_WAIT_NS. */
static unwind_fn warm_unwinder(void)
{
    int state = atomic_load_explicit(&warmth, memory_order_acquire);
    if (state == WARM)
        return unwinder;
    if (!unwinder || warming)
        return NULL;
    if (state == COLD &&
        atomic_compare_exchange_strong_explicit(&warmth, &state, WARMING, memory_order_acquire, memory_order_acquire)) {
        warming = 1;
        first_walk();
        warming = 0;
        atomic_store_explicit(&warmth, WARM, memory_order_release);
        return unwinder;
    }
    return wait_for_first_walk() == WARM ? unwinder : NULL;
}

void tcn_callstack_before_fork(void)
{
    /* libunwind sets its state up in the first walk under a lock of its own (every signal
     * blocked), which a child forked meanwhile would find held by a thread it does not
     * have: its first capture would wait on it forever. Any walk meeting new code holds
     * that lock too, for a moment. */
    if (!warming)
        wait_for_first_walk();
    forking_here = 1;
    atomic_store(&forking, 1);
    wait_for_walks();
}

void tcn_callstack_after_fork_parent(void)
{
    forking_here = 0;
    atomic_store(&forking, 0);
}

void tcn_callstack_forget_after_fork(void)
{
    /* A first walk that outlasted the wait, on another thread: the child makes its own. */
    if (atomic_load_explicit(&warmth, memory_order_relaxed) == WARMING && !warming)
        atomic_store_explicit(&warmth, COLD, memory_order_relaxed);
    /* The threads of walks that outlasted the wait are not in the child; this one's are. */
    for (int i = 0; i < WALK_STRIPES; i++)
        atomic_store_explicit(&walks[i].n, i == stripe ? walks_here : 0, memory_order_relaxed);
    forking_here = 0;
    atomic_store(&forking, 0);
}

const char *tcn_callstack_unwinder(void)
{
    return unwinder_name;
}

/* Our own frames between the unwinder and the caller's call site: this function and the
 * public entry, usually; up to OWN_FRAMES_MAX when the compiler kept helpers out of line. */
#define OWN_FRAMES 2
#define OWN_FRAMES_MAX 6

static int find_caller(void *const *buf, int n, int limit, const void *caller)
{
    for (int i = 0; i < n && i < limit; i++)
        if (buf[i] == caller)
            return i;
    return -1;
}

/* Fills frames as tcn_callstack_capture does, depth in 1..TCN_CALLSTACK_MAX. */
static int walk_from(uint64_t *frames, int32_t depth, const void *caller)
{
    unwind_fn walk = warm_unwinder();
    if (!walk)
        return 0;
    void *buf[TCN_CALLSTACK_MAX + OWN_FRAMES_MAX];
    int n = walk(buf, depth + OWN_FRAMES + 1);
    int first = find_caller(buf, n, OWN_FRAMES + 1, caller);
    if (first < 0) {
        n = walk(buf, depth + OWN_FRAMES_MAX);
        first = find_caller(buf, n, OWN_FRAMES_MAX, caller);
    }
    if (first < 0) {
        /* The unwinder lost its way (no unwind information here): the call site alone is
         * still known for certain. */
        frames[0] = (uint64_t)(uintptr_t)caller - 1;
        return 1;
    }
    int count = n - first < depth ? n - first : depth;
    for (int i = 0; i < count; i++)
        frames[i] = (uint64_t)(uintptr_t)buf[first + i] - 1;
    return count;
}

int tcn_callstack_capture(uint64_t *frames, int32_t depth, const void *caller)
{
    if (depth <= 0)
        return 0;
    if (depth > TCN_CALLSTACK_MAX)
        depth = TCN_CALLSTACK_MAX;
    if (!count_walks)
        return walk_from(frames, depth, caller);
    atomic_int *under_way = begin_walk(); /* (before the first walk too, which may be this one) */
    if (!under_way)
        return 0;
    int n = walk_from(frames, depth, caller);
    end_walk(under_way);
    return n;
}

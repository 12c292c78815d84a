/* The unwinder's first walk (native/callstack.h) is made by the first capture, at whatever
 * moment and on whatever thread that is, not at the profiler's start:
 * - a capture on another thread while it is under way waits for it and gets its frames;
 *   one inside a library's constructor (in dlopen, holding the loader's lock) too, and
 *   neither deadlocks (a first version loaded libunwind at the first capture, under
 *   pthread_once: a thread in dlopen waited for it there while it waited for the loader);
 * - a fork while it is under way on another thread waits for it to end: libunwind sets
 *   its state up in it under a lock of its own (every signal blocked), which a child forked
 *   meanwhile would find held forever.
 * - a fork while another thread's walk meets code libunwind has not seen waits for it too:
 *   libunwind looks that code's unwind information up under a lock of its cache, and a
 *   child forked meanwhile would wait on it forever (`fork-walk`);
 * - the first walk made by a prepare handler of the program's, which runs after the
 *   profiler's and so while the descriptor guard's lock is held for the fork, ends: the
 *   walk's pipe is made under that guard (`fork-prepare`; it deadlocked before).
 * The walk is held in the middle by this program's own dl_iterate_phdr, which libunwind
 * calls to find each address's unwind information (held_dl_iterate_phdr.c: it takes the
 * place of libc's).
 * With glibc's backtrace (ThreadSanitizer builds) the first walk is made at start-up:
 * skipped. */
#include "held_dl_iterate_phdr.h"
#include "native/callstack.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char text[] = "test_callstack_first_walk: no progress in 60 s: deadlocked\n";
    (void)!write(2, text, sizeof text - 1);
    _exit(1);
}

static int capture(void)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    return tcn_callstack_capture(frames, 8, __builtin_return_address(0));
}

/* ---- the walk held in the middle ------------------------------------------------------- */

struct walker {
    pthread_t thread;
    int frames;
    atomic_llong done_ns; /* when its capture returned */
};

static void *walker_main(void *arg)
{
    struct walker *w = arg;
    w->frames = capture();
    atomic_store(&w->done_ns, tcu_monotonic_ns());
    return NULL;
}

/* ---- a capture in a library's constructor during the first walk ------------------------ */

static struct walker constructor_walker;
static int constructor_frames = -1;
static long long constructor_capture_ns;

void test_first_walk_in_constructor(void)
{
    /* With the loader's lock held: the first walk starts on another thread, and this
     * thread captures while it is under way. */
    tt_hold_arm(&tt_dl_iterate_phdr_hold);
    pthread_create(&constructor_walker.thread, NULL, walker_main, &constructor_walker);
    while (!atomic_load(&tt_dl_iterate_phdr_hold.held))
        pause_ms(1);
    tt_hold_release(&tt_dl_iterate_phdr_hold);
    long long start = tcu_monotonic_ns();
    constructor_frames = capture();
    constructor_capture_ns = tcu_monotonic_ns() - start;
}

static void check_constructor(const char *lib)
{
    void *handle = dlopen(lib, RTLD_NOW);
    tt_check(handle != NULL, "dlopen %s: %s", lib, handle ? "" : dlerror());
    pthread_join(constructor_walker.thread, NULL);
    tt_check(constructor_walker.frames > 0, "the first walk, on another thread: %d frames", constructor_walker.frames);
    /* It waits for the walk, unless that outlasts the bound (then none, as documented). */
    tt_check(constructor_frames > 0 || constructor_capture_ns >= TCN_CALLSTACK_WAIT_NS,
             "a capture in a library's constructor during the first walk: %d frames (it took %lld ms)",
             constructor_frames, constructor_capture_ns / 1000000);
    tt_check(capture() > 0, "a capture after the first walk gets frames");
}

/* ---- a fork during the first walk ----------------------------------------------------- */

static atomic_llong released_ns; /* when release_soon let the walk go */

static void *release_soon(void *unused)
{
    (void)unused;
    pause_ms(100);
    atomic_store(&released_ns, tcu_monotonic_ns());
    tt_hold_release(&tt_dl_iterate_phdr_hold);
    return NULL;
}

/* A walk on a new thread, held at its first dl_iterate_phdr call until 100 ms from its
 * hold: a fork meanwhile waits for it (up to the bound). */
static void hold_walk_until_soon(struct walker *w, pthread_t *releaser)
{
    tt_hold_arm(&tt_dl_iterate_phdr_hold);
    pthread_create(&w->thread, NULL, walker_main, w);
    while (!atomic_load(&tt_dl_iterate_phdr_hold.held))
        pause_ms(1);
    pthread_create(releaser, NULL, release_soon, NULL);
}

static void check_fork(void)
{
    struct walker w = {0};
    pthread_t releaser;
    hold_walk_until_soon(&w, &releaser);
    long long start = tcu_monotonic_ns();
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    long long returned = tcu_monotonic_ns(), took = returned - start;
    int released = atomic_load(&tt_dl_iterate_phdr_hold.released);
    long long done = atomic_load(&w.done_ns), released_after = atomic_load(&released_ns) - start;
    int status = 0;
    tt_check(tt_child_ended(child, &status, 20), "the child forked during the first walk ended");
    tt_check(released || took >= TCN_CALLSTACK_WAIT_NS,
             "a fork during another thread's first walk waits for it to end (fork took %lld ms)", took / 1000000);
    /* The whole walk, libunwind's part and the descriptor guard's after it: the fork must
     * not hold the guard's lock while it waits (a walk let go within the bound ends within
     * it; it needs microseconds of CPU). */
    tt_check((done && done <= returned) || !released || released_after >= TCN_CALLSTACK_WAIT_NS,
             "the first walk ended before the fork returned (let go after %lld ms, fork took %lld ms)",
             released_after / 1000000, took / 1000000);
    pthread_join(releaser, NULL);
    pthread_join(w.thread, NULL);
    tt_check(w.frames > 0, "the first walk, held over the fork, ends with frames: %d", w.frames);
}

/* ---- the first walk made by a program's own fork handler ------------------------------- */

static atomic_int prepare_armed;
static int prepare_frames = -1;

/* Registered before the profiler starts, so it runs after the profiler's prepare handlers:
 * the descriptor guard's holds its lock across the fork, and the first walk needs it. */
static void prepare_captures(void)
{
    if (atomic_load(&prepare_armed))
        prepare_frames = capture();
}

static void check_first_walk_in_prepare_handler(void)
{
    atomic_store(&prepare_armed, 1);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    atomic_store(&prepare_armed, 0);
    int status = 0;
    tt_check(tt_child_ended(child, &status, 20), "the child forked in the prepare handler's walk ended");
    tt_check(prepare_frames > 0, "the first walk, in a prepare handler of the program's: %d frames", prepare_frames);
}

/* ---- a fork during another thread's walk through code not seen yet ----------------------- */

static void check_fork_during_walk(void)
{
    tt_check(capture() > 0, "the first walk, before the fork: frames");
    struct walker w = {0};
    pthread_t releaser;
    hold_walk_until_soon(&w, &releaser); /* (walker_main: a return address not seen yet) */
    long long start = tcu_monotonic_ns();
    pid_t child = fork();
    if (child == 0)
        _exit(capture() > 0 ? 0 : 3);
    long long took = tcu_monotonic_ns() - start;
    int released = atomic_load(&tt_dl_iterate_phdr_hold.released);
    /* A child that waits on the lock does so with every signal blocked: killed after 20 s. */
    int status = 0;
    int hung = !tt_child_ended(child, &status, 20);
    tt_check(released || took >= TCN_CALLSTACK_WAIT_NS,
             "a fork during another thread's walk waits for it to end (fork took %lld ms)", took / 1000000);
    /* (A releaser kept off the CPU past the bound lets the fork go with the walk held: then
     * the child may wait forever, as documented, and is not checked.) */
    tt_check(!released || (!hung && WIFEXITED(status) && WEXITSTATUS(status) == 0),
             "the child captures with frames and exits (%s, status %d; 3: no frames)",
             hung ? "deadlocked: killed after 20 s" : "ended", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    pthread_join(releaser, NULL);
    pthread_join(w.thread, NULL);
    tt_check(w.frames > 0, "the walk held over the fork ends with frames: %d", w.frames);
}

int main(int argc, char **argv)
{
    signal(SIGALRM, on_alarm);
    tt_dl_iterate_phdr_find_real();
    alarm(60);
    const char *lib = getenv("FIRST_WALK_LIB");
    const char *mode = argc > 1 ? argv[1] : "constructor";
    int forks = strcmp(mode, "constructor") != 0;
    if (strcmp(mode, "fork-prepare") == 0)
        pthread_atfork(prepare_captures, NULL, NULL);
    if (forks) {
        /* The profiler's own fork handlers (TRACYC_FOLLOW_FORK: the child profiles too). `fork`
         * listens for a server instead of writing a file: opening the file would set the
         * descriptor guard's fork handlers up before the profiler's start does. */
        char out[PATH_MAX];
        if (strcmp(mode, "fork") == 0)
            tt_use_free_port();
        else
            setenv("TRACYC_OUTPUT", tt_temp_path(out, sizeof out, "tracyc-first-walk.txt"), 1);
        setenv("TRACYC_FOLLOW_FORK", "1", 1);
        setenv("TRACY_NO_SAMPLING", "1", 1);
        ___tracy_startup_profiler();
    } else {
        tcn_callstack_init(0);
    }
    if (strcmp(tcn_callstack_unwinder(), "libunwind") != 0) {
        printf("unwinder %s: its first walk is made at start-up: skipped\n", tcn_callstack_unwinder());
        return 77;
    }
    if (strcmp(mode, "fork-prepare") == 0) {
        check_first_walk_in_prepare_handler();
        ___tracy_shutdown_profiler();
    } else if (forks) {
        if (strcmp(mode, "fork") == 0)
            check_fork();
        else
            check_fork_during_walk();
        tt_check(atomic_load(&tt_dl_iterate_phdr_called), "libunwind's walk called dl_iterate_phdr (the hold point)");
        ___tracy_shutdown_profiler();
    } else {
        tt_check(lib != NULL, "FIRST_WALK_LIB names the library");
        if (lib)
            check_constructor(lib);
    }
    return tt_finish("test_callstack_first_walk");
}

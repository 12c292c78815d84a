/* A child followed with TRACYC_FOLLOW_FORK=1 unwinds its samples with an unwinder of its
 * own, made from its own memory map (core/client/sampling.c, tc_sampling_forget_after_fork).
 * The parent's unwinder reads the parent's /proc/<pid>/maps; a child that kept it did not
 * know a library it loaded after the fork, and its samples there stopped at the library.
 *
 * The parent starts the profiler with sampling and its in-process capture (a .folded file),
 * and burns CPU until its sampler has made its unwinder. Its child loads fork_dlopen_lib
 * with dlopen (the parent never does), starts its own profiler and spends its CPU time in
 * the library's function, called from child_calls_library here. Every one of the child's
 * samples in the library must unwind past it to child_calls_library, and there must be
 * such samples.
 */
#include "client/sampling.h"
#include "native/libdw.h"
#include "native/sample_unwind.h"
#include "test_descriptors.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAMPLING_HZ "5000"
#define CHILD_CPU_SECONDS 0.2     /* 1000 samples at 5 kHz, 100 at the default 500 Hz */
#define PARENT_MAX_CPU_SECONDS 30 /* a bound on waiting for the parent's unwinder, not a timing */
#define LIB_FUNCTION "fork_dlopen_lib_spin"
#define CALLER_FUNCTION "child_calls_library"

typedef unsigned long (*lib_spin_fn)(double seconds);

static volatile unsigned long sink;

/* The caller the child's samples in the library must unwind to (a real call: the barrier
 * after it keeps it from becoming a jump). */
__attribute__((noinline)) void child_calls_library(lib_spin_fn spin, double seconds)
{
    sink = spin(seconds);
    __asm__ volatile("" ::: "memory");
}

/* How many descriptors this process holds on its own maps file. */
static int own_maps_open(void)
{
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)getpid());
    return tt_descriptors_on(maps);
}

/* The parent burns CPU until its sampler keeps the unwinder a child could inherit. Seen
 * from here, two descriptors on its maps file: the unwinder's, opened while the sampler
 * makes it (before it keeps it: one alone is not enough), and the resolver's, opened for
 * the first frame to resolve, which here can only be one of a sample the sampler unwound
 * with the unwinder it keeps. */
static int parent_unwinder_made(void)
{
    long long start = tt_thread_cpu_ns();
    while (own_maps_open() < 2) {
        if (tt_thread_cpu_ns() - start > PARENT_MAX_CPU_SECONDS * 1000000000LL)
            return 0;
        tt_burn_cpu_ns(1000000);
    }
    return 1;
}

/* The child: loads the library only now, then profiles (its own profiler, its own sampler)
 * while the library's function burns its CPU. Its profiler's at-exit sends the samples. */
static void child_main(const char *lib_path)
{
    void *lib = dlopen(lib_path, RTLD_NOW);
    lib_spin_fn spin = lib ? (lib_spin_fn)(uintptr_t)dlsym(lib, LIB_FUNCTION) : NULL;
    if (!spin) {
        fprintf(stderr, "child: cannot load %s from %s: %s\n", LIB_FUNCTION, lib_path, dlerror());
        _exit(2);
    }
    ___tracy_startup_profiler();
    child_calls_library(spin, CHILD_CPU_SECONDS);
    exit(0);
}

/* ---- the child's samples in the folded stacks ("program[pid];thread;outer;...;inner N") --- */

struct tally {
    long in_lib, past_lib, child_lines;
};

/* Whether frame `name` is one of the line's frames before `end`; where it is in *at. */
static int has_frame(const char *line, const char *end, const char *name, const char **at)
{
    size_t len = strlen(name);
    for (const char *p = strstr(line, name); p && p < end; p = strstr(p + 1, name))
        if (p > line && p[-1] == ';' && (p[len] == ';' || p[len] == ' ')) {
            *at = p;
            return 1;
        }
    return 0;
}

/* The line's frames past its process, when the process is the child ("program[pid]"). */
static const char *child_frames(const char *line, const char *end, pid_t child)
{
    char suffix[32];
    int len = snprintf(suffix, sizeof suffix, "[%d];", (int)child);
    const char *first = memchr(line, ';', (size_t)(end - line));
    if (!first || first + 1 - line < len || memcmp(first + 1 - len, suffix, (size_t)len) != 0)
        return NULL;
    return first; /* at its ';', as has_frame wants before each frame */
}

static void tally_line(const char *frames, const char *end, struct tally *t)
{
    const char *count = end;
    while (count > frames && count[-1] != ' ')
        count--;
    t->child_lines++;
    const char *lib_at, *caller_at;
    if (!has_frame(frames, count, LIB_FUNCTION, &lib_at))
        return;
    long n = strtol(count, NULL, 10);
    t->in_lib += n;
    if (has_frame(frames, lib_at, CALLER_FUNCTION, &caller_at))
        t->past_lib += n;
    else
        fprintf(stderr, "samples in the library that stop there: %.*s\n", (int)(end - frames), frames);
}

static struct tally tally_child(const char *folded, pid_t child)
{
    struct tally t = {0, 0, 0};
    for (const char *line = folded; line && *line;) {
        const char *end = strchr(line, '\n');
        end = end ? end : line + strlen(line);
        const char *frames = child_frames(line, end, child);
        if (frames)
            tally_line(frames, end, &t);
        line = *end ? end + 1 : end;
    }
    return t;
}

static int skip(const char *why)
{
    printf("test_sampling_fork_dlopen: %s: skipped\n", why);
    return 77;
}

int main(void)
{
    /* A forked child of a process with threads that starts a profiler of its own: neither
     * sanitizer makes that safe (test_children.c says why). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    const int under_sanitizer = 1;
#else
    const int under_sanitizer = 0;
#endif
    if (under_sanitizer)
        return skip("a followed child's profiler under a sanitizer");
    const char *lib_path = getenv("FORK_DLOPEN_LIB");
    if (!lib_path)
        return skip("FORK_DLOPEN_LIB not set (run it with ctest)");
    if (!tt_sampling_expected())
        return skip("perf events not allowed here (perf_event_paranoid)");
    if (!tcn_libdw() || !tcn_sample_regs_mask())
        return skip("no sample unwinder here (libdw or the architecture): the kernel's callchain instead");

    char dir[PATH_MAX], output[PATH_MAX + 16];
    tt_temp_path(dir, sizeof dir, "tracyc-fork-dlopen-XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(output, sizeof output, "%s/out.folded", dir);
    unsetenv("TRACY_NO_EXIT");
    unsetenv("TRACYC_CONNECT");
    unsetenv("TRACY_NO_SAMPLING");
    setenv("TRACYC_OUTPUT", output, 1);
    setenv("TRACYC_FOLLOW_FORK", "1", 1);
    setenv("TRACY_SAMPLING_HZ", SAMPLING_HZ, 1);
    tt_use_free_port();

    ___tracy_startup_profiler();
    if (tc_sampling_unavailable()) {
        printf("%s\n", tc_sampling_unavailable());
        ___tracy_shutdown_profiler();
        return skip("the kernel refused the sampler's events");
    }
    int made = parent_unwinder_made();
    tt_check(made, "the parent's sampler made its unwinder (within %d s of the parent's CPU time)",
             PARENT_MAX_CPU_SECONDS);
    fflush(stdout); /* the child exits through stdio */
    pid_t child = made ? fork() : -1;
    if (child == 0)
        child_main(lib_path);
    int status = -1;
    int waited = child > 0 && tt_child_ended(child, &status, 60);
    tt_check(waited && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits cleanly (status %#x)", status);
    ___tracy_shutdown_profiler();

    char *folded = tt_read_file(output);
    tt_check(folded != NULL, "%s written", output);
    struct tally t = tally_child(folded, child);
    tt_check(t.in_lib > 0,
             "the child's samples in " LIB_FUNCTION ": %ld (of %ld call paths of the child; none means the "
             "sampler got no samples of the child)",
             t.in_lib, t.child_lines);
    tt_check(t.past_lib == t.in_lib, "every one unwinds past the library to " CALLER_FUNCTION ": %ld of %ld",
             t.past_lib, t.in_lib);
    if (tt_failed)
        fprintf(stderr, "%s:\n%s\n", output, folded ? folded : "(none)");
    free(folded);
    unlink(output);
    rmdir(dir);
    return tt_finish("test_sampling_fork_dlopen");
}

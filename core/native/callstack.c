/* callstack.c - the unwinder behind every _callstack/S function (see callstack.h). */
#include "native/callstack.h"

#include "util/fd.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <stddef.h>
#include <stdint.h>

typedef int (*unwind_fn)(void **buffer, int size);

static unwind_fn unwinder;
static const char *unwinder_name = "none";

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

struct warm_up {
    unwind_fn fn;
};

static void warm_up(void *arg)
{
    void *warm[4];
    ((struct warm_up *)arg)->fn(warm, 4);
}

void tcn_callstack_init(void)
{
    if (unwinder)
        return;
    unwind_fn fn = USE_LIBUNWIND ? load_libunwind() : NULL;
    if (fn) {
        unwinder_name = "libunwind";
    } else {
        fn = glibc_backtrace;
        unwinder_name = "backtrace";
    }
    /* The first call loads and initialises the unwinder's own state (glibc's backtrace
     * loads libgcc_s): done here, not on the first event. libunwind opens a pipe then, which
     * it keeps by number (and reopens, closing those numbers, when a read of it fails): it
     * must not land on a number the program uses. */
    tcu_fd_run_above_floor(warm_up, &(struct warm_up){fn});
    unwinder = fn;
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

int tcn_callstack_capture(uint64_t *frames, int32_t depth, const void *caller)
{
    if (depth <= 0 || !unwinder)
        return 0;
    if (depth > TCN_CALLSTACK_MAX)
        depth = TCN_CALLSTACK_MAX;
    void *buf[TCN_CALLSTACK_MAX + OWN_FRAMES_MAX];
    int n = unwinder(buf, depth + OWN_FRAMES + 1);
    int first = find_caller(buf, n, OWN_FRAMES + 1, caller);
    if (first < 0) {
        n = unwinder(buf, depth + OWN_FRAMES_MAX);
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

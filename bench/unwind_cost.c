/* unwind_cost.c - the unwinders a client could take callstacks with, on the same 20-deep
 * chain of calls: cost per frame and how many of the frames each finds.
 *
 *   frame pointers      walking saved frame pointers (needs every function to keep one)
 *   libunwind           nongnu libunwind's unw_backtrace (DWARF CFI, cached per address)
 *   _Unwind_Backtrace   libgcc's unwinder (DWARF CFI, no cache)
 *   glibc backtrace     backtrace(3), which calls libgcc's
 *   sample unwinder     tracyc's unwinder of CPU samples (native/sample_unwind.c) on a copy
 *                       of the registers and 8 KiB of stack, as the kernel gives a sample:
 *                       its own walk with rules cached per address (x86-64), then libdw alone
 *                       (what it was before, and still is for samples the walk leaves)
 *
 * Built twice: without frame pointers (as Debian's libraries and most programs are) and
 * with them. The expected stack is what libunwind and libgcc agree on; each method's
 * "found" column counts the frames it returned that match it.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unwind.h>

#include "native/sample_unwind.h"

#define WANT 16
#define CHAIN 20

typedef int (*unwind_fn)(void **buffer, int size);
typedef _Unwind_Reason_Code (*unwind_backtrace_fn)(_Unwind_Trace_Fn, void *);

static unwind_backtrace_fn gcc_backtrace;

struct walk {
    void **cur, **end;
};

static _Unwind_Reason_Code on_gcc_frame(struct _Unwind_Context *ctx, void *arg)
{
    struct walk *w = arg;
    uintptr_t pc = _Unwind_GetIP(ctx);
    if (pc) {
        if (w->cur == w->end)
            return _URC_END_OF_STACK;
        *w->cur++ = (void *)pc;
    }
    return _URC_NO_REASON;
}

static int gcc_unwind(void **buf, int n)
{
    struct walk w = {buf, buf + n};
    gcc_backtrace(on_gcc_frame, &w);
    return (int)(w.cur - buf);
}

static __attribute__((noinline)) int fp_unwind(void **buf, int n)
{
    void **fp = __builtin_frame_address(0);
    int i = 0;
    while (fp && i < n) {
        void *ra = fp[1];
        if (!ra)
            break;
        buf[i++] = ra;
        void **next = *fp;
        if (next <= fp) /* not a frame chain (a frame without a frame pointer) */
            break;
        fp = next;
    }
    return i;
}

/* A sample of this thread here, as perf would take it: the registers (perf's order) and the
 * stack from the stack pointer up, then unwound as the sampler does. */
static struct tcn_sample_unwinder *sampler;
static int (*sample_unwind_fn)(struct tcn_sample_unwinder *, uint32_t, const uint64_t *, const uint8_t *, size_t,
                               uint64_t *, int);
extern void *__libc_stack_end;

static __attribute__((noinline)) int sample_unwind(void **buf, int n)
{
#if defined(__x86_64__)
    static uint8_t stack[8192];
    uint64_t regs[17] = {0}, frames[WANT + 4];
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(regs[8]), "=r"(regs[7]), "=r"(regs[6]));
    size_t len = (uintptr_t)__libc_stack_end - regs[7];
    if (len > sizeof stack)
        len = sizeof stack;
    memcpy(stack, (const void *)(uintptr_t)regs[7], len);
    int got = sample_unwind_fn(sampler, 0, regs, stack, len, frames, n < WANT + 4 ? n : WANT + 4);
    for (int i = 0; i < got; i++) /* return addresses, as the other methods give them */
        buf[i] = (void *)(uintptr_t)(i ? frames[i] + 1 : frames[i]);
    return got;
#else
    (void)buf;
    (void)n;
    return 0;
#endif
}

static int sample_unwind_walk(void **buf, int n)
{
    sample_unwind_fn = tcn_sample_unwind;
    return sample_unwind(buf, n);
}

static int sample_unwind_libdw(void **buf, int n)
{
    sample_unwind_fn = tcn_sample_unwind_libdw;
    return sample_unwind(buf, n);
}

struct method {
    const char *name;
    unwind_fn fn;
    double ns;
    int frames, found;
};

static struct method methods[] = {
    {"frame pointers", fp_unwind, 0, 0, 0},
    {"libunwind unw_backtrace", NULL, 0, 0, 0},
    {"_Unwind_Backtrace", gcc_unwind, 0, 0, 0},
    {"glibc backtrace", backtrace, 0, 0, 0},
    {"sample unwinder (walk)", sample_unwind_walk, 0, 0, 0},
    {"sample unwinder (libdw)", sample_unwind_libdw, 0, 0, 0},
};
#define METHODS (int)(sizeof methods / sizeof *methods)

static void *result[METHODS][WANT + 4];
static int current;
static long iterations = 100000;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static __attribute__((noinline)) int bottom(void)
{
    struct method *m = &methods[current];
    void *buf[WANT + 4];
    int n = 0;
    double start = now_ns();
    for (long i = 0; i < iterations; i++) {
        n = m->fn(buf, WANT + 1); /* + the frame of bottom() itself */
        __asm__ volatile("" ::"r"(buf) : "memory");
    }
    m->ns = (now_ns() - start) / (double)iterations;
    m->frames = n;
    memcpy(result[current], buf, sizeof(void *) * (size_t)n);
    return n;
}

static __attribute__((noinline)) int chain(int depth)
{
    int r = depth ? chain(depth - 1) : bottom();
    __asm__ volatile("" : "+r"(r));
    return r + 1;
}

/* Whether frame is among a method's frames (methods start at different frames of their
 * own, so positions differ; the callers of bottom() must all be there). */
static int has_frame(int m, const void *frame)
{
    for (int i = 0; i < methods[m].frames; i++)
        if (result[m][i] == frame)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atol(argv[1]);
    void *lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    methods[1].fn = lib ? (unwind_fn)dlsym(lib, "unw_backtrace") : NULL;
    void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_LOCAL);
    gcc_backtrace = gcc ? (unwind_backtrace_fn)dlsym(gcc, "_Unwind_Backtrace") : NULL;
    if (!gcc_backtrace)
        methods[2].fn = NULL;
    sampler = tcn_sample_unwinder_new();
#if defined(__x86_64__)
    if (!sampler)
#endif
        methods[4].fn = methods[5].fn = NULL;
    for (int round = 0; round < 2; round++) /* the first round warms caches up */
        for (current = 0; current < METHODS; current++)
            if (methods[current].fn)
                chain(CHAIN);
    /* The reference stack: libunwind's, else libgcc's. */
    int ref = methods[1].fn ? 1 : 2;
    for (int m = 0; m < METHODS; m++) {
        if (!methods[m].fn)
            continue;
        int found = 0;
        for (int i = 1; i < methods[ref].frames; i++) /* the callers of bottom() */
            found += has_frame(m, result[ref][i]);
        methods[m].found = found;
    }
    printf("unwinding %d frames of a %d-deep call chain, %s frame pointers:\n", WANT, CHAIN,
           FRAME_POINTERS ? "with" : "without");
    printf("  %-26s %10s %12s %8s\n", "method", "ns/call", "ns/frame", "callers found");
    for (int m = 0; m < METHODS; m++) {
        if (!methods[m].fn) {
            printf("  %-26s %10s\n", methods[m].name, "not available");
            continue;
        }
        printf("  %-26s %10.1f %12.1f %5d/%d\n", methods[m].name, methods[m].ns,
               methods[m].ns / (methods[m].frames ? methods[m].frames : 1), methods[m].found, methods[ref].frames - 1);
    }
    if (methods[4].fn && methods[5].fn && methods[4].ns > 0)
        printf("  sample unwinder: its walk %.0f ns a sample, libdw alone (the baseline) %.0f ns: %.2f x\n",
               methods[4].ns, methods[5].ns, methods[5].ns / methods[4].ns);
    tcn_sample_unwinder_free(sampler);
    return 0;
}

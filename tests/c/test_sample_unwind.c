/* test_sample_unwind.c - the sample unwinder's own walk (rules cached per address) gives
 * libdw's frames. Real samples of this thread (perf_event_open with the user registers and
 * stack, as the sampler asks), taken in code of several shapes: deep recursion, libc's qsort
 * calling back, a variable-length array (RBP is the CFA register there), inlined loops, and a
 * signal handler (whose caller libdw must unwind: the signal frame). Each sample is unwound
 * by tcn_sample_unwind and by libdw alone, with the sampler's frame limit and a small one:
 * the frames must be the same, and most samples must have taken the unwinder's own walk.
 */
#include "native/sample_unwind.h"
#include "test_util.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define STACK_BYTES 8192
#define MAX_FRAMES 128 /* the sampler's */
#define RING_PAGES 128
#define WANT_PER_SHAPE 600

static volatile uint64_t sink;

/* Shapes of code to be sampled in. */
static __attribute__((noinline)) uint64_t leaf_work(uint64_t x)
{
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static __attribute__((noinline)) uint64_t recurse(int depth, uint64_t x)
{
    uint64_t r = depth ? recurse(depth - 1, x ^ (uint64_t)depth) : leaf_work(x);
    __asm__ volatile("" : "+r"(r));
    return r + 1;
}

static int compare(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    for (int i = 0; i < 20; i++) /* slow enough to be sampled here often */
        __asm__ volatile("" : "+r"(x), "+r"(y));
    return x < y ? -1 : x > y;
}

static __attribute__((noinline)) uint64_t sort_work(uint64_t seed)
{
    uint64_t a[512];
    for (int i = 0; i < 512; i++)
        a[i] = seed = seed * 6364136223846793005ull + 1;
    qsort(a, 512, sizeof *a, compare);
    return a[7];
}

static __attribute__((noinline)) uint64_t vla_work(int n, uint64_t x)
{
    volatile uint64_t v[n];
    for (int i = 0; i < n; i++)
        v[i] = x + (uint64_t)i;
    uint64_t r = 0;
    for (int k = 0; k < 50; k++)
        for (int i = 0; i < n; i++)
            r = r * 31 + v[i];
    return r + leaf_work(r);
}

static inline __attribute__((always_inline)) uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    return x ^ (x >> 29);
}

static inline __attribute__((always_inline)) uint64_t mix_rounds(uint64_t x, int n)
{
    for (int i = 0; i < n; i++)
        x = mix(x + (uint64_t)i);
    return x;
}

static __attribute__((noinline)) uint64_t inline_work(uint64_t x)
{
    for (int i = 0; i < 200; i++)
        x = mix_rounds(x, 10) + mix(x);
    return x;
}

static atomic_int in_handler;

static void on_signal(int sig)
{
    (void)sig;
    for (int i = 0; i < 50; i++) /* most of the shape's time, for samples to fall in */
        sink += recurse(5, sink);
    atomic_store(&in_handler, 1);
}

static __attribute__((noinline)) uint64_t signal_work(uint64_t x)
{
    raise(SIGUSR1);
    return x + sink;
}

/* The samples, read from the ring. */
struct ring {
    struct perf_event_mmap_page *meta;
    uint8_t *data;
    size_t size;
    int fd;
};

static int ring_open(struct ring *r)
{
    struct perf_event_attr a = {0};
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = 100000; /* every 100 us of this thread's CPU time */
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = tcn_sample_regs_mask();
    a.sample_stack_user = STACK_BYTES;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    r->fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (r->fd < 0)
        return -1;
    long page = sysconf(_SC_PAGESIZE);
    r->size = (size_t)page * RING_PAGES;
    void *m = mmap(NULL, (size_t)page + r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
    if (m == MAP_FAILED) {
        close(r->fd);
        return -1;
    }
    r->meta = m;
    r->data = (uint8_t *)m + page;
    return 0;
}

struct tally {
    long samples, frames, compared, differ;
};

static struct tcn_sample_unwinder *unwinder;

static void compare_ways(const uint64_t *regs, const uint8_t *stack, size_t len, int max, struct tally *t)
{
    uint64_t fast[MAX_FRAMES], slow[MAX_FRAMES];
    pid_t tid = gettid();
    int n = tcn_sample_unwind(unwinder, (uint32_t)tid, regs, stack, len, fast, max);
    int m = tcn_sample_unwind_libdw(unwinder, (uint32_t)tid, regs, stack, len, slow, max);
    t->compared++;
    if (max == MAX_FRAMES)
        t->frames += m;
    if (n != m || memcmp(fast, slow, sizeof *fast * (size_t)n) != 0) {
        if (t->differ++ < 2) {
            fprintf(stderr, "differ (max %d): %d frames against libdw's %d\n", max, n, m);
            for (int i = 0; i < n || i < m; i++)
                fprintf(stderr, "  %2d %#18llx %#18llx\n", i, i < n ? (unsigned long long)fast[i] : 0ull,
                        i < m ? (unsigned long long)slow[i] : 0ull);
        }
    }
}

/* Unwinds every sample in the ring (copied out first: records wrap around its end). */
static void ring_drain(struct ring *r, struct tally *t)
{
    static uint8_t rec[65536];
    uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE), tail = r->meta->data_tail;
    int nregs = __builtin_popcountll(tcn_sample_regs_mask());
    tcn_sample_unwinder_sync(unwinder);
    while (tail < head) {
        struct perf_event_header h;
        for (size_t i = 0; i < sizeof h; i++)
            ((uint8_t *)&h)[i] = r->data[(tail + i) % r->size];
        if (h.size < sizeof h)
            break;
        for (size_t i = 0; i < h.size; i++)
            rec[i] = r->data[(tail + i) % r->size];
        tail += h.size;
        if (h.type != PERF_RECORD_SAMPLE)
            continue;
        /* pid, tid; abi, regs; size, data, dyn_size */
        const uint8_t *p = rec + sizeof h + 8, *end = rec + h.size;
        uint64_t abi, regs[64], size, dyn;
        memcpy(&abi, p, 8);
        p += 8;
        if (abi == PERF_SAMPLE_REGS_ABI_NONE || end - p < nregs * 8 + 8)
            continue;
        memcpy(regs, p, (size_t)nregs * 8);
        p += nregs * 8;
        memcpy(&size, p, 8);
        p += 8;
        if ((uint64_t)(end - p) < size + (size ? 8 : 0))
            continue;
        dyn = 0;
        if (size)
            memcpy(&dyn, p + size, 8);
        if (dyn > size)
            dyn = size;
        t->samples++;
        compare_ways(regs, p, dyn, MAX_FRAMES, t);
        compare_ways(regs, p, dyn, 4, t);
    }
    __atomic_store_n(&r->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static void run_shape(struct ring *r, const char *name, uint64_t (*work)(uint64_t))
{
    struct tally t = {0};
    unsigned long fast0, slow0, fast1, slow1;
    tcn_sample_unwinder_counts(unwinder, &fast0, &slow0);
    /* The signal shape goes on until a sample falls under the signal frame (the rest of the
     * thread's time, reading the ring and unwinding, is sampled too: slow under ASan). */
    int signal = strcmp(name, "signal") == 0;
    for (uint64_t i = 0; t.samples < WANT_PER_SHAPE || (signal && t.samples < 50 * WANT_PER_SHAPE); i++) {
        sink += work(i);
        ring_drain(r, &t);
        tcn_sample_unwinder_counts(unwinder, &fast1, &slow1);
        if (t.samples >= WANT_PER_SHAPE && slow1 > slow0)
            break;
    }
    tcn_sample_unwinder_counts(unwinder, &fast1, &slow1);
    unsigned long fast = fast1 - fast0, slow = slow1 - slow0;
    printf("%-10s %ld samples (%.1f frames each), unwound %ld times: %lu by the unwinder's walk, %lu by libdw\n", name,
           t.samples, t.samples ? (double)t.frames / (double)t.samples : 0.0, t.compared, fast, slow);
    tt_check(t.differ == 0, "%s: %ld of %ld unwinds differ from libdw's", name, t.differ, t.compared);
    /* Signal handlers are libdw's (the signal frame); every other shape mostly the walk's. */
    if (!signal)
        tt_check(fast > slow, "%s: most samples unwound by the walk (%lu of %lu)", name, fast, fast + slow);
    else
        tt_check(slow > 0, "signal: samples under a signal frame unwound by libdw (%lu)", slow);
}

static uint64_t recursion_shape(uint64_t i)
{
    return recurse(150 + (int)(i % 100), i);
}

static uint64_t qsort_shape(uint64_t i)
{
    return sort_work(i);
}

static uint64_t vla_shape(uint64_t i)
{
    return vla_work(64 + (int)(i % 64), i);
}

static uint64_t signal_shape(uint64_t i)
{
    return signal_work(i);
}

int main(void)
{
#if !defined(__x86_64__)
    printf("SKIP: the unwinder's own walk is for x86-64\n");
    return 77;
#else
    unwinder = tcn_sample_unwinder_new();
    if (!unwinder) {
        printf("SKIP: libdw cannot be loaded\n");
        return 77;
    }
    struct ring r;
    if (ring_open(&r) != 0) {
        printf("SKIP: perf_event_open refused here (%s)%s\n", strerror(errno),
               tt_sampling_expected() ? "" : ": perf_event_paranoid");
        tcn_sample_unwinder_free(unwinder);
        return 77;
    }
    signal(SIGUSR1, on_signal);
    run_shape(&r, "recursion", recursion_shape);
    run_shape(&r, "qsort", qsort_shape);
    run_shape(&r, "vla", vla_shape);
    run_shape(&r, "inline", inline_work);
    run_shape(&r, "signal", signal_shape);
    tt_check(atomic_load(&in_handler) == 1, "the signal handler ran");
    close(r.fd);
    tcn_sample_unwinder_free(unwinder);
    return tt_finish("test_sample_unwind");
#endif
}

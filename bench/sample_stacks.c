/* sample_stacks.c - how right the callstacks of CPU samples are, with libdw (DWARF unwinding
 * of the copied user stack) and without it (--no-libdw: the kernel's frame-pointer
 * callchain), on code built with or without frame pointers (bench/CMakeLists.txt builds
 * this file three ways: without, with, and with a leaf function that has a frame). A thread spins in worker_main -> level1 -> level2 -> level3 for a
 * second, sampled at 2 kHz; each of its samples is checked against those functions' extents
 * (dladdr: they are exported). Prints, per sample: the share whose callers are all right,
 * cut short (right as far as they go) and wrong (a frame that is not the caller), frames
 * outside any loaded file, and the sampler thread's CPU time per sample.
 */
#include "native/libdw.h"
#include "raw_server.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/bytes.h"
#include "wire/protocol.h"

#include <dirent.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic int spinning = 1;
static _Atomic uint64_t sink;
static _Atomic uint32_t worker_tid;

/* The innermost function: a leaf that needs no stack, whose frame compilers leave out even
 * with -fno-omit-frame-pointer, or (FRAMED_LEAF) one that keeps its variable on the stack. */
__attribute__((noinline)) void level3(uint64_t n)
{
#if FRAMED_LEAF
    volatile uint64_t x = n;
#else
    uint64_t x = n;
#endif
    for (uint64_t i = 0; i < n; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    atomic_store_explicit(&sink, x, memory_order_relaxed);
}

__attribute__((noinline)) void level2(uint64_t n)
{
    level3(n);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void level1(uint64_t n)
{
    level2(n);
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void *worker_main(void *arg)
{
    (void)arg;
    atomic_store(&worker_tid, (uint32_t)syscall(SYS_gettid));
    while (atomic_load_explicit(&spinning, memory_order_relaxed))
        level1(100000);
    return NULL;
}

static int in_file(uint64_t address)
{
    Dl_info info;
    return dladdr((void *)(uintptr_t)address, &info) != 0;
}

/* CPU time of the thread named `name`, in ns (/proc/self/task/TID/schedstat). */
static double thread_cpu_ns(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    double ns = 0;
    while (d && (e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (!fgets(comm, sizeof comm, f))
            comm[0] = 0;
        fclose(f);
        comm[strcspn(comm, "\n")] = 0;
        if (strcmp(comm, name) != 0)
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        f = fopen(path, "r");
        if (f) {
            if (fscanf(f, "%lf", &ns) != 1)
                ns = 0;
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    return ns;
}

int main(int argc, char **argv)
{
    int no_libdw = argc > 1 && strcmp(argv[1], "--no-libdw") == 0;
    const char *build = argc > 2 ? argv[2] : "";
    if (no_libdw)
        tcn_libdw_use_for_tests("libtracyc-bench-no-libdw.so.1");
    unsetenv("DEBUGINFOD_URLS");
    setenv("TRACY_SAMPLING_HZ", "2000", 1);
    setenv("TRACY_NO_CONTEXT_SWITCH", "1", 1);
    char port_text[16];
    uint16_t port = (uint16_t)(20000 + getpid() % 20000);
    snprintf(port_text, sizeof port_text, "%u", port);
    setenv("TRACY_PORT", port_text, 1);
    static struct tr_server srv;
    ___tracy_startup_profiler();
    if (tr_connect(&srv, port, 10) != 0) {
        printf("no connection\n");
        return 1;
    }
    int64_t period;
    memcpy(&period, srv.welcome + TCW_WELCOME_SAMPLING, 8);
    if (period == 0) {
        printf("%-28s sampling unavailable here (perf_event_paranoid)\n", build);
        tr_finish(&srv, 5);
        ___tracy_shutdown_profiler();
        return 0;
    }
    double cpu0 = thread_cpu_ns("tracyc sampler");
    pthread_t t;
    pthread_create(&t, NULL, worker_main, NULL);
    struct timespec run = {1, 0};
    nanosleep(&run, NULL);
    atomic_store(&spinning, 0);
    pthread_join(t, NULL);
    for (int i = 0; i < 5; i++)
        tr_pump(&srv, 100);
    double cpu1 = thread_cpu_ns("tracyc sampler");

    struct tt_extent expected[4] = {tt_function_extent((void *)level3), tt_function_extent((void *)level2),
                                    tt_function_extent((void *)level1), tt_function_extent((void *)worker_main)};
    uint32_t tid = atomic_load(&worker_tid);
    size_t pos = 0, samples = 0, mine = 0, right = 0, short_ = 0, wrong = 0, frames = 0, outside = 0;
    struct tr_item it;
    uint64_t payload[128];
    int count = 0;
    while (tr_next(&srv, &pos, &it)) {
        if (it.type == TCW_CallstackPayload) {
            count = tcu_rd16(it.p + 9) / 8;
            if (count > 128)
                count = 128;
            for (int i = 0; i < count; i++)
                payload[i] = tcu_rd64(it.p + 11 + 8 * i);
        } else if (it.type == TCW_CallstackSample || it.type == TCW_CallstackSample16 ||
                   it.type == TCW_CallstackSample32) {
            samples++;
            if (tcu_rd32(it.p + 1) != tid || count == 0 || payload[0] < expected[0].lo || payload[0] >= expected[0].hi)
                continue; /* another thread, or not in the innermost function */
            mine++;
            frames += (size_t)count;
            int good = 1;
            for (int k = 1; k < 4 && good; k++) {
                if (k >= count) {
                    short_++;
                    good = 0;
                } else if (payload[k] < expected[k].lo || payload[k] >= expected[k].hi) {
                    wrong++;
                    good = 0;
                }
            }
            right += good;
            for (int i = 1; i < count; i++)
                outside += !in_file(payload[i]);
        }
    }
    double n = mine ? (double)mine : 1;
    printf("%-28s %s: %zu samples in level3, callers right %.1f %%, cut short %.1f %%, wrong %.1f %%; "
           "%.1f frames a sample, %zu outside any file; sampler %.1f us a sample\n",
           build, no_libdw ? "frame-pointer chain (no libdw)" : "DWARF (libdw)        ", mine, 100 * right / n,
           100 * short_ / n, 100 * wrong / n, frames / n, outside, samples ? (cpu1 - cpu0) / 1e3 / samples : 0.0);
    tr_finish(&srv, 10);
    ___tracy_shutdown_profiler();
    tr_free(&srv);
    return 0;
}

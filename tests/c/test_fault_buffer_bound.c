/* With no server, events past TRACYC_BUFFER_LIMIT: the memory kept for them never
 * exceeds the stated worst case, the limit plus TC_BUFFER_RESERVE, whatever the events.
 *
 * Each case runs in a fresh process (this program re-executed with the case's name),
 * with a 1 MiB limit and nobody connecting, so nothing is ever drained:
 *   mixed     zone begins, texts and ends of mixed sizes (regression: a zone end forced
 *             past the limit got a 4 KiB chunk that the next begins and texts filled,
 *             so memory grew by a chunk every hundred zones, without bound);
 *   nested    20000 zones opened under the limit and ended past it (their ends took a
 *             forced chunk each 256, without bound);
 *   fibers    fiber switches past the limit (forced records, without bound);
 *   threads   threads that start past the limit (each took a 128 KiB first chunk);
 *   images    frame images (their pixels were not counted at all);
 *   payloads  zones with allocated source locations (the payloads were not counted).
 * The bound is checked on the budget's high-water mark, and on the process's resident
 * memory where no sanitizer inflates it. */
#include "client/stream.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

#define LIMIT ((size_t)1 << 20)

static const struct ___tracy_source_location_data loc = {"bounded", "main", "buffer_bound.c", 1, 0};

/* Records until the first drop. */
static void fill_to_limit(void)
{
    uint64_t dropped = tracyc_dropped_events();
    while (tracyc_dropped_events() == dropped)
        ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 20, "filling the buffers.");
}

static void mixed(void)
{
    for (int i = 0; i < 1000000; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_text(z, "nine char", 9); /* 32 bytes: begin+text+end = 72 */
        ___tracy_emit_zone_end(z);
    }
}

static void nested(void)
{
    enum { DEPTH = 20000 };
    static TracyCZoneCtx zones[DEPTH];
    for (int i = 0; i < DEPTH; i++)
        zones[i] = ___tracy_emit_zone_begin(&loc, 1);
    tt_check(zones[DEPTH - 1].active, "nested: %d zones open under the limit", DEPTH);
    fill_to_limit();
    for (int i = DEPTH - 1; i >= 0; i--)
        ___tracy_emit_zone_end(zones[i]);
}

static void fibers(void)
{
    fill_to_limit();
    for (int i = 0; i < 200000; i++) {
        ___tracy_fiber_enter("fiber");
        ___tracy_fiber_leave();
    }
}

static void *thread_main(void *arg)
{
    (void)arg;
    ___tracy_emit_zone_end(___tracy_emit_zone_begin(&loc, 1));
    return NULL;
}

static void threads(void)
{
    fill_to_limit();
    for (int i = 0; i < 64; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, thread_main, NULL) == 0)
            pthread_join(t, NULL);
    }
}

static void images(void)
{
    static uint8_t rgba[512 * 256 * 4]; /* 64 KiB once compressed */
    for (int i = 0; i < 200; i++)
        ___tracy_emit_frame_image(rgba, 512, 256, 0, 0);
}

static void payloads(void)
{
    static char name[1000];
    memset(name, 'n', sizeof name);
    for (int i = 0; i < 20000; i++) {
        uint64_t srcloc = ___tracy_alloc_srcloc_name(1, "bound.c", 7, "payloads", 8, name, sizeof name, 0);
        ___tracy_emit_zone_end(___tracy_emit_zone_begin_alloc(srcloc, 1));
    }
}

struct bound_case {
    const char *name;
    void (*run)(void);
};

static const struct bound_case cases[] = {
    {"mixed", mixed},     {"nested", nested}, {"fibers", fibers},
    {"threads", threads}, {"images", images}, {"payloads", payloads},
};
#define NCASES (sizeof cases / sizeof cases[0])

static int run_case(const struct bound_case *bc)
{
    tt_use_free_port(); /* nobody connects to it */
    setenv("TRACYC_BUFFER_LIMIT", "1M", 1);
    ___tracy_startup_profiler();
    size_t rss_before = tt_rss_bytes();
    bc->run();
    size_t rss_after = tt_rss_bytes(), peak = atomic_load(&tc_buffer_peak);
    tt_check(peak <= LIMIT + TC_BUFFER_RESERVE, "%s: buffers peaked at %zu bytes, the limit %zu + the reserve %zu",
             bc->name, peak, LIMIT, TC_BUFFER_RESERVE);
    tt_check(tracyc_dropped_events() > 0, "%s: %llu events dropped", bc->name,
             (unsigned long long)tracyc_dropped_events());
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__) /* shadow memory, quarantine */
    tt_check(rss_after - rss_before < LIMIT + TC_BUFFER_RESERVE + ((size_t)8 << 20),
             "%s: resident memory grew by %zu KiB", bc->name, (rss_after - rss_before) >> 10);
#else
    (void)rss_before, (void)rss_after;
#endif
    ___tracy_shutdown_profiler();
    return tt_finish(bc->name);
}

static int spawn_case(const struct bound_case *bc)
{
    char *argv[] = {"/proc/self/exe", (char *)bc->name, NULL};
    pid_t pid;
    int status;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0 || !tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S))
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (size_t i = 0; i < NCASES; i++)
            if (strcmp(argv[1], cases[i].name) == 0)
                return run_case(&cases[i]);
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    for (size_t i = 0; i < NCASES; i++)
        tt_check(spawn_case(&cases[i]) == 0, "%s in a process of its own", cases[i].name);
    return tt_finish("test_fault_buffer_bound");
}

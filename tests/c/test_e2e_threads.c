/* End to end: 8 threads x 100,000 nested zones each, recorded before the server
 * connects (late connect) and while it is connected; every count exact, nesting per
 * thread intact, threads that exited lose nothing. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define ZONES 100000
#define SINGLES (ZONES / 2 / 5) /* the extra single-level zones per thread */

static const struct ___tracy_source_location_data outer_loc = {"outer", "worker", "threads.c", 1, 0};
static const struct ___tracy_source_location_data inner_loc = {"inner", "worker", "threads.c", 2, 0};

/* The current wave's progress, for the report of a phase that overruns: each worker's
 * iterations done (ZONES / 2 when it has finished). */
static int done[THREADS];
static struct tt_capture *cap;

static void describe(FILE *out, void *user)
{
    (void)user;
    for (int i = 0; i < THREADS; i++)
        fprintf(out, "worker %d: %d of %d iterations\n", i, __atomic_load_n(&done[i], __ATOMIC_RELAXED), ZONES / 2);
    /* (not ___tracy_connected(): it may start the profiler, and take its locks) */
    fprintf(out, "client: %llu events dropped\n", (unsigned long long)tracyc_dropped_events());
    struct tt_capture *c = __atomic_load_n(&cap, __ATOMIC_ACQUIRE);
    if (c)
        tt_capture_describe(out, c);
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    char name[32];
    snprintf(name, sizeof name, "worker %d", me);
    ___tracy_set_thread_name(name);
    for (int i = 0; i < ZONES / 2; i++) {
        TracyCZoneCtx outer = ___tracy_emit_zone_begin(&outer_loc, 1);
        TracyCZoneCtx inner = ___tracy_emit_zone_begin(&inner_loc, 1);
        /* Texts of varying length move the records across buffer chunk boundaries at
         * every possible offset, including right after an unpublished zone begin. */
        if (i % 7 == 0)
            ___tracy_emit_zone_text(inner, "0123456789abcdef", (size_t)(i % 17));
        ___tracy_emit_zone_end(inner);
        ___tracy_emit_zone_end(outer);
        if (i % 5 == 0) {
            TracyCZoneCtx single = ___tracy_emit_zone_begin(&outer_loc, 1);
            ___tracy_emit_zone_end(single);
        }
        __atomic_store_n(&done[me], i + 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void run_workers(void)
{
    for (int i = 0; i < THREADS; i++)
        __atomic_store_n(&done[i], 0, __ATOMIC_RELAXED);
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    /* Each phase is bounded, for a machine under load and a sanitizer: the test takes half a
     * minute under TSan, 90 s there beside other load (the shutdown 40 s, the join 22 s, the
     * checks 19 s): the limits are hang guards, well above that. */
    tt_phase_describe(describe, NULL);
    tt_phase("running the first wave of workers, no server yet; they exit before it connects", 120);
    run_workers();
    tt_phase("running the second wave while (or before) the capture connects", 120);
    __atomic_store_n(&cap, tt_capture_start(port), __ATOMIC_RELEASE);
    run_workers();
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase("checking the 3.5 million events captured, then freeing them", 120);
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);

    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 2 * THREADS * (ZONES + SINGLES));
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 2 * THREADS * (ZONES + SINGLES));
    /* Per thread: begins and ends alternate as outer, inner, end, end. */
    struct {
        uint32_t tid;
        int depth, bad, named;
        size_t zones;
    } seen[2 * THREADS];
    size_t nseen = 0;
    memset(seen, 0, sizeof seen);
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *e = &cap->events[i].ev;
        if (e->kind != TCD_ZONE_BEGIN && e->kind != TCD_ZONE_END)
            continue;
        size_t k = 0;
        while (k < nseen && seen[k].tid != e->thread)
            k++;
        if (k == nseen && nseen < 2 * THREADS)
            seen[nseen++].tid = e->thread;
        if (k >= 2 * THREADS)
            continue;
        if (e->kind == TCD_ZONE_BEGIN) {
            const struct tcd_srcloc *s = tcd_srcloc(cap->dec, e->srcloc);
            seen[k].bad += strcmp(s->name, seen[k].depth == 0 ? "outer" : "inner") != 0;
            seen[k].depth++;
            seen[k].zones++;
        } else {
            seen[k].bad += seen[k].depth == 0;
            seen[k].depth--;
        }
    }
    CHECK_EQ_INT(nseen, 2 * THREADS);
    for (size_t k = 0; k < nseen; k++) {
        CHECK_EQ_INT(seen[k].zones, ZONES + SINGLES);
        CHECK_EQ_INT(seen[k].bad, 0);
        CHECK_EQ_INT(seen[k].depth, 0);
        CHECK(strncmp(tcd_thread_name(cap->dec, seen[k].tid), "worker ", 7) == 0);
    }
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    tt_phase_done();
    return tt_finish("test_e2e_threads");
}

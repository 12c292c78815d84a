/* test_ffi_shim.c - the flat API (tracyc_ffi.h) from the static library, end to end:
 * threads register source locations (across several table chunks) while they and the
 * others begin and end zones by id; every zone must arrive with its own source location. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc_ffi.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define PER_THREAD 300 /* 1200 entries: five 256-entry chunks */

static uint32_t ids[THREADS][PER_THREAD];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    char name[32];
    int len = snprintf(name, sizeof name, "shim worker %d", t);
    tracyc_ffi_thread_name(name, (size_t)len);
    uint32_t plot = tracyc_ffi_name_register(name, (size_t)len);
    for (int i = 0; i < PER_THREAD; i++) {
        len = snprintf(name, sizeof name, "t%d-%d", t, i);
        ids[t][i] = tracyc_ffi_srcloc_register(name, (size_t)len, "worker", 6, "test_ffi_shim.c", 15, (uint32_t)i, 0);
        uint64_t zone = tracyc_ffi_zone_begin(ids[t][i]);
        tracyc_ffi_zone_value(zone, (uint64_t)i);
        tracyc_ffi_zone_end(zone);
        tracyc_ffi_plot_int(plot, i);
    }
    return NULL;
}

static void check_ids(void)
{
    static unsigned char seen[THREADS * PER_THREAD + 2];
    int ok = 1;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            uint32_t id = ids[t][i];
            ok &= id >= 2 && id <= THREADS * PER_THREAD + 1 && !seen[id]; /* 1 is the unnamed srcloc */
            if (id <= THREADS * PER_THREAD + 1)
                seen[id] = 1;
        }
    CHECK(ok);
}

static void check_zones(const struct tt_capture *c)
{
    static unsigned char seen[THREADS][PER_THREAD];
    size_t matched = 0;
    for (size_t n = 0; n < c->len; n++) {
        const struct tcd_event *e = &c->events[n].ev;
        int t, i;
        if (e->kind != TCD_ZONE_BEGIN || sscanf(tcd_srcloc(c->dec, e->srcloc)->name, "t%d-%d", &t, &i) != 2)
            continue;
        char thread[32];
        snprintf(thread, sizeof thread, "shim worker %d", t);
        if (t >= 0 && t < THREADS && i >= 0 && i < PER_THREAD && !seen[t][i] &&
            strcmp(tcd_thread_name(c->dec, e->thread), thread) == 0 &&
            tcd_srcloc(c->dec, e->srcloc)->line == (uint32_t)i) {
            seen[t][i] = 1;
            matched++;
        }
    }
    CHECK_EQ_INT(matched, THREADS * PER_THREAD);
    CHECK_EQ_INT(tt_count(c, TCD_ZONE_END), THREADS * PER_THREAD + 1);
    CHECK_EQ_INT(tt_count(c, TCD_PLOT), THREADS * PER_THREAD);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);

    /* Handle 0, unknown ids and empty names are ignored, never crash. */
    CHECK_EQ_INT(tracyc_ffi_zone_begin(0), 0);
    CHECK_EQ_INT(tracyc_ffi_zone_begin(12345), 0);
    CHECK_EQ_INT(tracyc_ffi_name_register("", 0), 0);
    tracyc_ffi_zone_end(0);
    tracyc_ffi_plot(0, 1.0);
    tracyc_ffi_frame_mark_start(0);

    /* Without a name, the zone is named after its function. */
    uint32_t unnamed = tracyc_ffi_srcloc_register(NULL, 0, "unnamed_fn", 10, "test_ffi_shim.c", 15, 1, 0);
    uint64_t zone = tracyc_ffi_zone_begin(unnamed);
    CHECK(zone != 0);
    tracyc_ffi_zone_end(zone);
    tracyc_ffi_frame_mark(0);

    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t);
    tt_phase("joining the threads that record zones and plots", 120);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    tt_phase_done();
    check_ids();

    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    int rc = tt_capture_join(cap);
    tt_phase_done();
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "capture: %s\n", cap->err);
    int unnamed_found = 0;
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *e = &cap->events[i].ev;
        const struct tcd_srcloc *s = e->kind == TCD_ZONE_BEGIN ? tcd_srcloc(cap->dec, e->srcloc) : NULL;
        unnamed_found += s && strcmp(s->function, "unnamed_fn") == 0 && strcmp(s->name, "") == 0;
    }
    CHECK_EQ_INT(unnamed_found, 1);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_MARK), 1);
    check_zones(cap);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);

    /* The name table takes ids up to TRACYC_FFI_MAX_IDS, then refuses. */
    uint32_t last = 0, id;
    int in_order = 1;
    while ((id = tracyc_ffi_name_register("filler", 6)) != 0) {
        in_order &= id == last + 1 || last == 0;
        last = id;
    }
    CHECK(in_order);
    CHECK_EQ_INT(last, TRACYC_FFI_MAX_IDS);
    CHECK_EQ_INT(tracyc_ffi_name_register("one more", 8), 0);
    return tt_finish("test_ffi_shim");
}

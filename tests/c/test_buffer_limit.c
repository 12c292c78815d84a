/* With no server connected, memory stays within TRACYC_BUFFER_LIMIT: past it events
 * are dropped and counted, zones stay balanced, and the count reaches the server. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>

static const struct ___tracy_source_location_data loc = {"limited", "main", "limit.c", 1, 0};

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    setenv("TRACYC_BUFFER_LIMIT", "4M", 1);
    ___tracy_startup_profiler();
    size_t rss_before = tt_rss_bytes();
    const int pairs = 2000000; /* ~80 MB of records: far past the limit */
    TracyCZoneCtx outer = ___tracy_emit_zone_begin(&loc, 1);
    for (int i = 0; i < pairs; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
    ___tracy_emit_zone_end(outer);
    size_t rss_after = tt_rss_bytes();
    uint64_t dropped = tracyc_dropped_events();
    CHECK(dropped > 0);
    /* Bounded: the limit plus a fixed overhead, nowhere near the 80 MB recorded.
     * (ThreadSanitizer's shadow memory multiplies RSS, so the figure means nothing there.) */
#ifndef __SANITIZE_THREAD__
    CHECK(rss_after - rss_before < (size_t)12 << 20);
#endif
    printf("dropped %llu of %d zones; rss grew by %zu KiB with a 4 MiB limit\n", (unsigned long long)dropped, pairs,
           (rss_after - rss_before) >> 10);

    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    size_t begins = tt_count(cap, TCD_ZONE_BEGIN), ends = tt_count(cap, TCD_ZONE_END);
    CHECK_EQ_INT(begins, ends);
    CHECK_EQ_INT(begins + dropped, (uint64_t)pairs + 1);
    /* The count arrives as a message and as the decoder's dropped counter. */
    const struct tcd_event *d = tt_nth(cap, TCD_DROPPED, tt_count(cap, TCD_DROPPED) - 1);
    CHECK(d && d->value == dropped);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_buffer_limit");
}

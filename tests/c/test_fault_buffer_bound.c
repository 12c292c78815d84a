/* With no server, records of mixed sizes past TRACYC_BUFFER_LIMIT: the buffers stay at
 * the limit. (Regression: a zone end forced past the limit got a 4 KiB chunk, and the
 * zone begins and texts that followed filled it instead of being dropped, so memory grew
 * by a chunk every hundred zones, without bound.) */
#include "client/stream.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>

#define LIMIT ((size_t)1 << 20)
#define ZONES 1000000

static const struct ___tracy_source_location_data loc = {"bounded", "main", "buffer_bound.c", 1, 0};

int main(void)
{
    tt_use_free_port(); /* nobody connects to it */
    setenv("TRACYC_BUFFER_LIMIT", "1M", 1);
    ___tracy_startup_profiler();
    size_t rss_before = tt_rss_bytes();
    uint64_t recorded = 0;
    for (int i = 0; i < ZONES; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        recorded += z.active != 0;
        ___tracy_emit_zone_text(z, "nine char", 9); /* 32 bytes: begin+text+end = 72 */
        ___tracy_emit_zone_end(z);
    }
    size_t buffered = atomic_load(&tc_buffer_bytes), rss_after = tt_rss_bytes();
    /* The limit, plus one small chunk for the ends of zones already recorded. */
    CHECK(buffered <= LIMIT + 4096 + 64);
#ifndef __SANITIZE_THREAD__
    CHECK(rss_after - rss_before < LIMIT + ((size_t)8 << 20));
#else
    (void)rss_before, (void)rss_after; /* shadow memory makes RSS meaningless under TSan */
#endif
    CHECK(recorded < ZONES);
    CHECK(tracyc_dropped_events() >= ZONES - recorded);
    printf("%d zones: %llu recorded, %llu events dropped; %zu bytes buffered with a limit of %zu\n", ZONES,
           (unsigned long long)recorded, (unsigned long long)tracyc_dropped_events(), buffered, LIMIT);
    ___tracy_shutdown_profiler();
    return tt_finish("test_fault_buffer_bound");
}

/* A server that goes away mid-stream never blocks or crashes the program, and a new
 * server can connect afterwards: zones open across the switch do not corrupt it. */
#include "test_capture.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"tick", "main", "reconnect.c", 1, 0};
static const struct ___tracy_source_location_data span_loc = {"span", "main", "reconnect.c", 2, 0};

static void tick(int n)
{
    for (int i = 0; i < n; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
}

static void wait_connected(int want)
{
    for (int i = 0; i < 5000 && ___tracy_connected() != want; i++)
        usleep(1000);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    struct tt_capture *first = tt_capture_start(port);
    wait_connected(1);
    CHECK_EQ_INT(___tracy_connected(), 1);
    TracyCZoneCtx span = ___tracy_emit_zone_begin(&span_loc, 1); /* open across the switch */
    tick(1000);
    usleep(100000);
    __atomic_store_n(&first->stop, 1, __ATOMIC_RELAXED); /* the first server leaves */
    CHECK_EQ_INT(tt_capture_join(first), 1);
    wait_connected(0);
    CHECK_EQ_INT(___tracy_connected(), 0);
    tick(1000); /* kept for the next server */
    struct tt_capture *second = tt_capture_start(port);
    wait_connected(1);
    tick(1000);
    ___tracy_emit_zone_end(span);
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(tt_capture_join(second), 0);
    if (second->result)
        fprintf(stderr, "second capture: %s\n", second->err);
    CHECK(tt_count(first, TCD_ZONE_BEGIN) >= 1);
    /* The second server sees the 2000 later ticks, complete and balanced; the span
     * begun before it connected is not reported as an unmatched end. */
    CHECK(tt_count(second, TCD_ZONE_BEGIN) >= 2000);
    CHECK_EQ_INT(tt_count(second, TCD_ZONE_BEGIN), tt_count(second, TCD_ZONE_END));
    CHECK_EQ_INT(tcd_decoder_state(second->dec), TCD_STATE_DONE);
    tt_capture_free(first);
    tt_capture_free(second);
    return tt_finish("test_reconnect");
}

/* A discontinuous frame end without its start is refused at the call, with
 * tracyc_last_error() set: a server would fail the whole capture on it ("Discontinuous
 * frame begin/end mismatch"), losing everything after it. Starts and ends made on
 * different threads arrive in the order they were made. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CROSS 200

static const struct ___tracy_source_location_data after = {"after the mismatch", "main", "frames.c", 1, 0};
static const char *const loading = "loading";
static const char *const crossing = "crossing";

static void *end_crossing(void *arg)
{
    (void)arg;
    ___tracy_emit_frame_mark_end(crossing);
    return NULL;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);

    ___tracy_set_thread_name("frames main");
    ___tracy_emit_frame_mark_end(loading); /* no start: refused */
    CHECK(strstr(tracyc_last_error(), "no FrameMarkStart open") != NULL);
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&after, 1);
    ___tracy_emit_zone_end(z);
    ___tracy_emit_frame_mark_start(loading);
    ___tracy_emit_frame_mark_end(loading);
    ___tracy_emit_frame_mark_end(loading); /* its start was used: refused */
    /* Started here, ended on another thread at once. */
    for (int i = 0; i < CROSS; i++) {
        ___tracy_emit_frame_mark_start(crossing);
        pthread_t t;
        pthread_create(&t, NULL, end_crossing, NULL);
        pthread_join(t, NULL);
    }
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();

    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    CHECK_EQ_INT(tcd_decoder_state(cap->dec), TCD_STATE_DONE);
    /* Nothing after the refused end was lost. */
    const struct tcd_event *zone = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    CHECK(zone && !strcmp(tcd_srcloc(cap->dec, zone->srcloc)->name, "after the mismatch"));
    CHECK(zone && !strcmp(tcd_thread_name(cap->dec, zone->thread), "frames main"));
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_START), 1 + CROSS);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_END), 1 + CROSS);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_frame_mismatch");
}

/* Misuse has documented behaviour and never corrupts the stream: NULL strings, zero
 * lengths, zones ended twice, out of order or on another thread, sections left twice or
 * never entered, calls after shutdown. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const struct ___tracy_source_location_data loc = {"misuse", "main", "misuse.c", 1, 0};
static TracyCZoneCtx shared_ctx;

static void *end_elsewhere(void *arg)
{
    (void)arg;
    ___tracy_emit_zone_end(shared_ctx); /* not this thread's zone: ignored */
    return NULL;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);

    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 5, NULL);
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, NULL);
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 0, "");
    ___tracy_emit_logString(99, 0, 0, 3, "bad"); /* unknown severity: Info */
    ___tracy_emit_plot(NULL, 1.0);
    ___tracy_emit_frame_mark_start(NULL);
    ___tracy_emit_memory_discard(NULL);
    ___tracy_set_thread_name(NULL);
    CHECK_EQ_INT(___tracy_emit_zone_begin(NULL, 1).active, 0);
    CHECK_EQ_INT(___tracy_emit_zone_begin_alloc(0, 1).active, 0);

    TracyCZoneCtx a = ___tracy_emit_zone_begin(&loc, 1);
    TracyCZoneCtx b = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_text(b, NULL, 3);
    ___tracy_emit_zone_text(a, "not innermost", 13); /* ignored: a is not innermost */
    ___tracy_emit_zone_end(a);                       /* out of order: ignored */
    CHECK(strlen(tracyc_last_error()) > 0);
    ___tracy_emit_zone_end(b);
    ___tracy_emit_zone_end(b); /* twice: ignored */
    ___tracy_emit_zone_end(a);

    /* A section is left once, on any thread; leaving it again, or an id never entered, is
     * refused and reported. Leaving 0 (what enter returns when nothing was recorded) is
     * nothing. */
    uint32_t section = tracyc_section_enter(1, "section", 7);
    CHECK(section != 0);
    CHECK_EQ_INT(tracyc_section_leave(section), 0);
    CHECK_EQ_INT(tracyc_section_leave(section), -1);
    CHECK(strstr(tracyc_last_error(), "is not open") != NULL);
    CHECK_EQ_INT(tracyc_section_leave(section + 1000), -1);
    CHECK_EQ_INT(tracyc_section_leave(0), 0);
    CHECK_EQ_INT(tracyc_section_enter(1, NULL, 3), 0);

    shared_ctx = ___tracy_emit_zone_begin(&loc, 1);
    pthread_t t;
    pthread_create(&t, NULL, end_elsewhere, NULL);
    pthread_join(t, NULL);
    ___tracy_emit_zone_end(shared_ctx);

    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    /* After shutdown: ignored, no crash. */
    TracyCZoneCtx late = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_end(late);
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, "after shutdown");

    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    CHECK_EQ_INT(tcd_decoder_state(cap->dec), TCD_STATE_DONE);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 3);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 3);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "not innermost") == NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_SECTION_ENTER), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_SECTION_LEAVE), 1);
    const struct tcd_event *m = tt_find_text(cap, TCD_MESSAGE, "bad");
    CHECK(m && m->severity == TracyMessageSeverityInfo);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_misuse");
}

/* End to end: a zone, a message and a frame mark travel client -> TCP -> decoder, with the
 * program name the program gave (tracyc_program_name_set). */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1); /* wait for the capture thread at shutdown */
    const char *name = "a program named at length, longer than the 63 bytes a welcome holds";
    tracyc_program_name_set(name, strlen(name));
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    {
        TracyCZoneN(z, "hello zone", 1);
        TracyCMessageL("hello message");
        TracyCZoneEnd(z);
        TracyCFrameMark;
    }
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    int rc = tt_capture_join(cap);
    tt_phase_done();
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "capture: %s\n", cap->err);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 1);
    const struct tcd_event *b = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    if (b) {
        const struct tcd_srcloc *s = tcd_srcloc(cap->dec, b->srcloc);
        CHECK_STR(s->name, "hello zone");
        CHECK_STR(s->function, "main");
        CHECK(strstr(s->file, "test_e2e_basic.c") != NULL);
    }
    CHECK(tt_find_text(cap, TCD_MESSAGE, "hello message") != NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_MARK), 1);
    const struct tcd_welcome *w = tcd_decoder_welcome(cap->dec);
    CHECK(w && strlen(w->program_name) == 63 && !strncmp(w->program_name, name, 63));
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_e2e_basic");
}

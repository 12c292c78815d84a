/* Misuse at the protocol's limits, with documented behaviour and a stream the server
 * accepts: strings longer than the protocol carries are truncated (never split inside a
 * UTF-8 sequence), zero lengths are fine, source locations with huge strings arrive
 * truncated, a forged zone context is ignored and reported by tracyc_last_error(). */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>

#define HUGE_TEXT 100000
#define PROTOCOL_MAX 65534 /* longest text one item carries */

static const struct ___tracy_source_location_data loc = {"limits", "main", "limits.c", 1, 0};

/* HUGE_TEXT bytes: ASCII, or 3-byte UTF-8 sequences ("€") that straddle the limit. */
static char *huge(int utf8)
{
    char *s = malloc(HUGE_TEXT + 1);
    for (size_t i = 0; i < HUGE_TEXT; i++)
        s[i] = utf8 ? "\xe2\x82\xac"[i % 3] : (char)('a' + i % 26);
    s[HUGE_TEXT] = 0;
    return s;
}

/* A received text is a prefix of what was sent, within the limit, and ends on a whole
 * UTF-8 sequence. */
static void check_truncated(const char *got, const char *sent)
{
    size_t n = got ? strlen(got) : 0;
    CHECK(got != NULL);
    CHECK(n > 0 && n <= PROTOCOL_MAX);
    CHECK(got && strncmp(got, sent, n) == 0);
    CHECK(((unsigned char)sent[n] & 0xc0) != 0x80); /* the next byte starts a sequence */
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    char *ascii = huge(0), *utf8 = huge(1);

    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, HUGE_TEXT, ascii);
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, HUGE_TEXT, utf8);
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 0, "ignored text");
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_text(z, utf8, HUGE_TEXT);
    ___tracy_emit_zone_name(z, "", 0);
    ___tracy_emit_zone_end(z);

    uint64_t big = ___tracy_alloc_srcloc_name(7, ascii, HUGE_TEXT, ascii, HUGE_TEXT, ascii, HUGE_TEXT, 0);
    z = ___tracy_emit_zone_begin_alloc(big, 1);
    ___tracy_emit_zone_end(z);

    TracyCZoneCtx forged = {0x7ead0001u, 1};
    ___tracy_emit_zone_end(forged);
    CHECK(strlen(tracyc_last_error()) > 0);
    ___tracy_emit_zone_text(forged, "forged", 6);

    ___tracy_set_thread_name(ascii); /* a thread name longer than any server shows */
    ___tracy_emit_message_appinfo(ascii, HUGE_TEXT);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    CHECK_EQ_INT(tcd_decoder_state(cap->dec), TCD_STATE_DONE);

    check_truncated(tt_text(cap, tt_nth(cap, TCD_MESSAGE, 0)), ascii);
    check_truncated(tt_text(cap, tt_nth(cap, TCD_MESSAGE, 1)), utf8);
    const struct tcd_event *zt = tt_nth(cap, TCD_ZONE_TEXT, 0);
    CHECK(zt != NULL);
    if (zt)
        check_truncated(zt->text, utf8);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "forged") == NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 2);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 2);
    const struct tcd_event *alloc_zone = tt_nth(cap, TCD_ZONE_BEGIN, 1);
    if (alloc_zone) {
        const struct tcd_srcloc *s = tcd_srcloc(cap->dec, alloc_zone->srcloc);
        size_t total = strlen(s->name) + strlen(s->function) + strlen(s->file);
        CHECK(total > 0 && total <= PROTOCOL_MAX);
        CHECK(strncmp(s->function, ascii, strlen(s->function)) == 0);
        CHECK_EQ_INT(s->line, 7);
    }
    const struct tcd_event *info = tt_nth(cap, TCD_APP_INFO, 0);
    CHECK(info != NULL);
    if (info)
        check_truncated(info->text, ascii);
    free(ascii);
    free(utf8);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_misuse_limits");
}

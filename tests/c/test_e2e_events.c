/* End to end: every kind of event reaches the decoder with exact contents, in every
 * protocol version (argument: 82, 76, 74, 69, 66 or 64; default 82). The capture offers
 * only that version, so the client encodes in it and the decoder reads it back. Events a
 * version lacks are not sent, and one message says how many of which kind. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "wire/versions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct ___tracy_source_location_data zone_loc = {"static zone", "zone_fn", "zones.c", 42, 0x112233};
static const struct ___tracy_source_location_data lock_loc = {NULL, "lock_fn", "locks.c", 7, 0};
static const struct ___tracy_source_location_data gpu_loc = {"gpu zone", "gpu_fn", "gpu.c", 9, 0};

static void emit_all(void)
{
    ___tracy_set_thread_name("event thread");
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&zone_loc, 1);
    ___tracy_emit_zone_text(z, "text one", 8);
    ___tracy_emit_zone_text_fmt(z, "value=%d", 7);
    ___tracy_emit_zone_name(z, "dynamic name", 12);
    ___tracy_emit_zone_color(z, 0xabcdef);
    ___tracy_emit_zone_value(z, 1234567890123ULL);
    uint64_t loc = ___tracy_alloc_srcloc_name(77, "alloc.c", 7, "alloc_fn", 8, "alloc zone", 10, 0x445566);
    TracyCZoneCtx inner = ___tracy_emit_zone_begin_alloc(loc, 1);
    ___tracy_emit_zone_end(inner);
    ___tracy_emit_zone_end(z);
    TracyCZoneCtx inactive = ___tracy_emit_zone_begin(&zone_loc, 0);
    ___tracy_emit_zone_text(inactive, "never", 5);
    ___tracy_emit_zone_end(inactive);

    ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, 13, "plain message");
    ___tracy_emit_logStringL(TracyMessageSeverityError, 0x00ff00, 0, "literal coloured");
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0x0000ff, 0, 7, "colored");
    ___tracy_emit_message("compat message", 14, 0);
    ___tracy_emit_message_appinfo("app info line", 13);

    ___tracy_emit_plot("double plot", 2.5);
    ___tracy_emit_plot("double plot", NAN);
    ___tracy_emit_plot("double plot", INFINITY);
    ___tracy_emit_plot_float("float plot", 1.25f);
    ___tracy_emit_plot_int("int plot", -42);
    ___tracy_emit_plot_config("double plot", TracyPlotFormatMemory, 1, 1, 0x808080);

    ___tracy_emit_frame_mark(NULL);
    ___tracy_emit_frame_mark("named frames");
    ___tracy_emit_frame_mark_start("discontinuous");
    ___tracy_emit_frame_mark_end("discontinuous");
    static uint8_t rgba[8 * 4 * 4];
    memset(rgba, 0x80, sizeof rgba);
    ___tracy_emit_frame_image(rgba, 8, 4, 0, 1);

    int block;
    ___tracy_emit_memory_alloc(&block, 64);
    ___tracy_emit_memory_free(&block);
    ___tracy_emit_memory_alloc_named(&block, 128, "pool A");
    ___tracy_emit_memory_free_named(&block, "pool A");
    ___tracy_emit_memory_alloc_named(&block, 256, "pool A");
    ___tracy_emit_memory_discard("pool A");
    ___tracy_emit_memory_discard("never used pool"); /* must not reach the wire */

    struct __tracy_lockable_context_data *lock = ___tracy_announce_lockable_ctx(&lock_loc);
    ___tracy_custom_name_lockable_ctx(lock, "my lock", 7);
    ___tracy_before_lock_lockable_ctx(lock);
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_terminate_lockable_ctx(lock);

    ___tracy_fiber_enter("fiber one");
    TracyCZoneCtx fz = ___tracy_emit_zone_begin(&zone_loc, 1);
    ___tracy_emit_zone_end(fz);
    ___tracy_fiber_leave();

    struct ___tracy_gpu_new_context_data ctx = {100, 2.0f, 3, 0, 7};
    ___tracy_emit_gpu_new_context(ctx);
    struct ___tracy_gpu_context_name_data name = {3, "gpu ctx", 7};
    ___tracy_emit_gpu_context_name(name);
    struct ___tracy_gpu_zone_begin_data gb = {(uint64_t)(uintptr_t)&gpu_loc, 10, 3};
    ___tracy_emit_gpu_zone_begin(gb);
    struct ___tracy_gpu_zone_end_data ge = {11, 3};
    ___tracy_emit_gpu_zone_end(ge);
    struct ___tracy_gpu_time_data t1 = {200, 10, 3}, t2 = {700, 11, 3};
    ___tracy_emit_gpu_time(t1);
    ___tracy_emit_gpu_time(t2);
    struct ___tracy_gpu_time_sync_data sync = {800, 3};
    ___tracy_emit_gpu_time_sync(sync);

    tracyc_section_setup(4, "phases", 6);
    uint32_t section = tracyc_section_enter(4, "loading", 7);
    tracyc_section_leave(section);

    /* Over-long text is cut at the protocol limit, on a UTF-8 boundary. */
    size_t big = 70000;
    char *text = malloc(big);
    memset(text, 'x', big);
    memcpy(text + 65533, "\xc3\xa9", 2); /* a 2-byte character straddles the 65534 limit */
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, big, text);
    free(text);
}

int main(int argc, char **argv)
{
    uint32_t protocol = argc > 1 ? (uint32_t)atoi(argv[1]) : 82;
    int vi = tcw_version_index(protocol);
    CHECK(vi >= 0);
    if (vi < 0)
        return tt_finish("test_e2e_events");
    const int compact = tcw_versions[vi].compact; /* messages carry a severity */
    const int has_discard = tcw_version_has(vi, TCW_MemDiscard);
    const int has_sync = tcw_version_has(vi, TCW_GpuTimeSync);
    const int has_sections = tcw_version_has(vi, TCW_SectionEnter);
    printf("protocol %u (Tracy %s)\n", protocol, tcw_versions[vi].tracy);

    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start_protocol(port, protocol);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("emitting the events", 120);
    emit_all();
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    CHECK_EQ_INT(tcd_decoder_version(cap->dec), protocol);

    /* zones */
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 3);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 3);
    const struct tcd_event *b = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    const struct tcd_srcloc *s = b ? tcd_srcloc(cap->dec, b->srcloc) : NULL;
    if (s) {
        CHECK_STR(s->name, "static zone");
        CHECK_STR(s->function, "zone_fn");
        CHECK_STR(s->file, "zones.c");
        CHECK_EQ_INT(s->line, 42);
        CHECK_EQ_INT(s->color, 0x112233);
    }
    b = tt_nth(cap, TCD_ZONE_BEGIN, 1);
    s = b ? tcd_srcloc(cap->dec, b->srcloc) : NULL;
    if (s) {
        CHECK_STR(s->name, "alloc zone");
        CHECK_STR(s->function, "alloc_fn");
        CHECK_STR(s->file, "alloc.c");
        CHECK_EQ_INT(s->line, 77);
        CHECK_EQ_INT(s->color, 0x445566);
    }
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "text one") != NULL);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "value=7") != NULL);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "never") == NULL);
    CHECK(tt_find_text(cap, TCD_ZONE_NAME, "dynamic name") != NULL);
    const struct tcd_event *e = tt_nth(cap, TCD_ZONE_COLOR, 0);
    CHECK(e && e->color == 0xabcdef);
    e = tt_nth(cap, TCD_ZONE_VALUE, 0);
    CHECK(e && e->value == 1234567890123ULL);
    b = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    e = tt_nth(cap, TCD_ZONE_END, 1);
    CHECK(b && e && e->time >= b->time);

    /* messages: before protocol 82 they have no severity, the server takes Info */
    e = tt_find_text(cap, TCD_MESSAGE, "plain message");
    CHECK(e && e->severity == (compact ? TracyMessageSeverityWarning : TracyMessageSeverityInfo) && e->color == 0);
    e = tt_find_text(cap, TCD_MESSAGE, "literal coloured");
    CHECK(e && e->severity == (compact ? TracyMessageSeverityError : TracyMessageSeverityInfo) && e->color == 0x00ff00);
    e = tt_find_text(cap, TCD_MESSAGE, "colored");
    CHECK(e && e->color == 0x0000ff);
    CHECK(tt_find_text(cap, TCD_MESSAGE, "compat message") != NULL);
    CHECK(tt_find_text(cap, TCD_APP_INFO, "app info line") != NULL);
    size_t longest = 0;
    for (size_t i = 0; i < cap->len; i++)
        if (cap->events[i].ev.kind == TCD_MESSAGE && cap->events[i].ev.text_len > longest)
            longest = cap->events[i].ev.text_len;
    CHECK_EQ_INT(longest, 65533);

    /* plots: NaN and inf never reach the wire */
    CHECK_EQ_INT(tt_count(cap, TCD_PLOT), 3);
    e = tt_nth(cap, TCD_PLOT, 0);
    CHECK(e && e->dvalue == 2.5 && strcmp(tcd_plot_name(cap->dec, e->id), "double plot") == 0);
    e = tt_nth(cap, TCD_PLOT, 1);
    CHECK(e && e->dvalue == 1.25);
    e = tt_nth(cap, TCD_PLOT, 2);
    CHECK(e && e->is_int && (int64_t)e->value == -42);
    e = tt_nth(cap, TCD_PLOT_CONFIG, 0);
    CHECK(e && e->format == TracyPlotFormatMemory && e->color == 0x808080);

    /* frames */
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_MARK), 2);
    e = tt_nth(cap, TCD_FRAME_MARK, 1);
    CHECK(e && strcmp(tcd_frame_name(cap->dec, e->id), "named frames") == 0);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_START), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_END), 1);
    e = tt_nth(cap, TCD_FRAME_IMAGE, 0);
    CHECK(e && e->value == ((8u << 16) | 4u) && e->text_len == 16);

    /* memory */
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_ALLOC), 3);
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_FREE), 2);
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_DISCARD), has_discard ? 1 : 0);
    e = tt_nth(cap, TCD_MEM_ALLOC, 1);
    CHECK(e && e->value == 128 && strcmp(tcd_pool_name(cap->dec, e->id), "pool A") == 0);

    /* locks */
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_ANNOUNCE), 1);
    CHECK(tt_find_text(cap, TCD_LOCK_NAME, "my lock") != NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_WAIT), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_OBTAIN), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_RELEASE), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_TERMINATE), 1);

    /* fibers: the zone inside belongs to the fiber's virtual thread */
    e = tt_nth(cap, TCD_FIBER_ENTER, 0);
    CHECK(e != NULL);
    if (e) {
        CHECK_STR(tcd_thread_name(cap->dec, e->id), "fiber one");
        const struct tcd_event *fz = tt_nth(cap, TCD_ZONE_BEGIN, 2);
        CHECK(fz && fz->thread == e->id);
    }
    CHECK_EQ_INT(tt_count(cap, TCD_FIBER_LEAVE), 1);

    /* GPU: type 7 (Custom) is new in 0.12, older servers get OpenGL (1) */
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_CONTEXT), 1);
    e = tt_nth(cap, TCD_GPU_CONTEXT, 0);
    CHECK(e && e->format == (tcw_versions[vi].max_gpu_type >= 7 ? 7 : 1));
    CHECK(tt_find_text(cap, TCD_GPU_CONTEXT_NAME, "gpu ctx") != NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_ZONE_BEGIN), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_ZONE_END), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_TIME), 2);
    /* The server takes a GPU time as the end of a query some zone already reserved: a
     * time that arrives before its zone makes an assertion-enabled server abort. */
    const struct tcd_event *gend = tt_nth(cap, TCD_GPU_ZONE_END, 0), *gtime = tt_nth(cap, TCD_GPU_TIME, 0);
    tt_check(gend && gtime && (const char *)gtime > (const char *)gend,
             "the GPU times arrive after the zone whose queries they answer");

    /* sections */
    CHECK_EQ_INT(tt_count(cap, TCD_SECTION_SETUP), has_sections ? 1 : 0);
    CHECK_EQ_INT(tt_count(cap, TCD_SECTION_ENTER), has_sections ? 1 : 0);
    CHECK_EQ_INT(tt_count(cap, TCD_SECTION_LEAVE), has_sections ? 1 : 0);

    /* what the version lacks: one message with the counts */
    char absent[256] = "";
    if (!has_sections || !has_discard || !has_sync) {
        int n = snprintf(absent, sizeof absent,
                         "tracyc: not sent to this server, whose protocol %u (Tracy %s) lacks them:", protocol,
                         tcw_versions[vi].tracy);
        const char *sep = "";
        if (!has_sections)
            n += snprintf(absent + n, sizeof absent - (size_t)n, "%s 3 section events", sep), sep = ",";
        if (!has_discard)
            n += snprintf(absent + n, sizeof absent - (size_t)n, "%s 1 memory discards", sep), sep = ",";
        if (!has_sync)
            snprintf(absent + n, sizeof absent - (size_t)n, "%s 1 GPU time syncs", sep);
    }
    size_t notes = 0;
    for (size_t i = 0; i < cap->len; i++)
        notes += cap->events[i].ev.kind == TCD_MESSAGE && !strncmp(cap->events[i].text, "tracyc: not sent", 16);
    CHECK_EQ_INT(notes, absent[0] ? 1 : 0);
    if (absent[0])
        CHECK(tt_find_text(cap, TCD_MESSAGE, absent) != NULL);
    /* the program's 5, the report of the 2 plot values skipped (NaN, infinity), the note */
    CHECK_EQ_INT(tt_count(cap, TCD_PLOT_SKIPPED), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_MESSAGE), 5 + 1 + (absent[0] ? 1 : 0));

    /* thread name */
    b = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    CHECK(b && strcmp(tcd_thread_name(cap->dec, b->thread), "event thread") == 0);
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_e2e_events");
}

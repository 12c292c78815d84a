/* test_libffi.c - the binary ABI conformance test. It dlopens libtracyc.so, calls every
 * function of bindings/ffi/tracyc.abi.json through ffi_call with the manifest's types,
 * and checks through the decoder (a capture thread of this process, connected over
 * loopback) that each event arrived exactly as sent.
 *
 * This program links only the decoder and the capture session from the static library,
 * never its profiler: the one profiler in the process is the dlopen'ed one.
 *
 * usage: test_ffi_libffi LIBTRACYC.so SCRATCH_DIR
 */
#include "libffi_sections.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Resolves only if the static profiler was linked in by mistake (a weak reference
 * never pulls an archive member in). */
extern void ___tracy_startup_profiler(void) __attribute__((weak));

static const struct ___tracy_source_location_data zone_loc = {"ffi static zone", "zone_fn", "ffi_file.c", 11, 0x112233};
static const struct ___tracy_source_location_data callstack_loc = {"ffi callstack zone", "callstack_fn", "ffi_file.c",
                                                                   12, 0};
static const struct ___tracy_source_location_data timed_loc = {"ffi timed zone", "timed_fn", "ffi_file.c", 14, 0};
static const struct ___tracy_source_location_data fiber_loc = {"ffi fiber zone", "fiber_fn", "ffi_file.c", 13, 0};
static const uint8_t pixels[8 * 8 * 4] = {0};

static char summary_path[4096];
static int32_t started, connected, sampling, sampling_compat;
static int64_t time_a, time_b;
static TracyCZoneCtx first_zone, inactive_zone;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void emit_lifetime(void)
{
    CALL0("___tracy_startup_profiler");
    started = (int32_t)CALL0("___tracy_profiler_started").sword;
    CALL0("___tracy_init_thread");
    CALL("___tracy_set_thread_name", A_STR("ffi main"));
    for (int i = 0; i < 1000 && !connected; i++, sleep_ms(10))
        connected = (int32_t)CALL0("___tracy_connected").sword;
    CHECK_EQ_INT(CALL("tracyc_capture_start", A_STR(summary_path)).sword, 0);
    CHECK_EQ_INT(CALL0("tracyc_disabled").sword, 0);
    time_a = CALL0("___tracy_get_time").i64;
    time_b = CALL0("___tracy_get_time").i64;
    sampling = (int32_t)CALL0("___tracy_begin_sampling_profiling").sword;
    CALL0("___tracy_end_sampling_profiling");
    sampling_compat = (int32_t)CALL0("___tracy_begin_sampling_profiler").sword;
    CALL0("___tracy_end_sampling_profiler");
}

static void emit_zones(void)
{
    TracyCZoneCtx z = first_zone = CALL("___tracy_emit_zone_begin", A_PTR(&zone_loc), A_I32(1)).zone;
    CALL("___tracy_emit_zone_text", &z, A_STR("text-a and more"), A_SIZE(6));
    fc_call_var("___tracy_emit_zone_text_fmt", (void *[]){&z, A_STR("fmt %d %s"), &(int){42}, A_STR("x")}, 2,
                (ffi_type *[]){&ffi_type_sint, &ffi_type_pointer});
    CALL("___tracy_emit_zone_name", &z, A_STR("renamed"), A_SIZE(7));
    fc_call_var("___tracy_emit_zone_name_fmt", (void *[]){&z, A_STR("name %d"), &(int){7}}, 1,
                (ffi_type *[]){&ffi_type_sint});
    CALL("___tracy_emit_zone_color", &z, A_U32(0x445566));
    CALL("___tracy_emit_zone_value", &z, A_U64(0x1234567890ULL));
    CALL("___tracy_emit_zone_end", &z);

    z = CALL("___tracy_emit_zone_begin_callstack", A_PTR(&callstack_loc), A_I32(4), A_I32(1)).zone;
    CALL("___tracy_emit_zone_end", &z);

    uint64_t loc = CALL("___tracy_alloc_srcloc", A_U32(21), A_STR("alloc.c"), A_SIZE(7), A_STR("alloc_fn"), A_SIZE(8),
                        A_U32(0xaabbcc))
                       .u64;
    z = CALL("___tracy_emit_zone_begin_alloc", A_U64(loc), A_I32(1)).zone;
    CALL("___tracy_emit_zone_end", &z);
    loc = CALL("___tracy_alloc_srcloc_name", A_U32(22), A_STR("alloc2.c"), A_SIZE(8), A_STR("alloc_fn2"), A_SIZE(9),
               A_STR("ffi alloc zone"), A_SIZE(14), A_U32(0))
              .u64;
    z = CALL("___tracy_emit_zone_begin_alloc_callstack", A_U64(loc), A_I32(3), A_I32(1)).zone;
    CALL("___tracy_emit_zone_end", &z);

    inactive_zone = CALL("___tracy_emit_zone_begin", A_PTR(&zone_loc), A_I32(0)).zone;

    int64_t t0 = CALL0("___tracy_get_time").i64;
    z = CALL("tracyc_zone_begin_at", A_PTR(&timed_loc), A_I64(t0)).zone;
    CALL("tracyc_zone_end_at", &z, A_I64(t0 + 100000));
}

static const struct tcd_srcloc *begin_loc(const struct tt_capture *c, size_t n)
{
    const struct tcd_event *b = nth_on_thread(c, TCD_ZONE_BEGIN, "ffi main", n);
    return b ? tcd_srcloc(c->dec, b->srcloc) : NULL;
}

static void check_zones(const struct tt_capture *c)
{
    const struct tcd_srcloc *s = begin_loc(c, 0);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s->name, "ffi static zone");
        CHECK_STR(s->function, "zone_fn");
        CHECK_STR(s->file, "ffi_file.c");
        CHECK_EQ_INT(s->line, 11);
        CHECK_EQ_INT(s->color, 0x112233);
    }
    CHECK(tt_find_text(c, TCD_ZONE_TEXT, "text-a") != NULL);
    CHECK(tt_find_text(c, TCD_ZONE_TEXT, "fmt 42 x") != NULL);
    CHECK(tt_find_text(c, TCD_ZONE_NAME, "renamed") != NULL);
    CHECK(tt_find_text(c, TCD_ZONE_NAME, "name 7") != NULL);
    const struct tcd_event *color = nth_on_thread(c, TCD_ZONE_COLOR, "ffi main", 0);
    CHECK(color && color->color == 0x445566);
    const struct tcd_event *value = nth_on_thread(c, TCD_ZONE_VALUE, "ffi main", 0);
    CHECK(value && value->value == 0x1234567890ULL);
    if ((s = begin_loc(c, 1)))
        CHECK_STR(s->name, "ffi callstack zone");
    if ((s = begin_loc(c, 2))) {
        CHECK_STR(s->name, "");
        CHECK_STR(s->function, "alloc_fn");
        CHECK_STR(s->file, "alloc.c");
        CHECK_EQ_INT(s->line, 21);
        CHECK_EQ_INT(s->color, 0xaabbcc);
    }
    if ((s = begin_loc(c, 3))) {
        CHECK_STR(s->name, "ffi alloc zone");
        CHECK_STR(s->function, "alloc_fn2");
        CHECK_STR(s->file, "alloc2.c");
        CHECK_EQ_INT(s->line, 22);
    }
    CHECK(first_zone.active == 1 && first_zone.id != 0);
    CHECK(inactive_zone.active == 0 && inactive_zone.id == 0);
    /* The timed zone lasts exactly the 100000 ticks it was given. */
    int64_t begin = 0, end = 0;
    CHECK(zone_span(c, "ffi timed zone", &begin, &end));
    double expected = 100000 * tcd_decoder_welcome(c->dec)->timer_mul;
    CHECK(end - begin >= (int64_t)expected - 1 && end - begin <= (int64_t)expected + 1);
}

static void emit_messages(void)
{
    CALL("___tracy_emit_logString", A_I8(TracyMessageSeverityWarning), A_I32(0x00ff00), A_I32(0), A_SIZE(8),
         A_STR("log-warnXXXX"));
    CALL("___tracy_emit_logStringL", A_I8(TracyMessageSeverityError), A_I32(0xff0000), A_I32(0),
         A_STR("literal-error"));
    CALL("___tracy_emit_message", A_STR("compat-msg"), A_SIZE(10), A_I32(0));
    CALL("___tracy_emit_messageL", A_STR("compat-literal"), A_I32(0));
    CALL("___tracy_emit_messageC", A_STR("compat-color"), A_SIZE(12), A_U32(0x0000ff), A_I32(0));
    CALL("___tracy_emit_messageLC", A_STR("compat-literal-color"), A_U32(0x00ffff), A_I32(0));
    CALL("___tracy_emit_message_appinfo", A_STR("app-info"), A_SIZE(8));
    CALL("tracyc_section_setup", A_U16(3), A_STR("io category"), A_SIZE(11));
    uint32_t section = (uint32_t)CALL("tracyc_section_enter", A_U16(3), A_STR("loading level"), A_SIZE(13))
                           .word; /* ffi widens small returns to ffi_arg */
    CHECK(section != 0);
    CALL("tracyc_section_leave", A_U32(section));
}

static void check_message(const struct tt_capture *c, const char *text, int severity, uint32_t color)
{
    const struct tcd_event *m = tt_find_text(c, TCD_MESSAGE, text);
    CHECK(m != NULL);
    if (!m)
        fprintf(stderr, "  missing message \"%s\"\n", text);
    if (m) {
        CHECK_EQ_INT(m->severity, severity);
        CHECK_EQ_INT(m->color, color);
    }
}

static void check_messages(const struct tt_capture *c)
{
    check_message(c, "log-warn", TracyMessageSeverityWarning, 0x00ff00);
    check_message(c, "literal-error", TracyMessageSeverityError, 0xff0000);
    check_message(c, "compat-msg", TracyMessageSeverityInfo, 0);
    check_message(c, "compat-literal", TracyMessageSeverityInfo, 0);
    check_message(c, "compat-color", TracyMessageSeverityInfo, 0x0000ff);
    check_message(c, "compat-literal-color", TracyMessageSeverityInfo, 0x00ffff);
    CHECK(tt_find_text(c, TCD_APP_INFO, "app-info") != NULL);
    const struct tcd_event *setup = tt_find_text(c, TCD_SECTION_SETUP, "io category");
    const struct tcd_event *enter = tt_find_text(c, TCD_SECTION_ENTER, "loading level");
    CHECK(setup && setup->query == 3);
    CHECK(enter && enter->query == 3);
    const struct tcd_event *leave = enter ? find_id(c, TCD_SECTION_LEAVE, enter->id) : NULL;
    CHECK(leave && leave->time >= enter->time);
}

static void emit_frames_plots(void)
{
    CALL("___tracy_emit_frame_mark", A_STR(NULL));
    CALL("___tracy_emit_frame_mark", A_STR("ffi frames"));
    CALL("___tracy_emit_frame_mark_start", A_STR("ffi discont"));
    CALL("___tracy_emit_frame_mark_end", A_STR("ffi discont"));
    CALL("___tracy_emit_frame_image", A_PTR(pixels), A_U16(8), A_U16(8), A_U8(0), A_I32(1));
    CALL("___tracy_emit_plot", A_STR("ffi plot d"), A_F64(2.5));
    CALL("___tracy_emit_plot_float", A_STR("ffi plot f"), A_F32(1.25f));
    CALL("___tracy_emit_plot_int", A_STR("ffi plot i"), A_I64(-42));
    CALL("___tracy_emit_plot_config", A_STR("ffi plot i"), A_I32(TracyPlotFormatMemory), A_I32(1), A_I32(0),
         A_U32(0x123456));
}

static void check_frames_plots(const struct tt_capture *c)
{
    CHECK(find_id(c, TCD_FRAME_MARK, 0) != NULL);
    CHECK(find_named(c, TCD_FRAME_MARK, "ffi frames", tcd_frame_name) != NULL);
    CHECK(find_named(c, TCD_FRAME_START, "ffi discont", tcd_frame_name) != NULL);
    CHECK(find_named(c, TCD_FRAME_END, "ffi discont", tcd_frame_name) != NULL);
    const struct tcd_event *img = tt_nth(c, TCD_FRAME_IMAGE, 0);
    CHECK(img && img->value == (8u << 16 | 8u) && img->flags == 1 && img->text_len == 8 * 8 / 2);
    const struct tcd_event *p = find_named(c, TCD_PLOT, "ffi plot d", tcd_plot_name);
    CHECK(p && !p->is_int && p->dvalue == 2.5);
    p = find_named(c, TCD_PLOT, "ffi plot f", tcd_plot_name);
    CHECK(p && p->dvalue == 1.25);
    p = find_named(c, TCD_PLOT, "ffi plot i", tcd_plot_name);
    CHECK(p && p->is_int && (int64_t)p->value == -42);
    p = find_named(c, TCD_PLOT_CONFIG, "ffi plot i", tcd_plot_name);
    CHECK(p && p->format == TracyPlotFormatMemory && p->flags == 1 && p->color == 0x123456);
}

/* The named memory functions take a `secure` flag when built with
 * TRACYC_MEMORY_ABI_0_13; the manifest says which signature this library has. */
static void emit_memory(void)
{
    const char *pool = "ffi pool";
    CALL("___tracy_emit_memory_alloc", A_PTR((void *)0x1000), A_SIZE(64));
    CALL("___tracy_emit_memory_alloc_callstack", A_PTR((void *)0x2000), A_SIZE(128), A_I32(5));
    CALL("___tracy_emit_memory_free", A_PTR((void *)0x1000));
    CALL("___tracy_emit_memory_free_callstack", A_PTR((void *)0x2000), A_I32(5));
    if (fc_has_param("___tracy_emit_memory_alloc_named", "secure")) {
        CALL("___tracy_emit_memory_alloc_named", A_PTR((void *)0x3000), A_SIZE(256), A_I32(0), &pool);
        CALL("___tracy_emit_memory_alloc_callstack_named", A_PTR((void *)0x4000), A_SIZE(512), A_I32(3), A_I32(0),
             &pool);
        CALL("___tracy_emit_memory_free_named", A_PTR((void *)0x3000), A_I32(0), &pool);
        CALL("___tracy_emit_memory_free_callstack_named", A_PTR((void *)0x4000), A_I32(3), A_I32(0), &pool);
        CALL("___tracy_emit_memory_discard", &pool, A_I32(0));
        CALL("___tracy_emit_memory_discard_callstack", &pool, A_I32(0), A_I32(2));
    } else {
        CALL("___tracy_emit_memory_alloc_named", A_PTR((void *)0x3000), A_SIZE(256), &pool);
        CALL("___tracy_emit_memory_alloc_callstack_named", A_PTR((void *)0x4000), A_SIZE(512), A_I32(3), &pool);
        CALL("___tracy_emit_memory_free_named", A_PTR((void *)0x3000), &pool);
        CALL("___tracy_emit_memory_free_callstack_named", A_PTR((void *)0x4000), A_I32(3), &pool);
        CALL("___tracy_emit_memory_discard", &pool);
        CALL("___tracy_emit_memory_discard_callstack", &pool, A_I32(2));
    }
}

static void check_memory_event(const struct tt_capture *c, enum tcd_event_kind kind, size_t n, uint64_t address,
                               uint64_t size, const char *pool)
{
    const struct tcd_event *e = tt_nth(c, kind, n);
    CHECK(e != NULL);
    if (!e)
        return;
    CHECK_EQ_INT(e->address, address);
    if (kind == TCD_MEM_ALLOC)
        CHECK_EQ_INT(e->value, size);
    CHECK_STR(e->id ? tcd_pool_name(c->dec, e->id) : "", pool);
}

static void check_memory(const struct tt_capture *c)
{
    CHECK_EQ_INT(tt_count(c, TCD_MEM_ALLOC), 4);
    CHECK_EQ_INT(tt_count(c, TCD_MEM_FREE), 4);
    check_memory_event(c, TCD_MEM_ALLOC, 0, 0x1000, 64, "");
    check_memory_event(c, TCD_MEM_ALLOC, 1, 0x2000, 128, "");
    check_memory_event(c, TCD_MEM_FREE, 0, 0x1000, 0, "");
    check_memory_event(c, TCD_MEM_FREE, 1, 0x2000, 0, "");
    check_memory_event(c, TCD_MEM_ALLOC, 2, 0x3000, 256, "ffi pool");
    check_memory_event(c, TCD_MEM_ALLOC, 3, 0x4000, 512, "ffi pool");
    check_memory_event(c, TCD_MEM_FREE, 2, 0x3000, 0, "ffi pool");
    check_memory_event(c, TCD_MEM_FREE, 3, 0x4000, 0, "ffi pool");
    CHECK_EQ_INT(tt_count(c, TCD_MEM_DISCARD), 2);
    for (size_t i = 0; i < 2; i++) {
        const struct tcd_event *d = tt_nth(c, TCD_MEM_DISCARD, i);
        CHECK(d && strcmp(tcd_pool_name(c->dec, d->id), "ffi pool") == 0);
    }
}

static void emit_fiber(void)
{
    CALL("___tracy_fiber_enter", A_STR("ffi fiber"));
    TracyCZoneCtx z = CALL("___tracy_emit_zone_begin", A_PTR(&fiber_loc), A_I32(1)).zone;
    CALL("___tracy_emit_zone_end", &z);
    CALL0("___tracy_fiber_leave");
}

static void check_fiber(const struct tt_capture *c)
{
    const struct tcd_event *enter = tt_nth(c, TCD_FIBER_ENTER, 0);
    CHECK(enter != NULL);
    CHECK_EQ_INT(tt_count(c, TCD_FIBER_LEAVE), 1);
    if (!enter)
        return;
    CHECK_STR(tcd_thread_name(c->dec, enter->id), "ffi fiber");
    for (size_t i = 0; i < c->len; i++) {
        const struct tcd_event *e = &c->events[i].ev;
        if (e->kind == TCD_ZONE_BEGIN && strcmp(tcd_srcloc(c->dec, e->srcloc)->name, "ffi fiber zone") == 0)
            CHECK_EQ_INT(e->thread, enter->id);
    }
}

/* A zone end that is not the innermost zone is refused and explained. */
static const char *emit_error(void)
{
    TracyCZoneCtx bogus = {0xdead, 1};
    CALL("___tracy_emit_zone_end", &bogus);
    return CALL0("tracyc_last_error").ptr;
}

static void check_lifetime(const struct tt_capture *c)
{
    CHECK_EQ_INT(started, 1);
    CHECK_EQ_INT(connected, 1);
    CHECK(time_a > 0 && time_b >= time_a);
    /* TRACY_NO_SYS_TRACE=1 (set in main): no sampling to begin. */
    CHECK_EQ_INT(sampling, 0);
    CHECK_EQ_INT(sampling_compat, 0);
    CHECK(nth_on_thread(c, TCD_ZONE_BEGIN, "ffi main", 0) != NULL);
    /* The in-process capture ran alongside the TCP one and wrote its summary. */
    FILE *f = fopen(summary_path, "r");
    char text[1 << 16] = "";
    if (f) {
        text[fread(text, 1, sizeof text - 1, f)] = 0;
        fclose(f);
    }
    CHECK(strstr(text, "ffi static zone") != NULL);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s LIBTRACYC.so SCRATCH_DIR\n", argv[0]);
        return 2;
    }
    CHECK(&___tracy_startup_profiler == NULL);
    snprintf(summary_path, sizeof summary_path, "%s/test_ffi_libffi_summary.txt", argv[2]);
    remove(summary_path);
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    setenv("TRACY_NO_SYS_TRACE", "1", 1);
    if (fc_open(argv[1]) != 0)
        return 1;
    struct tt_capture *cap = tt_capture_start(port);

    emit_lifetime();
    emit_zones();
    emit_messages();
    emit_frames_plots();
    emit_memory();
    emit_fiber();
    emit_locks();
    emit_gpu();
    emit_shim();
    const char *error = emit_error();
    CHECK(error && strstr(error, "innermost") != NULL);
    CHECK_EQ_INT(CALL0("tracyc_dropped_events").u64, 0);
    CALL0("___tracy_shutdown_profiler");

    int rc = tt_capture_join(cap);
    CHECK_EQ_INT(rc, 0);
    if (rc)
        fprintf(stderr, "capture: %s\n", cap->err);
    check_lifetime(cap);
    check_zones(cap);
    check_messages(cap);
    check_frames_plots(cap);
    check_memory(cap);
    check_fiber(cap);
    check_locks(cap);
    check_gpu(cap);
    check_shim(cap);
    CHECK_EQ_INT(fc_report_uncalled(), 0);
    tt_capture_free(cap);
    return tt_finish("test_ffi_libffi");
}

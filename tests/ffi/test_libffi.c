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
#include "test_phase.h"
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
    CHECK_EQ_INT(CALL("tracyc_output_check", A_STR(summary_path)).sword, 0);
    CHECK_EQ_INT(CALL("tracyc_output_check", A_STR("profile.tracy")).sword, -1);
    CHECK(strstr(CALL0("tracyc_last_error").ptr, "tracy-capture") != NULL);
    CHECK_EQ_INT(CALL("tracyc_capture_start", A_STR(summary_path)).sword, 0);
    /* children into the capture: on (a socket, TRACYC_CONNECT set), then off again */
    CHECK_EQ_INT(CALL("tracyc_collect_children", A_I32(1)).sword, 0);
    CHECK(getenv("TRACYC_CONNECT") != NULL);
    CHECK_EQ_INT(CALL("tracyc_collect_children", A_I32(0)).sword, 0);
    CHECK(getenv("TRACYC_CONNECT") == NULL);
    /* the program's name for collectors, then back to the executable's */
    CALL("tracyc_program_name_set", A_STR("ffi program"), A_SIZE(11));
    CALL("tracyc_program_name_set", A_STR(""), A_SIZE(0));
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

/* Memory. Tracy 0.14 dropped the `int32_t secure` argument of six functions; the library
 * accepts both forms on x86-64 and AArch64, so each is called in the manifest's form and,
 * where the manifest has it, in the other one ("NAME@0.13.1"). A third call per named
 * function passes 0.13's `secure` in a register whose upper 32 bits hold garbage, which
 * the ABI allows (libffi itself widens an int32 cleanly, so the interface is built here
 * with a 64-bit argument in that place). Every event must land in its pool. */
#define MEM_EVENTS 16
struct mem_expect {
    enum tcd_event_kind kind;
    uint64_t address;
    const char *pool; /* "" = default */
};
static struct mem_expect mem_expected[MEM_EVENTS];
static size_t mem_expected_count;
static size_t mem_discards;
static const char *pool14 = "ffi pool", *pool13 = "ffi pool 0.13";

static void expect_mem(enum tcd_event_kind kind, uintptr_t address, const char *pool)
{
    if (kind == TCD_MEM_DISCARD) {
        mem_discards++;
        return;
    }
    mem_expected[mem_expected_count++] = (struct mem_expect){kind, address, pool};
}

/* The entry of function `base` with (want_secure = 1) or without the secure argument. */
static const char *form(const char *base, int want_secure)
{
    if (fc_has_param(base, "secure") == want_secure)
        return base;
    const char *other = fc_other_form(base);
    return other && fc_has_param(other, "secure") == want_secure ? other : NULL;
}

/* alloc_named(ptr, size, secure, name) with garbage above the 32-bit secure flag. */
static void call_dirty_secure(const char *name, void *ptr, const char *pool)
{
    ffi_type *types[] = {&ffi_type_pointer, &ffi_type_uint64, &ffi_type_uint64, &ffi_type_pointer};
    ffi_cif cif;
    CHECK(ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 4, &ffi_type_void, types) == FFI_OK);
    void *sym = fc_symbol(name);
    uint64_t size = 48, dirty = 0xfeedface00000001ull;
    void *args[] = {&ptr, &size, &dirty, &pool};
    if (sym)
        ffi_call(&cif, FFI_FN(sym), NULL, args);
    CHECK(sym != NULL);
}

static void emit_memory(void)
{
    CALL("___tracy_emit_memory_alloc", A_PTR((void *)0x1000), A_SIZE(64));
    CALL("___tracy_emit_memory_alloc_callstack", A_PTR((void *)0x2000), A_SIZE(128), A_I32(5));
    CALL("___tracy_emit_memory_free", A_PTR((void *)0x1000));
    CALL("___tracy_emit_memory_free_callstack", A_PTR((void *)0x2000), A_I32(5));
    expect_mem(TCD_MEM_ALLOC, 0x1000, "");
    expect_mem(TCD_MEM_ALLOC, 0x2000, "");
    expect_mem(TCD_MEM_FREE, 0x1000, "");
    expect_mem(TCD_MEM_FREE, 0x2000, "");
    const char *f;
    if ((f = form("___tracy_emit_memory_alloc_named", 0)))
        CALL(f, A_PTR((void *)0x3000), A_SIZE(256), &pool14), expect_mem(TCD_MEM_ALLOC, 0x3000, pool14);
    if ((f = form("___tracy_emit_memory_alloc_named", 1)))
        CALL(f, A_PTR((void *)0x3100), A_SIZE(256), A_I32(1), &pool13), expect_mem(TCD_MEM_ALLOC, 0x3100, pool13);
    if (form("___tracy_emit_memory_alloc_named", 0) && form("___tracy_emit_memory_alloc_named", 1))
        call_dirty_secure("___tracy_emit_memory_alloc_named", (void *)0x3200, pool13),
            expect_mem(TCD_MEM_ALLOC, 0x3200, pool13);
    if ((f = form("___tracy_emit_memory_alloc_callstack_named", 0)))
        CALL(f, A_PTR((void *)0x4000), A_SIZE(512), A_I32(3), &pool14), expect_mem(TCD_MEM_ALLOC, 0x4000, pool14);
    if ((f = form("___tracy_emit_memory_alloc_callstack_named", 1)))
        CALL(f, A_PTR((void *)0x4100), A_SIZE(512), A_I32(3), A_I32(0), &pool13),
            expect_mem(TCD_MEM_ALLOC, 0x4100, pool13);
    if ((f = form("___tracy_emit_memory_free_named", 0)))
        CALL(f, A_PTR((void *)0x3000), &pool14), expect_mem(TCD_MEM_FREE, 0x3000, pool14);
    if ((f = form("___tracy_emit_memory_free_named", 1)))
        CALL(f, A_PTR((void *)0x3100), A_I32(0), &pool13), expect_mem(TCD_MEM_FREE, 0x3100, pool13);
    if ((f = form("___tracy_emit_memory_free_callstack_named", 0)))
        CALL(f, A_PTR((void *)0x4000), A_I32(3), &pool14), expect_mem(TCD_MEM_FREE, 0x4000, pool14);
    if ((f = form("___tracy_emit_memory_free_callstack_named", 1)))
        CALL(f, A_PTR((void *)0x4100), A_I32(3), A_I32(1), &pool13), expect_mem(TCD_MEM_FREE, 0x4100, pool13);
    if ((f = form("___tracy_emit_memory_discard", 0)))
        CALL(f, &pool14), expect_mem(TCD_MEM_DISCARD, 0, pool14);
    if ((f = form("___tracy_emit_memory_discard", 1)))
        CALL(f, &pool13, A_I32(0)), expect_mem(TCD_MEM_DISCARD, 0, pool13);
    if ((f = form("___tracy_emit_memory_discard_callstack", 0)))
        CALL(f, &pool14, A_I32(2)), expect_mem(TCD_MEM_DISCARD, 0, pool14);
    if ((f = form("___tracy_emit_memory_discard_callstack", 1)))
        CALL(f, &pool13, A_I32(1), A_I32(2)), expect_mem(TCD_MEM_DISCARD, 0, pool13);
}

static void check_memory(const struct tt_capture *c)
{
    size_t nth[TCD_EVENT_KIND_COUNT] = {0}, allocs = 0, frees = 0;
    for (size_t i = 0; i < mem_expected_count; i++) {
        const struct mem_expect *x = &mem_expected[i];
        allocs += x->kind == TCD_MEM_ALLOC;
        frees += x->kind == TCD_MEM_FREE;
        const struct tcd_event *e = tt_nth(c, x->kind, nth[x->kind]++);
        const char *pool = e && e->id ? tcd_pool_name(c->dec, e->id) : "";
        tt_check(e && e->address == x->address && !strcmp(pool, x->pool), "memory %s at 0x%llx in pool \"%s\" (%s)",
                 x->kind == TCD_MEM_ALLOC ? "allocation" : "free", (unsigned long long)x->address, x->pool,
                 e ? pool : "missing");
    }
    CHECK_EQ_INT(tt_count(c, TCD_MEM_ALLOC), allocs);
    CHECK_EQ_INT(tt_count(c, TCD_MEM_FREE), frees);
    CHECK_EQ_INT(tt_count(c, TCD_MEM_DISCARD), mem_discards);
    for (size_t i = 0; i < mem_discards; i++) {
        const struct tcd_event *d = tt_nth(c, TCD_MEM_DISCARD, i);
        const char *pool = d ? tcd_pool_name(c->dec, d->id) : "";
        CHECK(!strcmp(pool, pool14) || !strcmp(pool, pool13));
    }
#if defined(__x86_64__) || defined(__aarch64__)
    tt_check(mem_discards == 4 && allocs == 7, "both forms of the six functions called (x86-64, AArch64)");
#endif
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
    tt_phase_describe(tt_capture_describe, cap);

    emit_lifetime();
    emit_zones();
    emit_messages();
    emit_frames_plots();
    emit_memory();
    emit_fiber();
    emit_locks();
    emit_gpu();
    emit_shim();
    emit_samples();
    const char *error = emit_error();
    CHECK(error && strstr(error, "innermost") != NULL);
    CHECK_EQ_INT(CALL0("tracyc_dropped_events").u64, 0);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    CALL0("___tracy_shutdown_profiler");
    tt_phase("joining the capture thread: the capture ending", 120);
    int rc = tt_capture_join(cap);
    tt_phase_done();
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
    check_samples(cap);
    CHECK_EQ_INT(fc_report_uncalled(), 0);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_ffi_libffi");
}

/* test_crate_abi.c - the C API as tracy-client-sys 0.28 sees it.
 *
 * The crate (Tracy 0.13.1's bindings) cannot be vendored, so this file declares the 70
 * functions it binds -- src/generated.rs, generated_fibers.rs, generated_manual_lifetime.rs
 * -- with exactly the parameter and return types it uses (Rust's u32/i32/usize/f32/...
 * as the C types of the same size, its #[repr(C)] structs field for field), without
 * including tracyc.h, calls every one of them against libtracyc, and checks through a
 * capture what each recorded.
 *
 * MEMORY ABI: the crate's memory functions are 0.13.1's, with a `secure` argument. A
 * library built with TRACYC_MEMORY_ABI_0_13 exports those and is called in exactly the
 * crate's form. The default build exports 0.14's forms (no `secure`), and until one
 * library serves both (the multi-version issue) the named functions are called here in
 * that form: the blocks marked "MEMORY ABI" switch to the crate's form when
 * CRATE_MEMORY_FORM is 1. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TRACYC_MEMORY_ABI_0_13
#define CRATE_MEMORY_FORM 1
#else
#define CRATE_MEMORY_FORM 0
#endif

/* ---- the crate's types ---- */

struct crate_srcloc { /* ___tracy_source_location_data */
    const char *name;
    const char *function;
    const char *file;
    uint32_t line;
    uint32_t color;
};
struct crate_zone_ctx { /* ___tracy_c_zone_context */
    uint32_t id;
    int32_t active;
};
struct crate_gpu_time {
    int64_t gpuTime;
    uint16_t queryId;
    uint8_t context;
};
struct crate_gpu_zone_begin {
    uint64_t srcloc;
    uint16_t queryId;
    uint8_t context;
};
struct crate_gpu_zone_begin_callstack {
    uint64_t srcloc;
    int32_t depth;
    uint16_t queryId;
    uint8_t context;
};
struct crate_gpu_zone_end {
    uint16_t queryId;
    uint8_t context;
};
struct crate_gpu_new_context {
    int64_t gpuTime;
    float period;
    uint8_t context;
    uint8_t flags;
    uint8_t type_;
};
struct crate_gpu_context_name {
    uint8_t context;
    const char *name;
    uint16_t len;
};
struct crate_gpu_calibration {
    int64_t gpuTime;
    int64_t cpuDelta;
    uint8_t context;
};
struct crate_gpu_time_sync {
    int64_t gpuTime;
    uint8_t context;
};
struct __tracy_lockable_context_data; /* opaque */
typedef struct __tracy_lockable_context_data crate_lock;

/* ---- the 70 functions ---- */

/* generated_manual_lifetime.rs */
void ___tracy_startup_profiler(void);
void ___tracy_shutdown_profiler(void);
/* generated_fibers.rs */
void ___tracy_fiber_enter(const char *fiber);
void ___tracy_fiber_leave(void);
/* generated.rs */
void ___tracy_set_thread_name(const char *name);
uint64_t ___tracy_alloc_srcloc(uint32_t line, const char *source, size_t sourceSz, const char *function,
                               size_t functionSz, uint32_t color);
uint64_t ___tracy_alloc_srcloc_name(uint32_t line, const char *source, size_t sourceSz, const char *function,
                                    size_t functionSz, const char *name, size_t nameSz, uint32_t color);
struct crate_zone_ctx ___tracy_emit_zone_begin(const struct crate_srcloc *srcloc, int32_t active);
struct crate_zone_ctx ___tracy_emit_zone_begin_callstack(const struct crate_srcloc *srcloc, int32_t depth,
                                                         int32_t active);
struct crate_zone_ctx ___tracy_emit_zone_begin_alloc(uint64_t srcloc, int32_t active);
struct crate_zone_ctx ___tracy_emit_zone_begin_alloc_callstack(uint64_t srcloc, int32_t depth, int32_t active);
void ___tracy_emit_zone_end(struct crate_zone_ctx ctx);
void ___tracy_emit_zone_text(struct crate_zone_ctx ctx, const char *txt, size_t size);
void ___tracy_emit_zone_name(struct crate_zone_ctx ctx, const char *txt, size_t size);
void ___tracy_emit_zone_color(struct crate_zone_ctx ctx, uint32_t color);
void ___tracy_emit_zone_value(struct crate_zone_ctx ctx, uint64_t value);
void ___tracy_emit_gpu_zone_begin(struct crate_gpu_zone_begin);
void ___tracy_emit_gpu_zone_begin_callstack(struct crate_gpu_zone_begin_callstack);
void ___tracy_emit_gpu_zone_begin_alloc(struct crate_gpu_zone_begin);
void ___tracy_emit_gpu_zone_begin_alloc_callstack(struct crate_gpu_zone_begin_callstack);
void ___tracy_emit_gpu_zone_end(struct crate_gpu_zone_end);
void ___tracy_emit_gpu_time(struct crate_gpu_time);
void ___tracy_emit_gpu_new_context(struct crate_gpu_new_context);
void ___tracy_emit_gpu_context_name(struct crate_gpu_context_name);
void ___tracy_emit_gpu_calibration(struct crate_gpu_calibration);
void ___tracy_emit_gpu_time_sync(struct crate_gpu_time_sync);
void ___tracy_emit_gpu_zone_begin_serial(struct crate_gpu_zone_begin);
void ___tracy_emit_gpu_zone_begin_callstack_serial(struct crate_gpu_zone_begin_callstack);
void ___tracy_emit_gpu_zone_begin_alloc_serial(struct crate_gpu_zone_begin);
void ___tracy_emit_gpu_zone_begin_alloc_callstack_serial(struct crate_gpu_zone_begin_callstack);
void ___tracy_emit_gpu_zone_end_serial(struct crate_gpu_zone_end);
void ___tracy_emit_gpu_time_serial(struct crate_gpu_time);
void ___tracy_emit_gpu_new_context_serial(struct crate_gpu_new_context);
void ___tracy_emit_gpu_context_name_serial(struct crate_gpu_context_name);
void ___tracy_emit_gpu_calibration_serial(struct crate_gpu_calibration);
void ___tracy_emit_gpu_time_sync_serial(struct crate_gpu_time_sync);
int32_t ___tracy_connected(void);
/* 0.13.1's unnamed memory functions take a trailing `secure` that 0.14's lack; a trailing
 * argument the callee does not read is harmless, so these are the crate's form always. */
void ___tracy_emit_memory_alloc(const void *ptr, size_t size, int32_t secure);
void ___tracy_emit_memory_alloc_callstack(const void *ptr, size_t size, int32_t depth, int32_t secure);
void ___tracy_emit_memory_free(const void *ptr, int32_t secure);
void ___tracy_emit_memory_free_callstack(const void *ptr, int32_t depth, int32_t secure);
#if CRATE_MEMORY_FORM /* MEMORY ABI: the crate's form */
void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, int32_t secure, const char *name);
void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, int32_t secure,
                                                const char *name);
void ___tracy_emit_memory_free_named(const void *ptr, int32_t secure, const char *name);
void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, int32_t secure, const char *name);
void ___tracy_emit_memory_discard(const char *name, int32_t secure);
void ___tracy_emit_memory_discard_callstack(const char *name, int32_t secure, int32_t depth);
#else /* MEMORY ABI: the default build's 0.14 form, until the dual ABI lands */
void ___tracy_emit_memory_alloc_named(const void *ptr, size_t size, const char *name);
void ___tracy_emit_memory_alloc_callstack_named(const void *ptr, size_t size, int32_t depth, const char *name);
void ___tracy_emit_memory_free_named(const void *ptr, const char *name);
void ___tracy_emit_memory_free_callstack_named(const void *ptr, int32_t depth, const char *name);
void ___tracy_emit_memory_discard(const char *name);
void ___tracy_emit_memory_discard_callstack(const char *name, int32_t depth);
#endif
void ___tracy_emit_message(const char *txt, size_t size, int32_t callstack_depth);
void ___tracy_emit_messageL(const char *txt, int32_t callstack_depth);
void ___tracy_emit_messageC(const char *txt, size_t size, uint32_t color, int32_t callstack_depth);
void ___tracy_emit_messageLC(const char *txt, uint32_t color, int32_t callstack_depth);
void ___tracy_emit_frame_mark(const char *name);
void ___tracy_emit_frame_mark_start(const char *name);
void ___tracy_emit_frame_mark_end(const char *name);
void ___tracy_emit_frame_image(const void *image, uint16_t w, uint16_t h, uint8_t offset, int32_t flip);
void ___tracy_emit_plot(const char *name, double val);
void ___tracy_emit_plot_float(const char *name, float val);
void ___tracy_emit_plot_int(const char *name, int64_t val);
void ___tracy_emit_plot_config(const char *name, int32_t type_, int32_t step, int32_t fill, uint32_t color);
void ___tracy_emit_message_appinfo(const char *txt, size_t size);
crate_lock *___tracy_announce_lockable_ctx(const struct crate_srcloc *srcloc);
void ___tracy_terminate_lockable_ctx(crate_lock *lockdata);
int32_t ___tracy_before_lock_lockable_ctx(crate_lock *lockdata);
void ___tracy_after_lock_lockable_ctx(crate_lock *lockdata);
void ___tracy_after_unlock_lockable_ctx(crate_lock *lockdata);
void ___tracy_after_try_lock_lockable_ctx(crate_lock *lockdata, int32_t acquired);
void ___tracy_mark_lockable_ctx(crate_lock *lockdata, const struct crate_srcloc *srcloc);
void ___tracy_custom_name_lockable_ctx(crate_lock *lockdata, const char *name, size_t nameSz);
int ___tracy_begin_sampling_profiler(void);
void ___tracy_end_sampling_profiler(void);

/* ---- calling them ---- */

static const struct crate_srcloc zone_loc = {"crate zone", "crate_fn", "crate.rs", 11, 0x123456};
static const struct crate_srcloc cs_loc = {"crate callstack zone", "crate_fn", "crate.rs", 12, 0};
static const struct crate_srcloc lock_loc = {NULL, "crate_lock_fn", "crate.rs", 13, 0};
static const struct crate_srcloc mark_loc = {"lock mark", "crate_lock_fn", "crate.rs", 14, 0};
static const struct crate_srcloc gpu_loc = {"crate gpu zone", "gpu_fn", "crate.rs", 15, 0};
static int block_a, block_b;
static int sampling;

static uint64_t alloc_loc(const char *name)
{
    return ___tracy_alloc_srcloc_name(21, "alloc.rs", 8, "alloc_fn", 8, name, strlen(name), 0x654321);
}

/* One context: its four zone kinds, their ends, the GPU times of both queries of each
 * zone, a calibration and a time sync. `serial` picks the _serial variants. */
static void gpu_calls(uint8_t context, int serial)
{
    struct crate_gpu_new_context ctx = {1000, 1.0f, context, 0, 1};
    struct crate_gpu_context_name name = {context, serial ? "serial ctx" : "thread ctx", 10};
    (serial ? ___tracy_emit_gpu_new_context_serial : ___tracy_emit_gpu_new_context)(ctx);
    (serial ? ___tracy_emit_gpu_context_name_serial : ___tracy_emit_gpu_context_name)(name);
    uint64_t static_loc = (uint64_t)(uintptr_t)&gpu_loc;
    for (uint16_t k = 0; k < 4; k++) {
        uint16_t q = (uint16_t)(2 * k);
        uint64_t loc = k >= 2 ? alloc_loc("gpu alloc zone") : static_loc;
        struct crate_gpu_zone_begin b = {loc, q, context};
        struct crate_gpu_zone_begin_callstack bc = {loc, 8, q, context};
        switch (k + 4 * serial) {
        case 0:
            ___tracy_emit_gpu_zone_begin(b);
            break;
        case 1:
            ___tracy_emit_gpu_zone_begin_callstack(bc);
            break;
        case 2:
            ___tracy_emit_gpu_zone_begin_alloc(b);
            break;
        case 3:
            ___tracy_emit_gpu_zone_begin_alloc_callstack(bc);
            break;
        case 4:
            ___tracy_emit_gpu_zone_begin_serial(b);
            break;
        case 5:
            ___tracy_emit_gpu_zone_begin_callstack_serial(bc);
            break;
        case 6:
            ___tracy_emit_gpu_zone_begin_alloc_serial(b);
            break;
        default:
            ___tracy_emit_gpu_zone_begin_alloc_callstack_serial(bc);
            break;
        }
        struct crate_gpu_zone_end e = {(uint16_t)(q + 1), context};
        (serial ? ___tracy_emit_gpu_zone_end_serial : ___tracy_emit_gpu_zone_end)(e);
        for (uint16_t i = 0; i < 2; i++) {
            struct crate_gpu_time t = {2000 + 100 * (q + i), (uint16_t)(q + i), context};
            (serial ? ___tracy_emit_gpu_time_serial : ___tracy_emit_gpu_time)(t);
        }
    }
    struct crate_gpu_calibration cal = {5000, 10, context};
    (serial ? ___tracy_emit_gpu_calibration_serial : ___tracy_emit_gpu_calibration)(cal);
    struct crate_gpu_time_sync sync = {6000, context};
    (serial ? ___tracy_emit_gpu_time_sync_serial : ___tracy_emit_gpu_time_sync)(sync);
}

static void call_everything(void)
{
    ___tracy_set_thread_name("crate thread");

    struct crate_zone_ctx z = ___tracy_emit_zone_begin(&zone_loc, 1);
    ___tracy_emit_zone_text(z, "crate text", 10);
    ___tracy_emit_zone_name(z, "crate name", 10);
    ___tracy_emit_zone_color(z, 0xabcdef);
    ___tracy_emit_zone_value(z, 4242);
    struct crate_zone_ctx cs = ___tracy_emit_zone_begin_callstack(&cs_loc, 16, 1);
    ___tracy_emit_zone_end(cs);
    ___tracy_emit_zone_end(z);
    z = ___tracy_emit_zone_begin_alloc(alloc_loc("alloc zone"), 1);
    ___tracy_emit_zone_end(z);
    z = ___tracy_emit_zone_begin_alloc_callstack(___tracy_alloc_srcloc(22, "alloc.rs", 8, "unnamed_alloc_fn", 16, 0),
                                                 16, 1);
    ___tracy_emit_zone_end(z);

    gpu_calls(1, 0);
    gpu_calls(2, 1);

    ___tracy_emit_memory_alloc(&block_a, 16, 0);
    ___tracy_emit_memory_free(&block_a, 0);
    ___tracy_emit_memory_alloc_callstack(&block_b, 32, 8, 0);
    ___tracy_emit_memory_free_callstack(&block_b, 8, 0);
#if CRATE_MEMORY_FORM /* MEMORY ABI: the crate's form */
    ___tracy_emit_memory_alloc_named(&block_a, 64, 0, "crate pool");
    ___tracy_emit_memory_free_named(&block_a, 0, "crate pool");
    ___tracy_emit_memory_alloc_callstack_named(&block_b, 128, 8, 0, "crate pool");
    ___tracy_emit_memory_free_callstack_named(&block_b, 8, 0, "crate pool");
    ___tracy_emit_memory_alloc_named(&block_a, 256, 0, "crate pool");
    ___tracy_emit_memory_discard("crate pool", 0);
    ___tracy_emit_memory_alloc_named(&block_b, 512, 0, "crate pool 2");
    ___tracy_emit_memory_discard_callstack("crate pool 2", 0, 8);
#else /* MEMORY ABI: the default build's 0.14 form */
    ___tracy_emit_memory_alloc_named(&block_a, 64, "crate pool");
    ___tracy_emit_memory_free_named(&block_a, "crate pool");
    ___tracy_emit_memory_alloc_callstack_named(&block_b, 128, 8, "crate pool");
    ___tracy_emit_memory_free_callstack_named(&block_b, 8, "crate pool");
    ___tracy_emit_memory_alloc_named(&block_a, 256, "crate pool");
    ___tracy_emit_memory_discard("crate pool");
    ___tracy_emit_memory_alloc_named(&block_b, 512, "crate pool 2");
    ___tracy_emit_memory_discard_callstack("crate pool 2", 8);
#endif

    ___tracy_emit_message("crate message", 13, 0);
    ___tracy_emit_messageL("crate literal", 0);
    ___tracy_emit_messageC("crate coloured", 14, 0x00ff00, 0);
    ___tracy_emit_messageLC("crate coloured literal", 0x0000ff, 0);
    ___tracy_emit_message_appinfo("crate app info", 14);

    ___tracy_emit_frame_mark(NULL);
    ___tracy_emit_frame_mark("crate frames");
    ___tracy_emit_frame_mark_start("crate discontinuous");
    ___tracy_emit_frame_mark_end("crate discontinuous");
    static uint8_t rgba[8 * 4 * 4];
    memset(rgba, 0x40, sizeof rgba);
    ___tracy_emit_frame_image(rgba, 8, 4, 0, 1);

    ___tracy_emit_plot("crate f64", 2.5);
    ___tracy_emit_plot_float("crate f32", 1.5f);
    ___tracy_emit_plot_int("crate i64", -7);
    ___tracy_emit_plot_config("crate f64", 1, 1, 0, 0x808080);

    crate_lock *lock = ___tracy_announce_lockable_ctx(&lock_loc);
    ___tracy_custom_name_lockable_ctx(lock, "crate lock", 10);
    CHECK_EQ_INT(___tracy_before_lock_lockable_ctx(lock), 1);
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_mark_lockable_ctx(lock, &mark_loc);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_after_try_lock_lockable_ctx(lock, 1);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_after_try_lock_lockable_ctx(lock, 0); /* not acquired: nothing */
    ___tracy_terminate_lockable_ctx(lock);

    ___tracy_fiber_enter("crate fiber");
    z = ___tracy_emit_zone_begin(&zone_loc, 1);
    ___tracy_emit_zone_end(z);
    ___tracy_fiber_leave();

    sampling = ___tracy_begin_sampling_profiler();
    ___tracy_end_sampling_profiler();
}

/* ---- what was recorded ---- */

static size_t count_srcloc(const struct tt_capture *cap, enum tcd_event_kind kind, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *ev = &cap->events[i].ev;
        if (ev->kind == kind && strcmp(tcd_srcloc(cap->dec, ev->srcloc)->name, name) == 0)
            n++;
    }
    return n;
}

static int message_with(const struct tt_capture *cap, const char *text, uint32_t color)
{
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *ev = &cap->events[i].ev;
        if (ev->kind == TCD_MESSAGE && strcmp(tt_text(cap, ev), text) == 0 && ev->color == color)
            return 1;
    }
    return 0;
}

static void check(const struct tt_capture *cap)
{
    const struct tcd_event *ev = tt_nth(cap, TCD_ZONE_BEGIN, 0);
    CHECK(ev && strcmp(tcd_thread_name(cap->dec, ev->thread), "crate thread") == 0);
    const struct tcd_srcloc *s = ev ? tcd_srcloc(cap->dec, ev->srcloc) : NULL;
    CHECK(s && strcmp(s->name, "crate zone") == 0 && s->line == 11 && s->color == 0x123456);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "crate text") != NULL);
    CHECK(tt_find_text(cap, TCD_ZONE_NAME, "crate name") != NULL);
    CHECK((ev = tt_nth(cap, TCD_ZONE_COLOR, 0)) && ev->color == 0xabcdef);
    CHECK((ev = tt_nth(cap, TCD_ZONE_VALUE, 0)) && ev->value == 4242);
    CHECK_EQ_INT(count_srcloc(cap, TCD_ZONE_BEGIN, "crate zone"), 2); /* on the thread, in the fiber */
    CHECK_EQ_INT(count_srcloc(cap, TCD_ZONE_BEGIN, "crate callstack zone"), 1);
    CHECK_EQ_INT(count_srcloc(cap, TCD_ZONE_BEGIN, "alloc zone"), 1);
    CHECK_EQ_INT(count_srcloc(cap, TCD_ZONE_BEGIN, ""), 1); /* ___tracy_alloc_srcloc: no name */
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 5);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), 5);

    CHECK_EQ_INT(tt_count(cap, TCD_GPU_CONTEXT), 2);
    CHECK(tt_find_text(cap, TCD_GPU_CONTEXT_NAME, "thread ctx") != NULL);
    CHECK(tt_find_text(cap, TCD_GPU_CONTEXT_NAME, "serial ctx") != NULL);
    CHECK_EQ_INT(count_srcloc(cap, TCD_GPU_ZONE_BEGIN, "crate gpu zone"), 4);
    CHECK_EQ_INT(count_srcloc(cap, TCD_GPU_ZONE_BEGIN, "gpu alloc zone"), 4);
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_ZONE_END), 8);
    CHECK_EQ_INT(tt_count(cap, TCD_GPU_TIME), 16);

    CHECK_EQ_INT(tt_count(cap, TCD_MEM_ALLOC), 6);
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_FREE), 4);
    CHECK_EQ_INT(tt_count(cap, TCD_MEM_DISCARD), 2);
    size_t pooled = 0;
    for (size_t i = 0; i < cap->len; i++) {
        ev = &cap->events[i].ev;
        if (ev->kind == TCD_MEM_ALLOC && ev->id)
            pooled += strncmp(tcd_pool_name(cap->dec, ev->id), "crate pool", 10) == 0;
    }
    CHECK_EQ_INT(pooled, 4);
    CHECK((ev = tt_nth(cap, TCD_MEM_ALLOC, 1)) && ev->value == 32);

    CHECK(message_with(cap, "crate message", 0));
    CHECK(message_with(cap, "crate literal", 0));
    CHECK(message_with(cap, "crate coloured", 0x00ff00));
    CHECK(message_with(cap, "crate coloured literal", 0x0000ff));
    CHECK(tt_find_text(cap, TCD_APP_INFO, "crate app info") != NULL);

    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_MARK), 2);
    CHECK((ev = tt_nth(cap, TCD_FRAME_MARK, 1)) && strcmp(tcd_frame_name(cap->dec, ev->id), "crate frames") == 0);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_START), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_END), 1);
    CHECK((ev = tt_nth(cap, TCD_FRAME_IMAGE, 0)) && ev->value == ((8u << 16) | 4u) && ev->flags == 1);

    CHECK((ev = tt_nth(cap, TCD_PLOT, 0)) && ev->dvalue == 2.5 &&
          strcmp(tcd_plot_name(cap->dec, ev->id), "crate f64") == 0);
    CHECK((ev = tt_nth(cap, TCD_PLOT, 1)) && ev->dvalue == 1.5);
    CHECK((ev = tt_nth(cap, TCD_PLOT, 2)) && ev->is_int && (int64_t)ev->value == -7);
    CHECK((ev = tt_nth(cap, TCD_PLOT_CONFIG, 0)) && ev->format == 1 && ev->color == 0x808080);

    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_ANNOUNCE), 1);
    CHECK(tt_find_text(cap, TCD_LOCK_NAME, "crate lock") != NULL);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_WAIT), 2); /* the lock, and the successful try-lock */
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_OBTAIN), 2);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_RELEASE), 2);
    CHECK((ev = tt_nth(cap, TCD_LOCK_MARK, 0)) && strcmp(tcd_srcloc(cap->dec, ev->srcloc)->name, "lock mark") == 0);
    CHECK_EQ_INT(tt_count(cap, TCD_LOCK_TERMINATE), 1);

    CHECK_EQ_INT(tt_count(cap, TCD_FIBER_ENTER), 1);
    CHECK_EQ_INT(tt_count(cap, TCD_FIBER_LEAVE), 1);
    CHECK((ev = tt_nth(cap, TCD_FIBER_ENTER, 0)) && strcmp(tcd_thread_name(cap->dec, ev->id), "crate fiber") == 0);
    CHECK_EQ_INT(sampling, 0);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    setenv("TRACY_NO_SYS_TRACE", "1", 1); /* the sampling call then has a known answer: 0 */
    ___tracy_startup_profiler();
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("waiting for the capture to connect", 120);
    while (!___tracy_connected())
        usleep(1000);
    tt_phase_done();
    call_everything();
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);
    check(cap);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    printf("tracy-client-sys 0.28's 70 functions called; memory functions in the %s form\n",
           CRATE_MEMORY_FORM ? "crate's (0.13.1)" : "default build's (0.14)");
    return tt_finish("test_crate_abi");
}

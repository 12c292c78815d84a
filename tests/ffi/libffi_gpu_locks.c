/* libffi_gpu_locks.c - the libffi test's lock and GPU parts: every lockable,
 * shared-lockable and GPU function, structs passed by value through libffi. */
#include "libffi_sections.h"
#include "test_util.h"

#include <string.h>

static const struct ___tracy_source_location_data lock_loc = {NULL, "lock_fn", "ffi_lock.c", 31, 0};
static const struct ___tracy_source_location_data shared_loc = {NULL, "shared_fn", "ffi_lock.c", 32, 0};
static const struct ___tracy_source_location_data mark_loc = {"ffi lock mark", "mark_fn", "ffi_lock.c", 33, 0};
static const struct ___tracy_source_location_data gpu_loc = {"ffi gpu zone", "gpu_fn", "ffi_gpu.c", 41, 0};
static const struct ___tracy_source_location_data bracket_loc[4] = {
    {"ffi bracket 0", "bracket_fn", "ffi_gpu.c", 50, 0},
    {"ffi bracket 1", "bracket_fn", "ffi_gpu.c", 51, 0},
    {"ffi bracket 2", "bracket_fn", "ffi_gpu.c", 52, 0},
    {"ffi bracket 3", "bracket_fn", "ffi_gpu.c", 53, 0},
};
static int32_t before_lock_result;

void emit_locks(void)
{
    void *l = CALL("___tracy_announce_lockable_ctx", A_PTR(&lock_loc)).ptr;
    before_lock_result = (int32_t)CALL("___tracy_before_lock_lockable_ctx", &l).sword;
    CALL("___tracy_after_lock_lockable_ctx", &l);
    CALL("___tracy_after_unlock_lockable_ctx", &l);
    CALL("___tracy_after_try_lock_lockable_ctx", &l, A_I32(1));
    CALL("___tracy_after_unlock_lockable_ctx", &l);
    CALL("___tracy_after_try_lock_lockable_ctx", &l, A_I32(0));
    CALL("___tracy_mark_lockable_ctx", &l, A_PTR(&mark_loc));
    CALL("___tracy_custom_name_lockable_ctx", &l, A_STR("ffi lock and more"), A_SIZE(8));
    CALL("___tracy_terminate_lockable_ctx", &l);

    void *s = CALL("___tracy_announce_shared_lockable_ctx", A_PTR(&shared_loc)).ptr;
    CALL("___tracy_before_lock_shared_lockable_ctx", &s);
    CALL("___tracy_after_lock_shared_lockable_ctx", &s);
    CALL("___tracy_after_unlock_shared_lockable_ctx", &s);
    CALL("___tracy_after_try_lock_shared_lockable_ctx", &s, A_I32(1));
    CALL("___tracy_after_unlock_shared_lockable_ctx", &s);
    CALL("___tracy_before_lock_shared_shared_lockable_ctx", &s);
    CALL("___tracy_after_lock_shared_shared_lockable_ctx", &s);
    CALL("___tracy_after_unlock_shared_shared_lockable_ctx", &s);
    CALL("___tracy_after_try_lock_shared_shared_lockable_ctx", &s, A_I32(1));
    CALL("___tracy_after_unlock_shared_shared_lockable_ctx", &s);
    CALL("___tracy_mark_shared_lockable_ctx", &s, A_PTR(&mark_loc));
    CALL("___tracy_custom_name_shared_lockable_ctx", &s, A_STR("ffi shared lock"), A_SIZE(15));
    CALL("___tracy_terminate_shared_lockable_ctx", &s);
}

static size_t count_lock(const struct tt_capture *c, enum tcd_event_kind kind, uint32_t id, int shared)
{
    size_t n = 0;
    for (size_t i = 0; i < c->len; i++) {
        const struct tcd_event *e = &c->events[i].ev;
        n += e->kind == kind && e->id == id && e->format == shared;
    }
    return n;
}

static void check_lock(const struct tt_capture *c, int shared, const char *function, const char *name)
{
    const struct tcd_event *a = NULL;
    for (size_t i = 0; i < c->len && !a; i++)
        if (c->events[i].ev.kind == TCD_LOCK_ANNOUNCE && c->events[i].ev.format == shared)
            a = &c->events[i].ev;
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK_STR(tcd_srcloc(c->dec, a->srcloc)->function, function);
    for (int format = 0; format <= shared; format++) {
        CHECK_EQ_INT(count_lock(c, TCD_LOCK_WAIT, a->id, format), 2);
        CHECK_EQ_INT(count_lock(c, TCD_LOCK_OBTAIN, a->id, format), 2);
        CHECK_EQ_INT(count_lock(c, TCD_LOCK_RELEASE, a->id, format), 2);
    }
    const struct tcd_event *m = find_id(c, TCD_LOCK_MARK, a->id);
    CHECK(m && strcmp(tcd_srcloc(c->dec, m->srcloc)->name, "ffi lock mark") == 0);
    const struct tcd_event *n = find_id(c, TCD_LOCK_NAME, a->id);
    CHECK(n && strcmp(n->text, name) == 0);
    CHECK(find_id(c, TCD_LOCK_TERMINATE, a->id) != NULL);
}

void check_locks(const struct tt_capture *c)
{
    CHECK_EQ_INT(before_lock_result, 1);
    CHECK_EQ_INT(tt_count(c, TCD_LOCK_ANNOUNCE), 2);
    check_lock(c, 0, "lock_fn", "ffi lock");
    check_lock(c, 1, "shared_fn", "ffi shared lock");
}

/* GPU zones: queries 1-8 through the thread variants, 11-18 through the serial ones; odd
 * queries begin a zone, even ones end it; each query's GPU time is 1000 + 10 * query on
 * context 0, whose clock starts at 1000 (period 1 ns). */
static struct ___tracy_gpu_zone_begin_data zone_data(uint64_t srcloc, uint16_t query)
{
    return (struct ___tracy_gpu_zone_begin_data){srcloc, query, 0};
}

static struct ___tracy_gpu_zone_begin_callstack_data zone_cs_data(uint64_t srcloc, uint16_t query)
{
    return (struct ___tracy_gpu_zone_begin_callstack_data){srcloc, 2, query, 0};
}

static uint64_t gpu_alloc_srcloc(void)
{
    return CALL("___tracy_alloc_srcloc_name", A_U32(42), A_STR("ffi_gpu.c"), A_SIZE(9), A_STR("gpu_alloc_fn"),
                A_SIZE(12), A_STR("ffi gpu alloc zone"), A_SIZE(18), A_U32(0))
        .u64;
}

static void emit_gpu_zones(const char *suffix, uint16_t q)
{
    char name[4][96];
    const char *kinds[4] = {"___tracy_emit_gpu_zone_begin", "___tracy_emit_gpu_zone_begin_callstack",
                            "___tracy_emit_gpu_zone_begin_alloc", "___tracy_emit_gpu_zone_begin_alloc_callstack"};
    char end[96], time[96];
    snprintf(end, sizeof end, "___tracy_emit_gpu_zone_end%s", suffix);
    snprintf(time, sizeof time, "___tracy_emit_gpu_time%s", suffix);
    for (int k = 0; k < 4; k++, q += 2) {
        snprintf(name[k], sizeof name[k], "%s%s", kinds[k], suffix);
        uint64_t srcloc = k < 2 ? (uint64_t)(uintptr_t)&gpu_loc : gpu_alloc_srcloc();
        struct ___tracy_gpu_zone_begin_data plain = zone_data(srcloc, q);
        struct ___tracy_gpu_zone_begin_callstack_data cs = zone_cs_data(srcloc, q);
        fc_call(name[k], (void *[]){k & 1 ? (void *)&cs : (void *)&plain});
        struct ___tracy_gpu_zone_end_data zend = {(uint16_t)(q + 1), 0};
        fc_call(end, (void *[]){&zend});
        for (uint16_t query = q; query <= q + 1; query++) {
            struct ___tracy_gpu_time_data t = {1000 + 10 * query, query, 0};
            fc_call(time, (void *[]){&t});
        }
    }
}

/* A GPU zone whose start time comes after a time sync or calibration, bracketed by a CPU
 * zone so the check can bound the CPU time the sync or calibration was taken at. (A time
 * answers a query that a zone reserved: the server aborts on any other.) */
static void emit_bracketed(int bracket, const char *name, void *data, int64_t gpu_time, uint16_t query, uint8_t context)
{
    struct ___tracy_gpu_zone_begin_data begin = {(uint64_t)(uintptr_t)&gpu_loc, query, context};
    struct ___tracy_gpu_zone_end_data end = {(uint16_t)(query + 100), context};
    CALL("___tracy_emit_gpu_zone_begin", &begin);
    CALL("___tracy_emit_gpu_zone_end", &end);
    TracyCZoneCtx z = CALL("___tracy_emit_zone_begin", A_PTR(&bracket_loc[bracket]), A_I32(1)).zone;
    fc_call(name, (void *[]){data});
    CALL("___tracy_emit_zone_end", &z);
    struct ___tracy_gpu_time_data t = {gpu_time, query, context},
                                  t_end = {gpu_time + 1, (uint16_t)(query + 100), context};
    CALL("___tracy_emit_gpu_time", &t);
    CALL("___tracy_emit_gpu_time", &t_end);
}

void emit_gpu(void)
{
    struct ___tracy_gpu_new_context_data ctx0 = {1000, 1.0f, 0, 0, 1};
    CALL("___tracy_emit_gpu_new_context", &ctx0);
    struct ___tracy_gpu_context_name_data name0 = {0, "ffi gpu and more", 7};
    CALL("___tracy_emit_gpu_context_name", &name0);
    emit_gpu_zones("", 1);
    emit_gpu_zones("_serial", 11);

    /* Context 1 is calibrated (flags bit 0), its clock starts at 0. */
    struct ___tracy_gpu_new_context_data ctx1 = {0, 1.0f, 1, 1, 2};
    CALL("___tracy_emit_gpu_new_context_serial", &ctx1);
    struct ___tracy_gpu_context_name_data name1 = {1, "ffi gpu 2", 9};
    CALL("___tracy_emit_gpu_context_name_serial", &name1);

    /* After a sync, gpu time G + d lands at the sync's CPU time + d. */
    emit_bracketed(0, "___tracy_emit_gpu_time_sync", &(struct ___tracy_gpu_time_sync_data){50000, 0}, 50500, 21, 0);
    emit_bracketed(1, "___tracy_emit_gpu_time_sync_serial", &(struct ___tracy_gpu_time_sync_data){60000, 0}, 60700, 22,
                   0);
    /* A calibration (gpu 1000, cpu delta 2000) after gpu 0 scales by 2: gpu 2000 lands at
     * its CPU time + 2000; the next (gpu 3000, delta 1000) scales by 0.5: 3400 -> + 200. */
    emit_bracketed(2, "___tracy_emit_gpu_calibration", &(struct ___tracy_gpu_calibration_data){1000, 2000, 1}, 2000, 31,
                   1);
    emit_bracketed(3, "___tracy_emit_gpu_calibration_serial", &(struct ___tracy_gpu_calibration_data){3000, 1000, 1},
                   3400, 32, 1);
}

static const struct tcd_event *gpu_event(const struct tt_capture *c, enum tcd_event_kind kind, uint16_t query,
                                         uint32_t context)
{
    for (size_t i = 0; i < c->len; i++) {
        const struct tcd_event *e = &c->events[i].ev;
        if (e->kind == kind && e->query == query && e->id == context)
            return e;
    }
    return NULL;
}

static void check_bracketed(const struct tt_capture *c, int bracket, uint16_t query, uint32_t context, int64_t offset)
{
    int64_t begin = 0, end = 0;
    const struct tcd_event *t = gpu_event(c, TCD_GPU_TIME, query, context);
    CHECK(zone_span(c, bracket_loc[bracket].name, &begin, &end) && t);
    if (t && !(t->time2 - offset >= begin && t->time2 - offset <= end))
        fprintf(stderr, "FAIL: gpu query %u at %lld, sync window [%lld, %lld] + %lld\n", query, (long long)t->time2,
                (long long)begin, (long long)end, (long long)offset);
    CHECK(t && t->time2 - offset >= begin && t->time2 - offset <= end);
}

void check_gpu(const struct tt_capture *c)
{
    const struct tcd_event *ctx0 = find_id(c, TCD_GPU_CONTEXT, 0);
    const struct tcd_event *ctx1 = find_id(c, TCD_GPU_CONTEXT, 1);
    CHECK(ctx0 && ctx0->format == 1 && ctx0->flags == 0 && ctx0->dvalue == 1.0);
    CHECK(ctx1 && ctx1->format == 2 && ctx1->flags == 1 && ctx1->dvalue == 1.0);
    const struct tcd_event *name = find_id(c, TCD_GPU_CONTEXT_NAME, 0);
    CHECK(name && strcmp(name->text, "ffi gpu") == 0);
    name = find_id(c, TCD_GPU_CONTEXT_NAME, 1);
    CHECK(name && strcmp(name->text, "ffi gpu 2") == 0);
    CHECK_EQ_INT(tt_count(c, TCD_GPU_ZONE_BEGIN), 12);
    CHECK_EQ_INT(tt_count(c, TCD_GPU_ZONE_END), 12);
    for (uint16_t first = 1; first <= 11; first += 10) {
        for (uint16_t q = first; q < first + 8; q += 2) {
            const struct tcd_event *b = gpu_event(c, TCD_GPU_ZONE_BEGIN, q, 0);
            CHECK(b && strcmp(tcd_srcloc(c->dec, b->srcloc)->name,
                              (q - first) / 2 < 2 ? "ffi gpu zone" : "ffi gpu alloc zone") == 0);
            CHECK(gpu_event(c, TCD_GPU_ZONE_END, (uint16_t)(q + 1), 0) != NULL);
            for (uint16_t query = q; query <= q + 1; query++) {
                const struct tcd_event *t = gpu_event(c, TCD_GPU_TIME, query, 0);
                CHECK(ctx0 && t && t->time2 == ctx0->time + 10 * query);
            }
        }
    }
    check_bracketed(c, 0, 21, 0, 500);
    check_bracketed(c, 1, 22, 0, 700);
    check_bracketed(c, 2, 31, 1, 2000);
    check_bracketed(c, 3, 32, 1, 200);
}

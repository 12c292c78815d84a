/* api_gpu.c - GPU contexts and zones. Non-serial zone items go to the calling thread's
 * stream (they use its time chain); everything else to the serial stream. */
#include "client/api.h"

#include <stdlib.h>
#include <string.h>

static uint64_t query_ctx(uint16_t query, uint8_t context)
{
    return (uint64_t)query | ((uint64_t)context << 16);
}

static void zone_begin(uint64_t srcloc, uint16_t query, uint8_t context, int alloc, int serial)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    struct tc_rec *r;
    if (serial) {
        r = tc_serial_reserve(TC_REC_GPU_ZONE_BEGIN, 0, 0);
    } else {
        struct tc_thread *owner;
        r = tc_thread_reserve(&owner, TC_REC_GPU_ZONE_BEGIN, 0, 0);
    }
    if (!r) {
        if (alloc)
            free((void *)(uintptr_t)srcloc);
        return;
    }
    r->u8 = (uint8_t)(alloc ? 1 : 0);
    r->u32 = t->tid;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = srcloc;
    r->w[2] = query_ctx(query, context);
    if (serial)
        tc_serial_commit();
    else
        tc_thread_commit(t);
}

static void zone_end(uint16_t query, uint8_t context, int serial)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    struct tc_rec *r;
    if (serial) {
        r = tc_serial_reserve(TC_REC_GPU_ZONE_END, 0, 1);
    } else {
        struct tc_thread *owner;
        r = tc_thread_reserve(&owner, TC_REC_GPU_ZONE_END, 0, 1);
    }
    if (!r)
        return;
    /* Contexts are created with a thread, so the server keeps one zone stack per
     * context and expects ends to carry thread 0, as upstream sends them. */
    r->u32 = 0;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = query_ctx(query, context);
    if (serial)
        tc_serial_commit();
    else
        tc_thread_commit(t);
}

static void gpu_time(int64_t gpu_time, uint16_t query, uint8_t context)
{
    struct tc_rec *r = tc_serial_reserve(TC_REC_GPU_TIME, 0, 1);
    if (!r)
        return;
    r->w[0] = (uint64_t)gpu_time;
    r->w[1] = query_ctx(query, context);
    tc_serial_commit();
}

static void new_context(const struct ___tracy_gpu_new_context_data d)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    struct tc_rec *r = tc_serial_reserve(TC_REC_GPU_NEW_CONTEXT, 0, 1);
    if (!r)
        return;
    uint32_t period;
    memcpy(&period, &d.period, 4);
    r->u8 = d.context;
    r->u32 = t->tid;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = (uint64_t)d.gpuTime;
    r->w[2] = period | ((uint64_t)d.flags << 32) | ((uint64_t)d.type << 40);
    tc_serial_commit();
}

static void context_name(const struct ___tracy_gpu_context_name_data d)
{
    if (!d.name)
        return;
    size_t len = tc_text_fit(d.name, d.len, TC_MAX_TEXT);
    struct tc_rec *r = tc_serial_reserve(TC_REC_GPU_CONTEXT_NAME, len, 1);
    if (!r)
        return;
    r->u8 = d.context;
    memcpy((char *)tc_rec_text(r), d.name, len);
    tc_serial_commit();
}

static void calibration(const struct ___tracy_gpu_calibration_data d)
{
    struct tc_rec *r = tc_serial_reserve(TC_REC_GPU_CALIBRATION, 0, 0);
    if (!r)
        return;
    r->u8 = d.context;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = (uint64_t)d.gpuTime;
    r->w[2] = (uint64_t)d.cpuDelta;
    tc_serial_commit();
}

static void time_sync(const struct ___tracy_gpu_time_sync_data d)
{
    struct tc_rec *r = tc_serial_reserve(TC_REC_GPU_TIME_SYNC, 0, 0);
    if (!r)
        return;
    r->u8 = d.context;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = (uint64_t)d.gpuTime;
    tc_serial_commit();
}

void ___tracy_emit_gpu_zone_begin(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 0, 0);
}

void ___tracy_emit_gpu_zone_begin_callstack(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 0, 0);
}

void ___tracy_emit_gpu_zone_begin_alloc(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 1, 0);
}

void ___tracy_emit_gpu_zone_begin_alloc_callstack(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 1, 0);
}

void ___tracy_emit_gpu_zone_end(const struct ___tracy_gpu_zone_end_data d)
{
    zone_end(d.queryId, d.context, 0);
}

void ___tracy_emit_gpu_time(const struct ___tracy_gpu_time_data d)
{
    gpu_time(d.gpuTime, d.queryId, d.context);
}

void ___tracy_emit_gpu_new_context(const struct ___tracy_gpu_new_context_data d)
{
    new_context(d);
}

void ___tracy_emit_gpu_context_name(const struct ___tracy_gpu_context_name_data d)
{
    context_name(d);
}

void ___tracy_emit_gpu_calibration(const struct ___tracy_gpu_calibration_data d)
{
    calibration(d);
}

void ___tracy_emit_gpu_time_sync(const struct ___tracy_gpu_time_sync_data d)
{
    time_sync(d);
}

void ___tracy_emit_gpu_zone_begin_serial(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 0, 1);
}

void ___tracy_emit_gpu_zone_begin_callstack_serial(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 0, 1);
}

void ___tracy_emit_gpu_zone_begin_alloc_serial(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 1, 1);
}

void ___tracy_emit_gpu_zone_begin_alloc_callstack_serial(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 1, 1);
}

void ___tracy_emit_gpu_zone_end_serial(const struct ___tracy_gpu_zone_end_data d)
{
    zone_end(d.queryId, d.context, 1);
}

void ___tracy_emit_gpu_time_serial(const struct ___tracy_gpu_time_data d)
{
    gpu_time(d.gpuTime, d.queryId, d.context);
}

void ___tracy_emit_gpu_new_context_serial(const struct ___tracy_gpu_new_context_data d)
{
    new_context(d);
}

void ___tracy_emit_gpu_context_name_serial(const struct ___tracy_gpu_context_name_data d)
{
    context_name(d);
}

void ___tracy_emit_gpu_calibration_serial(const struct ___tracy_gpu_calibration_data d)
{
    calibration(d);
}

void ___tracy_emit_gpu_time_sync_serial(const struct ___tracy_gpu_time_sync_data d)
{
    time_sync(d);
}

/* api_gpu.c - GPU contexts, zones and times. Every GPU event goes to the serial stream,
 * whether the program called the serial or the plain variant: a time is read against
 * the latest calibration or time sync of its context and must follow the zone that
 * reserved its query, so GPU events need one order across threads and streams. (The
 * plain variants are sent as the protocol's serial items, which the server treats the
 * same.) */
#include "client/api.h"

#include <stdlib.h>

static void zone_begin(uint64_t srcloc, uint16_t query, uint8_t context, int alloc, const uint64_t *frames, int n)
{
    struct tc_thread *t = tc_thread_get();
    union tc_rec *r = t ? tc_serial_reserve_callstack(TC_REC_GPU_ZONE_BEGIN, 0, 0, frames, n) : NULL;
    if (!r) {
        if (alloc)
            tc_srcloc_payload_free(srcloc);
        return;
    }
    r->gpu_zone_begin.alloc = alloc != 0;
    r->gpu_zone_begin.thread = t->tid;
    r->gpu_zone_begin.time = tc_clock_now();
    r->gpu_zone_begin.srcloc = srcloc;
    r->gpu_zone_begin.query = query;
    r->gpu_zone_begin.context = context;
    tc_serial_commit();
}

static void zone_end(uint16_t query, uint8_t context)
{
    union tc_rec *r = tc_serial_reserve(TC_REC_GPU_ZONE_END, 0, 1);
    if (!r)
        return;
    /* Contexts are created with a thread, so the server keeps one zone stack per
     * context and expects ends to carry thread 0, as upstream sends them. */
    r->gpu_zone_end.thread = 0;
    r->gpu_zone_end.time = tc_clock_now();
    r->gpu_zone_end.query = query;
    r->gpu_zone_end.context = context;
    tc_serial_commit();
}

static void gpu_time(int64_t gpu_time, uint16_t query, uint8_t context)
{
    union tc_rec *r = tc_serial_reserve(TC_REC_GPU_TIME, 0, 1);
    if (!r)
        return;
    r->gpu_time.gpu_time = gpu_time;
    r->gpu_time.query = query;
    r->gpu_time.context = context;
    tc_serial_commit();
}

static void new_context(const struct ___tracy_gpu_new_context_data d)
{
    struct tc_thread *t = tc_thread_get();
    if (!t)
        return;
    union tc_rec *r = tc_serial_reserve(TC_REC_GPU_NEW_CONTEXT, 0, 1);
    if (!r)
        return;
    r->gpu_new_context.context = d.context;
    r->gpu_new_context.thread = t->tid;
    r->gpu_new_context.cpu_time = tc_clock_now();
    r->gpu_new_context.gpu_time = d.gpuTime;
    r->gpu_new_context.period = d.period;
    r->gpu_new_context.flags = d.flags;
    r->gpu_new_context.gpu_type = d.type;
    tc_serial_commit();
}

static void context_name(const struct ___tracy_gpu_context_name_data d)
{
    if (!d.name)
        return;
    union tc_rec *r = tc_serial_reserve_text(TC_REC_GPU_CONTEXT_NAME, d.name, d.len, 1);
    if (!r)
        return;
    r->gpu_context_name.context = d.context;
    tc_serial_commit();
}

static void calibration(const struct ___tracy_gpu_calibration_data d)
{
    union tc_rec *r = tc_serial_reserve(TC_REC_GPU_CALIBRATION, 0, 0);
    if (!r)
        return;
    r->gpu_calibration.context = d.context;
    r->gpu_calibration.cpu_time = tc_clock_now();
    r->gpu_calibration.gpu_time = d.gpuTime;
    r->gpu_calibration.cpu_delta = d.cpuDelta;
    tc_serial_commit();
}

static void time_sync(const struct ___tracy_gpu_time_sync_data d)
{
    union tc_rec *r = tc_serial_reserve(TC_REC_GPU_TIME_SYNC, 0, 0);
    if (!r)
        return;
    r->gpu_time_sync.context = d.context;
    r->gpu_time_sync.cpu_time = tc_clock_now();
    r->gpu_time_sync.gpu_time = d.gpuTime;
    tc_serial_commit();
}

void ___tracy_emit_gpu_zone_begin(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 0, NULL, 0);
}

void ___tracy_emit_gpu_zone_begin_callstack(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, d.depth);
    zone_begin(d.srcloc, d.queryId, d.context, 0, frames, n);
}

void ___tracy_emit_gpu_zone_begin_alloc(const struct ___tracy_gpu_zone_begin_data d)
{
    zone_begin(d.srcloc, d.queryId, d.context, 1, NULL, 0);
}

void ___tracy_emit_gpu_zone_begin_alloc_callstack(const struct ___tracy_gpu_zone_begin_callstack_data d)
{
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, d.depth);
    zone_begin(d.srcloc, d.queryId, d.context, 1, frames, n);
}

void ___tracy_emit_gpu_zone_end(const struct ___tracy_gpu_zone_end_data d)
{
    zone_end(d.queryId, d.context);
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

/* The serial forms are the plain ones: every GPU event is serial here (see the top). */
#define TC_GPU_SERIAL(name, data)                                                                                      \
    void ___tracy_emit_gpu_##name##_serial(const struct ___tracy_gpu_##data d)                                         \
        __attribute__((alias("___tracy_emit_gpu_" #name)));
TC_GPU_SERIAL(zone_begin, zone_begin_data)
TC_GPU_SERIAL(zone_begin_callstack, zone_begin_callstack_data)
TC_GPU_SERIAL(zone_begin_alloc, zone_begin_data)
TC_GPU_SERIAL(zone_begin_alloc_callstack, zone_begin_callstack_data)
TC_GPU_SERIAL(zone_end, zone_end_data)
TC_GPU_SERIAL(time, time_data)
TC_GPU_SERIAL(new_context, new_context_data)
TC_GPU_SERIAL(context_name, context_name_data)
TC_GPU_SERIAL(calibration, calibration_data)
TC_GPU_SERIAL(time_sync, time_sync_data)

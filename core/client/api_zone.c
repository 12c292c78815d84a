/* api_zone.c - zones: the hot path. No lock, no system call, no allocation. */
#include "client/api.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static const TracyCZoneCtx inactive_zone = {0, 0};

/* Writes the begin record r of a zone and opens the zone in t's context. */
static inline TracyCZoneCtx zone_opened(struct tc_thread *t, union tc_rec *r, unsigned type, uint64_t srcloc,
                                        int64_t time)
{
    if (type == TC_REC_ZONE_BEGIN_ALLOC) { /* a constant where this is inlined */
        r->zone_begin_alloc = (struct tc_rec_zone_begin_alloc){
            .type = TC_REC_ZONE_BEGIN_ALLOC, .time = time, .payload = (uint8_t *)(uintptr_t)srcloc};
        tc_thread_owns_heap(t);
    } else
        r->zone_begin = (struct tc_rec_zone_begin){.type = TC_REC_ZONE_BEGIN, .time = time, .srcloc = srcloc};
    /* Not published yet: the next record of this thread (at the latest the zone's end)
     * publishes it. That saves one cache-line transfer to the worker per zone, and the
     * server could not close the zone before its end anyway. */
    TracyCZoneCtx ctx = {t->zones.key | (++t->zones.depth & 0xfffff), 1};
    return ctx;
}

/* The time is read first, so that it does not include the reservation. The first call
 * of a thread (maybe of the process) takes the slow path, where the profiler may only now
 * start and choose the clock source (TSC ticks or nanoseconds): there the time is read
 * again, since one read before the start would be in the wrong unit. Inlined with a
 * constant `now`, the choice costs nothing. */
static inline TracyCZoneCtx zone_begin(unsigned type, uint64_t srcloc, int now, int64_t time)
{
    if (now)
        time = tc_clock_now();
    struct tc_thread *t = tc_self;
    if (__builtin_expect(!t, 0)) {
        if (!(t = tc_thread_attach()))
            return inactive_zone;
        if (now)
            time = tc_clock_now();
    }
    union tc_rec *r = tc_stream_reserve(&t->stream, tc_rec_size(type, 0), 0);
    if (__builtin_expect(!r, 0)) {
        tc_count_drop();
        return inactive_zone;
    }
    return zone_opened(t, r, type, srcloc, time);
}

/* With a callstack captured by the caller (which started the profiler): the time is read
 * after the capture, so the zone does not include it. */
static TracyCZoneCtx zone_begin_callstack(unsigned type, uint64_t srcloc, const uint64_t *frames, int n)
{
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve_callstack(&t, type, 0, frames, n);
    return r ? zone_opened(t, r, type, srcloc, tc_clock_now()) : inactive_zone;
}

TracyCZoneCtx ___tracy_emit_zone_begin(const struct ___tracy_source_location_data *srcloc, int32_t active)
{
    if (!active || !srcloc)
        return inactive_zone;
    return zone_begin(TC_REC_ZONE_BEGIN, (uint64_t)(uintptr_t)srcloc, 1, 0);
}

TracyCZoneCtx tracyc_zone_begin_at(const struct ___tracy_source_location_data *srcloc, int64_t time)
{
    if (!srcloc)
        return inactive_zone;
    return zone_begin(TC_REC_ZONE_BEGIN, (uint64_t)(uintptr_t)srcloc, 0, time);
}

TracyCZoneCtx ___tracy_emit_zone_begin_callstack(const struct ___tracy_source_location_data *srcloc, int32_t depth,
                                                 int32_t active)
{
    if (depth <= 0)
        return ___tracy_emit_zone_begin(srcloc, active);
    if (!active || !srcloc)
        return inactive_zone;
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    return zone_begin_callstack(TC_REC_ZONE_BEGIN, (uint64_t)(uintptr_t)srcloc, frames, n);
}

TracyCZoneCtx ___tracy_emit_zone_begin_alloc(uint64_t srcloc, int32_t active)
{
    if (!srcloc)
        return inactive_zone;
    TracyCZoneCtx ctx = active ? zone_begin(TC_REC_ZONE_BEGIN_ALLOC, srcloc, 1, 0) : inactive_zone;
    if (!ctx.active)
        tc_srcloc_payload_free(srcloc);
    return ctx;
}

TracyCZoneCtx ___tracy_emit_zone_begin_alloc_callstack(uint64_t srcloc, int32_t depth, int32_t active)
{
    if (depth <= 0 || !srcloc || !active)
        return ___tracy_emit_zone_begin_alloc(srcloc, active);
    uint64_t frames[TCN_CALLSTACK_MAX];
    int n = TC_CAPTURE_CALLSTACK(frames, depth);
    TracyCZoneCtx ctx = zone_begin_callstack(TC_REC_ZONE_BEGIN_ALLOC, srcloc, frames, n);
    if (!ctx.active)
        tc_srcloc_payload_free(srcloc);
    return ctx;
}

/* The zone of ctx is the innermost open zone of the calling thread's context: the fiber
 * it runs, or else the thread itself. A zone ended in another context, ended twice or
 * out of order would make the server abort the whole capture, so such calls are ignored
 * (and reported through tracyc_last_error). */
static inline struct tc_thread *innermost(TracyCZoneCtx ctx)
{
    struct tc_thread *t = tc_self;
    if (__builtin_expect(t && ctx.id == (t->zones.key | (t->zones.depth & 0xfffff)) && t->zones.depth, 1))
        return t;
    tc_set_error("zone %u is not the innermost open zone of this thread or fiber", ctx.id);
    return NULL;
}

static inline void zone_end_at(TracyCZoneCtx ctx, int64_t time)
{
    struct tc_thread *t = innermost(ctx);
    if (!t)
        return;
    t->zones.depth--;
    /* Forced: the begin was recorded, so the end must be, even past the buffer limit. */
    union tc_rec *r = tc_stream_reserve(&t->stream, tc_rec_size(TC_REC_ZONE_END, 0), 1);
    if (__builtin_expect(!r, 0)) {
        tc_count_drop();
        return;
    }
    r->zone_end = (struct tc_rec_zone_end){.type = TC_REC_ZONE_END, .time = time};
    tc_thread_commit(t);
}

void ___tracy_emit_zone_end(TracyCZoneCtx ctx)
{
    if (ctx.active)
        zone_end_at(ctx, tc_clock_now());
}

void tracyc_zone_end_at(TracyCZoneCtx ctx, int64_t time)
{
    if (ctx.active)
        zone_end_at(ctx, time);
}

static void zone_text(TracyCZoneCtx ctx, unsigned type, const char *txt, size_t size)
{
    if (!ctx.active || !txt || !innermost(ctx))
        return;
    struct tc_thread *t;
    if (tc_thread_reserve_text(&t, type, txt, &size))
        tc_thread_commit(t);
}

void ___tracy_emit_zone_text(TracyCZoneCtx ctx, const char *txt, size_t size)
{
    zone_text(ctx, TC_REC_ZONE_TEXT, txt, size);
}

void ___tracy_emit_zone_name(TracyCZoneCtx ctx, const char *txt, size_t size)
{
    zone_text(ctx, TC_REC_ZONE_NAME, txt, size);
}

static void zone_text_vfmt(TracyCZoneCtx ctx, unsigned type, const char *fmt, va_list ap)
{
    if (!ctx.active || !fmt)
        return;
    char stack[1024];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(stack, sizeof stack, fmt, copy);
    va_end(copy);
    if (n < 0)
        return;
    if ((size_t)n < sizeof stack) {
        zone_text(ctx, type, stack, (size_t)n);
        return;
    }
    char *heap = malloc((size_t)n + 1);
    if (!heap)
        return;
    vsnprintf(heap, (size_t)n + 1, fmt, ap);
    zone_text(ctx, type, heap, (size_t)n);
    free(heap);
}

void ___tracy_emit_zone_text_fmt(TracyCZoneCtx ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    zone_text_vfmt(ctx, TC_REC_ZONE_TEXT, fmt, ap);
    va_end(ap);
}

void ___tracy_emit_zone_name_fmt(TracyCZoneCtx ctx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    zone_text_vfmt(ctx, TC_REC_ZONE_NAME, fmt, ap);
    va_end(ap);
}

void ___tracy_emit_zone_color(TracyCZoneCtx ctx, uint32_t color)
{
    if (!ctx.active || !innermost(ctx))
        return;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_ZONE_COLOR, 0, 0);
    if (!r)
        return;
    r->zone_color.color = color;
    tc_thread_commit(t);
}

void ___tracy_emit_zone_value(TracyCZoneCtx ctx, uint64_t value)
{
    if (!ctx.active || !innermost(ctx))
        return;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_ZONE_VALUE, 0, 0);
    if (!r)
        return;
    r->zone_value.value = value;
    tc_thread_commit(t);
}

/* conn_records.c - turns the records of a thread's stream or of the serial stream into
 * protocol items on one connection. */
#include "client/conn.h"

#include "client/clock.h"
#include "client/record.h"
#include "client/state.h"
#include "tracyc.h"
#include "wire/protocol.h"

#include <inttypes.h>
#include <stdio.h>

/* The callstack a record carries, sent just before it: to the current thread's next event
 * (thread-bound) or to the next serial event. */
static void send_callstack(struct tc_encoder *e, const struct tc_rec_callstack *cs, int serial)
{
    tc_enc_callstack(e, serial ? TCW_CallstackSerial : TCW_Callstack,
                     (const uint64_t *)tc_rec_text((const union tc_rec *)cs), cs->len / 8);
}

static void encode_gpu_zone_begin(struct tc_conn *c, const struct tc_rec_gpu_zone_begin *z, int serial,
                                  const struct tc_rec_callstack *cs)
{
    /* [serial][alloc][callstack] */
    static const uint8_t types[2][2][2] = {
        {{TCW_GpuZoneBegin, TCW_GpuZoneBeginCallstack},
         {TCW_GpuZoneBeginAllocSrcLoc, TCW_GpuZoneBeginAllocSrcLocCallstack}},
        {{TCW_GpuZoneBeginSerial, TCW_GpuZoneBeginCallstackSerial},
         {TCW_GpuZoneBeginAllocSrcLocSerial, TCW_GpuZoneBeginAllocSrcLocCallstackSerial}}};
    if (cs)
        send_callstack(&c->enc, cs, serial);
    if (z->alloc)
        tc_enc_srcloc_payload(&c->enc, (const uint8_t *)(uintptr_t)z->srcloc);
    tc_enc_gpu_zone_begin(&c->enc, types[serial][z->alloc][cs != NULL], z->time, z->thread, z->query, z->context,
                          z->alloc ? 0 : tc_conn_srcloc_id(c, z->srcloc), serial);
}

/* Thread-bound records: zones, messages, plots, frames, fibers, non-serial GPU items. cs:
 * the record's callstack, or NULL. */
static void encode_thread_record(struct tc_conn *c, struct tc_thread *t, const union tc_rec *r,
                                 const struct tc_rec_callstack *cs)
{
    struct tc_encoder *e = &c->enc;
    uint32_t *depth = &t->conn_depth[c->slot];
    tc_enc_thread(e, t->tid);
    /* Only records that always go out carry callstacks (zone begins, messages, GPU zone
     * begins), so the callstack is never left waiting for an event that is not sent. */
    if (cs && r->any.type != TC_REC_GPU_ZONE_BEGIN)
        send_callstack(e, cs, 0);
    switch (r->any.type) {
    case TC_REC_ZONE_BEGIN:
        if (cs)
            tc_enc_zone_begin_callstack(e, r->zone_begin.time, tc_conn_srcloc_id(c, r->zone_begin.srcloc));
        else
            tc_enc_zone_begin(e, r->zone_begin.time, tc_conn_srcloc_id(c, r->zone_begin.srcloc));
        ++*depth;
        break;
    case TC_REC_ZONE_BEGIN_ALLOC:
        if (cs)
            tc_enc_zone_begin_alloc_callstack(e, r->zone_begin_alloc.time, r->zone_begin_alloc.payload);
        else
            tc_enc_zone_begin_alloc(e, r->zone_begin_alloc.time, r->zone_begin_alloc.payload);
        ++*depth;
        break;
    case TC_REC_ZONE_END:
        /* A zone begun before this connection existed is not open on it. */
        if (*depth) {
            tc_enc_zone_end(e, r->zone_end.time);
            --*depth;
        }
        break;
    case TC_REC_ZONE_TEXT:
    case TC_REC_ZONE_NAME:
        if (*depth)
            tc_enc_zone_text(e, r->any.type == TC_REC_ZONE_TEXT ? TCW_ZoneText : TCW_ZoneName, tc_rec_text(r),
                             r->any.len);
        break;
    case TC_REC_ZONE_COLOR:
        if (*depth)
            tc_enc_zone_color(e, r->zone_color.color);
        break;
    case TC_REC_ZONE_VALUE:
        if (*depth)
            tc_enc_zone_value(e, r->zone_value.value);
        break;
    case TC_REC_MESSAGE:
        (cs ? tc_enc_message_callstack : tc_enc_message)(e, r->message.time, tc_rec_text(r), r->any.len,
                                                         r->message.color, TCW_MESSAGE_META(r->message.severity));
        break;
    case TC_REC_MESSAGE_LITERAL:
        (cs ? tc_enc_message_literal_callstack
            : tc_enc_message_literal)(e, r->message_literal.time, tc_conn_string_id(c, r->message_literal.text),
                                      r->message_literal.color, TCW_MESSAGE_META(r->message_literal.severity));
        break;
    case TC_REC_PLOT_DOUBLE:
    case TC_REC_PLOT_FLOAT:
    case TC_REC_PLOT_INT: {
        static const uint8_t types[] = {TCW_PlotDataDouble, TCW_PlotDataFloat, TCW_PlotDataInt};
        tc_enc_plot(e, types[r->any.type - TC_REC_PLOT_DOUBLE], tc_conn_string_id(c, r->plot.name), r->plot.time,
                    r->plot.value_bits);
        break;
    }
    case TC_REC_FRAME_MARK:
    case TC_REC_FRAME_START:
    case TC_REC_FRAME_END: {
        static const uint8_t types[] = {TCW_FrameMarkMsg, TCW_FrameMarkMsgStart, TCW_FrameMarkMsgEnd};
        tc_enc_frame_mark(e, types[r->any.type - TC_REC_FRAME_MARK], r->frame.time,
                          tc_conn_string_id(c, r->frame.name));
        break;
    }
    case TC_REC_FRAME_IMAGE: {
        const struct tc_frame_image *img = r->frame_image.image;
        tc_enc_frame_image(e, (uint64_t)(uintptr_t)img, img->data, img->size, img->frame, img->w, img->h, img->flip);
        break;
    }
    case TC_REC_FIBER_ENTER:
        tc_enc_fiber_enter(e, r->fiber_enter.time, tc_conn_string_id(c, r->fiber_enter.fiber), t->tid);
        t->conn_fiber[c->slot] = (uint64_t)(uintptr_t)r->fiber_enter.fiber;
        break;
    case TC_REC_FIBER_LEAVE:
        if (t->conn_fiber[c->slot]) {
            tc_enc_fiber_leave(e, r->fiber_leave.time, t->tid);
            t->conn_fiber[c->slot] = 0;
        }
        break;
    case TC_REC_GPU_ZONE_BEGIN:
        encode_gpu_zone_begin(c, &r->gpu_zone_begin, 0, cs);
        break;
    case TC_REC_GPU_ZONE_END:
        tc_enc_gpu_zone_end(e, TCW_GpuZoneEnd, r->gpu_zone_end.time, r->gpu_zone_end.thread, r->gpu_zone_end.query,
                            r->gpu_zone_end.context, 0);
        break;
    case TC_REC_SECTION_ENTER:
        tc_enc_section_enter(e, r->section_enter.time, r->section_enter.id, r->section_enter.category, tc_rec_text(r),
                             r->any.len);
        break;
    case TC_REC_SECTION_LEAVE:
        tc_enc_section_leave(e, r->section_leave.time, r->section_leave.id);
        break;
    default:
        break;
    }
}

static uint8_t lock_item(unsigned type, int shared)
{
    switch (type) {
    case TC_REC_LOCK_WAIT:
        return shared ? TCW_LockSharedWait : TCW_LockWait;
    case TC_REC_LOCK_OBTAIN:
        return shared ? TCW_LockSharedObtain : TCW_LockObtain;
    default:
        return shared ? TCW_LockSharedRelease : TCW_LockRelease;
    }
}

/* Serial records: memory, locks, GPU contexts and serial GPU items, plot configuration;
 * and the sampler's records (samples, context switches). cs: the record's callstack, or
 * NULL; sent only together with the event, never without it. */
static void encode_serial_record(struct tc_conn *c, const union tc_rec *r, const struct tc_rec_callstack *cs)
{
    struct tc_encoder *e = &c->enc;
    switch (r->any.type) {
    case TC_REC_MEM_ALLOC: {
        const struct tc_rec_mem_alloc *m = &r->mem_alloc;
        uint64_t pool = tc_conn_string_id(c, m->pool);
        if (pool)
            tcu_map_put(&c->pools, pool, 1);
        if (cs)
            send_callstack(e, cs, 1);
        tc_enc_mem_alloc(e, m->time, m->thread, m->address, m->size, pool, cs != NULL);
        break;
    }
    case TC_REC_MEM_FREE:
        if (cs)
            send_callstack(e, cs, 1);
        tc_enc_mem_free(e, r->mem_free.time, r->mem_free.thread, r->mem_free.address,
                        tc_conn_string_id(c, r->mem_free.pool), cs != NULL);
        break;
    case TC_REC_MEM_DISCARD: {
        uint64_t pool = (uint64_t)(uintptr_t)r->mem_discard.pool;
        /* The server ignores a discard of an unknown pool without advancing its time
         * chain, which would shift every later serial time: send known pools only. */
        if (tcu_map_get(&c->pools, pool)) {
            if (cs)
                send_callstack(e, cs, 1);
            tc_enc_mem_discard(e, r->mem_discard.time, r->mem_discard.thread, pool, cs != NULL);
        }
        break;
    }
    case TC_REC_SAMPLE:
        tc_enc_callstack_sample(e, r->sample.thread, r->sample.time, (const uint64_t *)tc_rec_text(r), r->any.len / 8);
        break;
    case TC_REC_CONTEXT_SWITCH:
        tc_conn_context_switch(c, &r->context_switch);
        break;
    case TC_REC_LOCK_ANNOUNCE:
        tc_enc_lock_announce(e, r->lock_announce.lock, r->lock_announce.time,
                             tc_conn_srcloc_id(c, r->lock_announce.srcloc), r->lock_announce.shared);
        break;
    case TC_REC_LOCK_TERMINATE:
        tc_enc_lock_terminate(e, r->lock_terminate.lock, r->lock_terminate.time);
        break;
    case TC_REC_LOCK_WAIT:
    case TC_REC_LOCK_OBTAIN:
    case TC_REC_LOCK_RELEASE:
        tc_enc_lock_event(e, lock_item(r->any.type, r->lock_event.shared), r->lock_event.lock, r->lock_event.time,
                          r->lock_event.thread);
        break;
    case TC_REC_LOCK_MARK:
        tc_enc_lock_mark(e, r->lock_mark.lock, r->lock_mark.thread, tc_conn_srcloc_id(c, r->lock_mark.srcloc));
        break;
    case TC_REC_LOCK_NAME:
        tc_enc_lock_name(e, r->lock_name.lock, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_APP_INFO:
        tc_enc_app_info(e, r->app_info.time, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_SECTION_SETUP:
        tc_enc_section_setup(e, (uint16_t)r->section_setup.category, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_PLOT_CONFIG:
        tc_enc_plot_config(e, tc_conn_string_id(c, r->plot_config.name), r->plot_config.format, r->plot_config.step,
                           r->plot_config.fill, r->plot_config.color);
        break;
    case TC_REC_GPU_NEW_CONTEXT: {
        const struct tc_rec_gpu_new_context *g = &r->gpu_new_context;
        tc_enc_gpu_new_context(e, g->cpu_time, g->gpu_time, g->thread, g->period, g->context, g->flags, g->gpu_type);
        break;
    }
    case TC_REC_GPU_CONTEXT_NAME:
        tc_enc_gpu_context_name(e, r->gpu_context_name.context, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_GPU_CALIBRATION:
        tc_enc_gpu_calibration(e, r->gpu_calibration.gpu_time, r->gpu_calibration.cpu_time,
                               r->gpu_calibration.cpu_delta, r->gpu_calibration.context);
        break;
    case TC_REC_GPU_TIME_SYNC:
        tc_enc_gpu_time_sync(e, r->gpu_time_sync.gpu_time, r->gpu_time_sync.cpu_time, r->gpu_time_sync.context);
        break;
    case TC_REC_GPU_TIME:
        tc_enc_gpu_time(e, r->gpu_time.gpu_time, r->gpu_time.query, r->gpu_time.context);
        break;
    case TC_REC_GPU_ZONE_BEGIN:
        encode_gpu_zone_begin(c, &r->gpu_zone_begin, 1, cs);
        break;
    case TC_REC_GPU_ZONE_END:
        tc_enc_gpu_zone_end(e, TCW_GpuZoneEndSerial, r->gpu_zone_end.time, r->gpu_zone_end.thread,
                            r->gpu_zone_end.query, r->gpu_zone_end.context, 1);
        break;
    default:
        break;
    }
}

void tc_conn_records(struct tc_conn *c, struct tc_thread *t, const uint8_t *begin, const uint8_t *end)
{
    if (!c->alive)
        return;
    while (begin < end) {
        const union tc_rec *r = (const union tc_rec *)begin;
        const struct tc_rec_callstack *cs = NULL;
        if (r->any.type == TC_REC_CALLSTACK) {
            /* Reserved and published together with the record that follows it. */
            cs = &r->callstack;
            begin += tc_rec_size(r->any.type, r->any.len);
            if (begin >= end)
                break;
            r = (const union tc_rec *)begin;
        }
        if (t)
            encode_thread_record(c, t, r, cs);
        else
            encode_serial_record(c, r, cs);
        begin += tc_rec_size(r->any.type, r->any.len);
    }
}

void tc_conn_record(struct tc_conn *c, struct tc_thread *t, const union tc_rec *r)
{
    const uint8_t *begin = (const uint8_t *)r;
    tc_conn_records(c, t, begin, begin + tc_rec_size(r->any.type, r->any.len));
}

void tc_conn_report_drops(struct tc_conn *c, uint64_t dropped)
{
    if (!c->alive || dropped <= c->dropped_reported)
        return;
    char text[160];
    int n =
        snprintf(text, sizeof text, "tracyc: dropped %" PRIu64 " events in total: buffer limit of %zu bytes reached",
                 dropped, tc_buffer_limit);
    tc_enc_thread(&c->enc, tc_prof.main_tid);
    tc_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                   (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
    c->dropped_reported = dropped;
}

void tc_conn_report_sampling(struct tc_conn *c, const char *unavailable, uint64_t lost, int final)
{
    if (!c->alive)
        return;
    char text[400];
    if (unavailable && !c->sampling_reported) {
        int n = snprintf(text, sizeof text, "tracyc: %s", unavailable);
        tc_enc_thread(&c->enc, tc_prof.main_tid);
        tc_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                       (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
        c->sampling_reported = 1;
    }
    /* Lost records: at most once a second, and at the end. */
    int64_t now = tc_clock_monotonic_ns();
    if (lost > c->lost_reported && (final || now - c->lost_report_time >= 1000000000)) {
        int n = snprintf(text, sizeof text,
                         "tracyc: lost %" PRIu64 " CPU samples and context switches in total: the kernel's ring "
                         "buffers were full",
                         lost);
        tc_enc_thread(&c->enc, tc_prof.main_tid);
        tc_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                       (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
        c->lost_reported = lost;
        c->lost_report_time = now;
    }
}

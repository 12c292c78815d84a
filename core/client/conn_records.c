/* conn_records.c - turns the records of a thread's stream or of the serial stream into
 * protocol items on one connection. */
#include "client/conn.h"

#include "client/clock.h"
#include "client/fiber.h"
#include "client/record.h"
#include "client/state.h"
#include "tracyc.h"
#include "util/monotonic.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* The callstack a record carries, sent just before it: to the current thread's next event
 * (thread-bound) or to the next serial event. */
static void send_callstack(struct tcw_encoder *e, const struct tc_rec_callstack *cs, int serial)
{
    tcw_enc_callstack(e, serial ? TCW_CallstackSerial : TCW_Callstack,
                      (const uint64_t *)tc_rec_text((const union tc_rec *)cs), cs->len / 8);
}

/* The server gives each GPU context one zone stack and keeps, per query, the zone that
 * reserved it: a zone end with no open zone, or a time for a query no zone reserved,
 * makes it abort. A zone begun before this connection existed (or dropped at the buffer
 * limit) has neither on this connection, so its end and times are not sent. Keys: the
 * context's depth under GPU_DEPTH | context, a reserved query under context << 16 | query. */
#define GPU_DEPTH ((uint64_t)1 << 32)

static void gpu_zone_begin(struct tc_conn *c, const struct tc_rec_gpu_zone_begin *z, const struct tc_rec_callstack *cs)
{
    static const uint8_t types[2][2] = {
        {TCW_GpuZoneBeginSerial, TCW_GpuZoneBeginCallstackSerial},
        {TCW_GpuZoneBeginAllocSrcLocSerial, TCW_GpuZoneBeginAllocSrcLocCallstackSerial}};
    uint64_t *depth = tcu_map_get(&c->gpu, GPU_DEPTH | z->context);
    if (tcu_map_put(&c->gpu, GPU_DEPTH | z->context, (depth ? *depth : 0) + 1) < 0 ||
        tcu_map_put(&c->gpu, (uint64_t)z->context << 16 | z->query, 1) < 0)
        return;
    if (cs)
        send_callstack(&c->enc, cs, 1);
    if (z->alloc)
        tcw_enc_srcloc_payload(&c->enc, (const uint8_t *)(uintptr_t)z->srcloc);
    tcw_enc_gpu_zone_begin(&c->enc, types[z->alloc][cs != NULL], z->time, z->thread, z->query, z->context,
                           z->alloc ? 0 : tc_conn_srcloc_id(c, z->srcloc), 1);
}

static void gpu_zone_end(struct tc_conn *c, const struct tc_rec_gpu_zone_end *z)
{
    uint64_t *depth = tcu_map_get(&c->gpu, GPU_DEPTH | z->context);
    if (!depth || !*depth || tcu_map_put(&c->gpu, (uint64_t)z->context << 16 | z->query, 1) < 0)
        return;
    depth = tcu_map_get(&c->gpu, GPU_DEPTH | z->context); /* the put may have moved it */
    --*depth;
    tcw_enc_gpu_zone_end(&c->enc, TCW_GpuZoneEndSerial, z->time, z->thread, z->query, z->context, 1);
}

static void gpu_time(struct tc_conn *c, const struct tc_rec_gpu_time *g)
{
    if (tcu_map_remove(&c->gpu, (uint64_t)g->context << 16 | g->query, NULL))
        tcw_enc_gpu_time(&c->enc, g->gpu_time, g->query, g->context);
}

/* The server fails the capture on a discontinuous frame's end whose start it never saw,
 * so an end is sent only after its start went out on this connection. */
static void encode_frame(struct tc_conn *c, unsigned type, const struct tc_rec_frame *f)
{
    static const uint8_t types[] = {TCW_FrameMarkMsg, TCW_FrameMarkMsgStart, TCW_FrameMarkMsgEnd};
    uint64_t name = (uint64_t)(uintptr_t)f->name;
    if (type == TC_REC_FRAME_MARK && !f->name && c->frame_base < 0)
        c->frame_base = (int64_t)f->index - 1;
    else if (type == TC_REC_FRAME_START && tcu_map_put(&c->frames, name, 1) < 0)
        return;
    else if (type == TC_REC_FRAME_END && !tcu_map_remove(&c->frames, name, NULL))
        return;
    tcw_enc_frame_mark(&c->enc, types[type - TC_REC_FRAME_MARK], f->time, tc_conn_string_id(c, f->name));
}

/* The server numbers frames from the first main frame mark it receives, so an image is
 * numbered likewise; one of a frame from before this connection is not sent. */
static void encode_frame_image(struct tc_conn *c, const struct tc_frame_image *img)
{
    if (c->frame_base < 0)
        c->frame_base = img->frames;
    if (img->frame < c->frame_base)
        return;
    tcw_enc_frame_image(&c->enc, (uint64_t)(uintptr_t)img, img->data, img->size, (uint32_t)(img->frame - c->frame_base),
                        img->w, img->h, img->flip);
}

/* Zone begins and ends, most records by far, have their time where the zone end has it:
 * read without a jump through the switch below. */
_Static_assert(TC_REC_ZONE_BEGIN == 0 && TC_REC_ZONE_BEGIN_ALLOC == 1 && TC_REC_ZONE_END == 2, "zones first");
_Static_assert(offsetof(struct tc_rec_zone_begin, time) == offsetof(struct tc_rec_zone_end, time) &&
                   offsetof(struct tc_rec_zone_begin_alloc, time) == offsetof(struct tc_rec_zone_end, time),
               "a zone's time in one place");

/* The time of a thread-bound record; INT64_MIN for those that have none (a zone's text,
 * name, colour or value, a frame image). */
static int64_t record_time(const union tc_rec *r)
{
    if (r->any.type <= TC_REC_ZONE_END)
        return r->zone_end.time;
    switch (r->any.type) {
    case TC_REC_ZONE_BEGIN:
        return r->zone_begin.time;
    case TC_REC_ZONE_BEGIN_ALLOC:
        return r->zone_begin_alloc.time;
    case TC_REC_ZONE_END:
        return r->zone_end.time;
    case TC_REC_MESSAGE:
        return r->message.time;
    case TC_REC_MESSAGE_LITERAL:
        return r->message_literal.time;
    case TC_REC_PLOT_DOUBLE:
    case TC_REC_PLOT_FLOAT:
    case TC_REC_PLOT_INT:
        return r->plot.time;
    case TC_REC_FRAME_MARK:
    case TC_REC_FRAME_START:
    case TC_REC_FRAME_END:
        return r->frame.time;
    case TC_REC_FIBER_ENTER:
        return r->fiber_enter.time;
    case TC_REC_FIBER_LEAVE:
        return r->fiber_leave.time;
    case TC_REC_SECTION_ENTER:
        return r->section_enter.time;
    case TC_REC_SECTION_LEAVE:
        return r->section_leave.time;
    default:
        return INT64_MIN;
    }
}

/* A zone's begin (srcloc: its id) or end handed to a decoder in this process without its
 * item: the items before it go first. */
static void bypass_zone(struct tc_conn *c, int64_t time, uint64_t srcloc, int begin)
{
    struct tc_transport *t = c->transport;
    if (tcw_enc_thread_bypass(&c->enc, time) != 0 ||
        (begin ? t->zone_begin(t, time, srcloc) : t->zone_end(t, time)) != 0)
        c->alive = 0;
}

/* Thread-bound records: zones, messages, plots, frames, fibers, sections. cs: the
 * record's callstack, or NULL. */
static void encode_thread_record(struct tc_conn *c, struct tc_thread *t, uint32_t tid, const union tc_rec *r,
                                 const struct tc_rec_callstack *cs)
{
    struct tcw_encoder *e = &c->enc;
    /* Zones nest per context, as on the server: the fiber entered, or the thread. */
    struct tc_fiber *fiber = t->conn_fiber[c->slot];
    uint32_t *depth = fiber ? &fiber->conn_depth[c->slot] : &t->conn_depth[c->slot];
    /* Zones still open at exit end after everything of their thread and fiber (worker.c). */
    int64_t time = record_time(r);
    if (time > t->last_time)
        t->last_time = time;
    if (fiber && time > fiber->last_time)
        fiber->last_time = time;
    tcw_enc_thread(e, tid);
    /* Only records that always go out carry callstacks (zone begins, messages, GPU zone
     * begins), so the callstack is never left waiting for an event that is not sent. */
    if (cs && r->any.type != TC_REC_GPU_ZONE_BEGIN)
        send_callstack(e, cs, 0);
    switch (r->any.type) {
    case TC_REC_ZONE_BEGIN:
        if (cs)
            tcw_enc_zone_begin_callstack(e, r->zone_begin.time, tc_conn_srcloc_id(c, r->zone_begin.srcloc));
        else if (c->bypass)
            bypass_zone(c, r->zone_begin.time, tc_conn_srcloc_id(c, r->zone_begin.srcloc), 1);
        else
            tcw_enc_zone_begin(e, r->zone_begin.time, tc_conn_srcloc_id(c, r->zone_begin.srcloc));
        ++*depth;
        break;
    case TC_REC_ZONE_BEGIN_ALLOC:
        if (cs)
            tcw_enc_zone_begin_alloc_callstack(e, r->zone_begin_alloc.time, r->zone_begin_alloc.payload);
        else
            tcw_enc_zone_begin_alloc(e, r->zone_begin_alloc.time, r->zone_begin_alloc.payload);
        ++*depth;
        break;
    case TC_REC_ZONE_END:
        /* A zone begun before this connection existed is not open on it. */
        if (*depth) {
            if (c->bypass)
                bypass_zone(c, r->zone_end.time, 0, 0);
            else
                tcw_enc_zone_end(e, r->zone_end.time);
            --*depth;
        }
        break;
    case TC_REC_ZONE_TEXT:
    case TC_REC_ZONE_NAME:
        if (*depth)
            tcw_enc_zone_text(e, r->any.type == TC_REC_ZONE_TEXT ? TCW_ZoneText : TCW_ZoneName, tc_rec_text(r),
                              r->any.len);
        break;
    case TC_REC_ZONE_COLOR:
        if (*depth)
            tcw_enc_zone_color(e, r->zone_color.color);
        break;
    case TC_REC_ZONE_VALUE:
        if (*depth)
            tcw_enc_zone_value(e, r->zone_value.value);
        break;
    case TC_REC_MESSAGE:
        (cs ? tcw_enc_message_callstack : tcw_enc_message)(e, r->message.time, tc_rec_text(r), r->any.len,
                                                           r->message.color, TCW_MESSAGE_META(r->message.severity));
        break;
    case TC_REC_MESSAGE_LITERAL:
        (cs ? tcw_enc_message_literal_callstack
            : tcw_enc_message_literal)(e, r->message_literal.time, tc_conn_string_id(c, r->message_literal.text),
                                       r->message_literal.color, TCW_MESSAGE_META(r->message_literal.severity));
        break;
    case TC_REC_PLOT_DOUBLE:
    case TC_REC_PLOT_FLOAT:
    case TC_REC_PLOT_INT: {
        static const uint8_t types[] = {TCW_PlotDataDouble, TCW_PlotDataFloat, TCW_PlotDataInt};
        tcw_enc_plot(e, types[r->any.type - TC_REC_PLOT_DOUBLE], tc_conn_string_id(c, r->plot.name), r->plot.time,
                     r->plot.value_bits);
        break;
    }
    case TC_REC_FRAME_MARK:
        encode_frame(c, r->any.type, &r->frame);
        break;
    case TC_REC_FRAME_IMAGE:
        encode_frame_image(c, r->frame_image.image);
        break;
    case TC_REC_FIBER_ENTER:
        tcw_enc_fiber_enter(e, r->fiber_enter.time, tc_conn_string_id(c, r->fiber_enter.fiber->name), tid);
        t->conn_fiber[c->slot] = r->fiber_enter.fiber;
        break;
    case TC_REC_FIBER_LEAVE:
        if (fiber) {
            tcw_enc_fiber_leave(e, r->fiber_leave.time, tid);
            t->conn_fiber[c->slot] = NULL;
        }
        break;
    case TC_REC_SECTION_ENTER:
        tcw_enc_section_enter(e, r->section_enter.time, r->section_enter.id, r->section_enter.category, tc_rec_text(r),
                              r->any.len);
        break;
    case TC_REC_SECTION_LEAVE:
        tcw_enc_section_leave(e, r->section_leave.time, r->section_leave.id);
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

/* The server checks that every obtain follows a wait of the same thread and every release
 * a held lock. An obtain whose wait this connection never sent (dropped at the buffer
 * limit, or sent to an earlier server) is therefore not sent, nor is the release that goes
 * with it. The state per lock and thread: waiting (bit 0) and the hold depth (the rest),
 * so recursive locks keep their nesting. */
static int lock_event_sendable(struct tc_conn *c, unsigned type, const struct tc_rec_lock_event *l)
{
    uint64_t key = (uint64_t)l->lock << 32 | l->thread;
    uint64_t *state = tcu_map_get(&c->locks, key);
    switch (type) {
    case TC_REC_LOCK_WAIT:
        return tcu_map_put(&c->locks, key, (state ? *state : 0) | 1) >= 0;
    case TC_REC_LOCK_OBTAIN:
        if (!state || !(*state & 1))
            return 0;
        *state = (*state & ~(uint64_t)1) + 2;
        return 1;
    default:
        if (!state || *state < 2)
            return 0;
        if ((*state -= 2) == 0)
            tcu_map_remove(&c->locks, key, NULL);
        return 1;
    }
}

/* Serial records: memory, locks, GPU items, plot configuration, discontinuous frames;
 * and the sampler's records (samples, context switches). cs: the record's callstack, or
 * NULL; sent only together with the event, never without it. */
static void encode_serial_record(struct tc_conn *c, const union tc_rec *r, const struct tc_rec_callstack *cs)
{
    struct tcw_encoder *e = &c->enc;
    switch (r->any.type) {
    case TC_REC_FRAME_START:
    case TC_REC_FRAME_END:
        encode_frame(c, r->any.type, &r->frame);
        break;
    case TC_REC_MEM_ALLOC: {
        const struct tc_rec_mem_alloc *m = &r->mem_alloc;
        uint64_t pool = tc_conn_string_id(c, m->pool);
        if (pool)
            tcu_map_put(&c->pools, pool, 1);
        if (cs)
            send_callstack(e, cs, 1);
        tcw_enc_mem_alloc(e, m->time, m->thread, m->address, m->size, pool, cs != NULL);
        break;
    }
    case TC_REC_MEM_FREE:
        if (cs)
            send_callstack(e, cs, 1);
        tcw_enc_mem_free(e, r->mem_free.time, r->mem_free.thread, r->mem_free.address,
                         tc_conn_string_id(c, r->mem_free.pool), cs != NULL);
        break;
    case TC_REC_MEM_DISCARD: {
        uint64_t pool = (uint64_t)(uintptr_t)r->mem_discard.pool;
        /* The server ignores a discard of an unknown pool without advancing its time
         * chain, which would shift every later serial time: send known pools only. */
        if (tcu_map_get(&c->pools, pool)) {
            if (cs)
                send_callstack(e, cs, 1);
            tcw_enc_mem_discard(e, r->mem_discard.time, r->mem_discard.thread, pool, cs != NULL);
        }
        break;
    }
    case TC_REC_SAMPLE:
        tcw_enc_callstack_sample(e, r->sample.thread, r->sample.time, (const uint64_t *)tc_rec_text(r), r->any.len / 8);
        break;
    case TC_REC_CONTEXT_SWITCH:
        tc_conn_context_switch(c, &r->context_switch);
        break;
    case TC_REC_LOCK_ANNOUNCE:
        tcw_enc_lock_announce(e, r->lock_announce.lock, r->lock_announce.time,
                              tc_conn_srcloc_id(c, r->lock_announce.srcloc), r->lock_announce.shared);
        break;
    case TC_REC_LOCK_TERMINATE:
        tcw_enc_lock_terminate(e, r->lock_terminate.lock, r->lock_terminate.time);
        break;
    case TC_REC_LOCK_WAIT:
    case TC_REC_LOCK_OBTAIN:
    case TC_REC_LOCK_RELEASE:
        if (lock_event_sendable(c, r->any.type, &r->lock_event))
            tcw_enc_lock_event(e, lock_item(r->any.type, r->lock_event.shared), r->lock_event.lock, r->lock_event.time,
                               r->lock_event.thread);
        break;
    case TC_REC_LOCK_MARK:
        tcw_enc_lock_mark(e, r->lock_mark.lock, r->lock_mark.thread, tc_conn_srcloc_id(c, r->lock_mark.srcloc));
        break;
    case TC_REC_LOCK_NAME:
        tcw_enc_lock_name(e, r->lock_name.lock, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_APP_INFO:
        tcw_enc_app_info(e, r->app_info.time, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_SECTION_SETUP:
        tcw_enc_section_setup(e, (uint16_t)r->section_setup.category, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_PLOT_CONFIG:
        tcw_enc_plot_config(e, tc_conn_string_id(c, r->plot_config.name), r->plot_config.format, r->plot_config.step,
                            r->plot_config.fill, r->plot_config.color);
        break;
    case TC_REC_GPU_NEW_CONTEXT: {
        const struct tc_rec_gpu_new_context *g = &r->gpu_new_context;
        tcw_enc_gpu_new_context(e, g->cpu_time, g->gpu_time, g->thread, g->period, g->context, g->flags, g->gpu_type);
        break;
    }
    case TC_REC_GPU_CONTEXT_NAME:
        tcw_enc_gpu_context_name(e, r->gpu_context_name.context, tc_rec_text(r), r->any.len);
        break;
    case TC_REC_GPU_CALIBRATION:
        tcw_enc_gpu_calibration(e, r->gpu_calibration.gpu_time, r->gpu_calibration.cpu_time,
                                r->gpu_calibration.cpu_delta, r->gpu_calibration.context);
        break;
    case TC_REC_GPU_TIME_SYNC:
        tcw_enc_gpu_time_sync(e, r->gpu_time_sync.gpu_time, r->gpu_time_sync.cpu_time, r->gpu_time_sync.context);
        break;
    case TC_REC_GPU_TIME:
        gpu_time(c, &r->gpu_time);
        break;
    case TC_REC_GPU_ZONE_BEGIN:
        gpu_zone_begin(c, &r->gpu_zone_begin, cs);
        break;
    case TC_REC_GPU_ZONE_END:
        gpu_zone_end(c, &r->gpu_zone_end);
        break;
    default:
        break;
    }
}

/* The kind of event a record is when the connection's protocol lacks its item, or -1. */
static int absent_kind(const struct tc_conn *c, const union tc_rec *r)
{
    switch (r->any.type) {
    case TC_REC_SECTION_ENTER:
    case TC_REC_SECTION_LEAVE:
    case TC_REC_SECTION_SETUP:
        return tcw_enc_has(&c->enc, TCW_SectionEnter) ? -1 : TC_ABSENT_SECTION;
    case TC_REC_MEM_DISCARD: /* a discard of a pool never used is not sent anyway */
        return tcw_enc_has(&c->enc, TCW_MemDiscard) || !tcu_map_get(&c->pools, (uint64_t)(uintptr_t)r->mem_discard.pool)
                   ? -1
                   : TC_ABSENT_MEM_DISCARD;
    case TC_REC_GPU_TIME_SYNC:
        return tcw_enc_has(&c->enc, TCW_GpuTimeSync) ? -1 : TC_ABSENT_GPU_TIME_SYNC;
    default:
        return -1;
    }
}

void tc_conn_records(struct tc_conn *c, struct tc_thread *t, const uint8_t *begin, const uint8_t *end)
{
    if (!c->alive)
        return;
    const int all_items = c->enc.vi == TCW_V82;
    /* Read once: its cache line is the recording thread's, written at every zone. */
    const uint32_t tid = t ? t->tid : 0;
    while (begin < end) {
        const union tc_rec *r = (const union tc_rec *)begin;
        const struct tc_rec_callstack *cs = NULL;
        /* The records were written on another core: ask for them ahead of the walk. */
        __builtin_prefetch(begin + 512);
        if (r->any.type == TC_REC_CALLSTACK) {
            /* Reserved and published together with the record that follows it. */
            cs = &r->callstack;
            begin += tc_rec_size(r->any.type, r->any.len);
            if (begin >= end)
                break;
            r = (const union tc_rec *)begin;
        }
        int absent = all_items ? -1 : absent_kind(c, r);
        if (absent >= 0)
            c->absent[absent]++; /* the server's protocol has no such event */
        else if (t)
            encode_thread_record(c, t, tid, r, cs);
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

static void report(struct tc_conn *c, const char *text, int n)
{
    tcw_enc_thread(&c->enc, tc_prof.main_tid);
    tcw_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                    (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
}

void tc_conn_report_drops(struct tc_conn *c, uint64_t dropped)
{
    if (!c->alive)
        return;
    char text[160];
    if (dropped > c->dropped_reported) {
        report(c, text,
               snprintf(text, sizeof text,
                        "tracyc: dropped %" PRIu64 " events in total: buffer limit of %zu bytes reached", dropped,
                        tc_buffer_limit));
        c->dropped_reported = dropped;
    }
    uint64_t skipped = atomic_load_explicit(&tc_prof.plot_skipped, memory_order_relaxed);
    if (skipped > c->plot_skipped_reported) {
        report(c, text,
               snprintf(text, sizeof text,
                        "tracyc: skipped %" PRIu64
                        " plot values in total: NaN or infinity, which Tracy plots cannot hold",
                        skipped));
        c->plot_skipped_reported = skipped;
    }
}

void tc_conn_report_absent(struct tc_conn *c)
{
    static const char *const kinds[TC_CONN_ABSENT_KINDS] = {
        [TC_ABSENT_SECTION] = "section events",
        [TC_ABSENT_MEM_DISCARD] = "memory discards",
        [TC_ABSENT_GPU_TIME_SYNC] = "GPU time syncs",
    };
    if (!c->alive)
        return;
    char text[256];
    const struct tcw_version *v = &tcw_versions[c->enc.vi];
    int n =
        snprintf(text, sizeof text,
                 "tracyc: not sent to this server, whose protocol %u (Tracy %s) lacks them:", v->protocol, v->tracy);
    int any = 0;
    for (int k = 0; k < TC_CONN_ABSENT_KINDS; k++) {
        if (!c->absent[k])
            continue;
        n += snprintf(text + n, sizeof text - (size_t)n, "%s %" PRIu64 " %s", any ? "," : "", c->absent[k], kinds[k]);
        any = 1;
    }
    if (!any)
        return;
    tcw_enc_thread(&c->enc, tc_prof.main_tid);
    tcw_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                    (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
    memset(c->absent, 0, sizeof c->absent);
}

void tc_conn_report_sampling(struct tc_conn *c, const char *unavailable, uint64_t lost_in_rings,
                             uint64_t dropped_at_limit, int final)
{
    if (!c->alive)
        return;
    char text[400];
    if (unavailable && !c->sampling_reported) {
        int n = snprintf(text, sizeof text, "tracyc: %s", unavailable);
        tcw_enc_thread(&c->enc, tc_prof.main_tid);
        tcw_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                        (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
        c->sampling_reported = 1;
    }
    /* Lost records: at most once a second, and at the end. */
    int64_t now = tcu_monotonic_ns();
    uint64_t lost = lost_in_rings + dropped_at_limit;
    if (lost > c->lost_reported && (final || now - c->lost_report_time >= 1000000000)) {
        /* Before a server connects, the buffer limit is the likely cause, not the rings. */
        int n =
            snprintf(text, sizeof text,
                     "tracyc: lost %" PRIu64 " CPU samples and context switches in total: %" PRIu64
                     " as the kernel's ring buffers were full, %" PRIu64 " at the buffer limit (TRACYC_BUFFER_LIMIT)",
                     lost, lost_in_rings, dropped_at_limit);
        tcw_enc_thread(&c->enc, tc_prof.main_tid);
        tcw_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                        (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
        c->lost_reported = lost;
        c->lost_report_time = now;
    }
}

void tc_conn_report_libdw(struct tc_conn *c, const char *unavailable)
{
    if (!c->alive || !unavailable || c->libdw_reported)
        return;
    char text[400];
    int n = snprintf(text, sizeof text, "tracyc: symbols and sample stacks limited: %s", unavailable);
    if (n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    tcw_enc_thread(&c->enc, tc_prof.main_tid);
    tcw_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
                    (uint8_t)(TCW_MESSAGE_META(TracyMessageSeverityWarning) | TCW_MESSAGE_SOURCE_TRACY));
    c->libdw_reported = 1;
}

/* conn.c - handshake, record encoding and query answering for one connection. */
#include "conn.h"

#include "clock.h"

#include "profiler.h"
#include "record.h"
#include "tracyc.h"
#include "welcome.h"
#include "wire/protocol.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ID_STRING = 1, ID_SRCLOC = 2 };
#define ID_VALUE(kind, ptr) (((uint64_t)(kind) << 56) | (uint64_t)(uintptr_t)(ptr))
#define ID_KIND(v) ((int)((v) >> 56))
#define ID_PTR(v) ((const void *)(uintptr_t)((v)&0x00ffffffffffffffULL))

static const char unknown_text[] = "?";

static int enc_write(void *user, const void *data, size_t len)
{
    struct tc_conn *c = user;
    if (!c->alive)
        return -1;
    if (c->transport->send(c->transport, data, len) != 0) {
        c->alive = 0;
        return -1;
    }
    return 0;
}

static int read_exact(struct tc_transport *t, uint8_t *buf, size_t len, int timeout_ms)
{
    size_t got = 0;
    while (got < len) {
        long n = t->recv(t, buf + got, len - got, timeout_ms);
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

int tc_conn_open(struct tc_conn *c, struct tc_transport *t, int slot)
{
    memset(c, 0, sizeof *c);
    c->slot = slot;
    uint8_t hello[12];
    if (read_exact(t, hello, sizeof hello, 2000) != 0 || memcmp(hello, TCW_SHIBBOLETH, 8) != 0) {
        t->close(t);
        return -1;
    }
    uint32_t version;
    memcpy(&version, hello + 8, 4);
    if (version != TCW_PROTOCOL_VERSION) {
        uint8_t status = TCW_HANDSHAKE_PROTOCOL_MISMATCH;
        t->send(t, &status, 1);
        t->close(t);
        return -1;
    }
    uint8_t msg[1 + TCW_WELCOME_SIZE];
    msg[0] = TCW_HANDSHAKE_WELCOME;
    tc_welcome_build(msg + 1);
    if (t->send(t, msg, sizeof msg) != 0 || tc_enc_init(&c->enc, enc_write, c) != 0) {
        t->close(t);
        return -1;
    }
    c->transport = t;
    c->alive = 1;
    return 0;
}

void tc_conn_close(struct tc_conn *c)
{
    if (c->transport)
        c->transport->close(c->transport);
    c->transport = NULL;
    tc_enc_free(&c->enc);
    tc_idmap_clear(&c->ids);
    tc_idmap_clear(&c->pools);
    c->alive = 0;
}

/* Remembers what id means on this connection. Most events reuse a handful of ids, so a
 * small cache in front of the map keeps the worker's cost per event low. */
static uint64_t remember_id(struct tc_conn *c, uint64_t id, int kind)
{
    uint64_t *slot = &c->recent_ids[(id >> 3) & 255];
    if (*slot != id) {
        tc_idmap_put(&c->ids, id, ID_VALUE(kind, id));
        *slot = id;
    }
    return id;
}

static uint64_t string_id(struct tc_conn *c, const char *s)
{
    return s ? remember_id(c, (uint64_t)(uintptr_t)s, ID_STRING) : 0;
}

static uint64_t srcloc_id(struct tc_conn *c, uint64_t srcloc)
{
    return remember_id(c, srcloc, ID_SRCLOC);
}

/* Thread-bound records: zones, messages, plots, frames, fibers, non-serial GPU items. */
static void encode_thread_record(struct tc_conn *c, struct tc_thread *t, const struct tc_rec *r)
{
    struct tc_encoder *e = &c->enc;
    uint32_t *depth = &t->conn_depth[c->slot];
    tc_enc_thread(e, t->tid);
    switch (r->type) {
    case TC_REC_ZONE_BEGIN:
        tc_enc_zone_begin(e, (int64_t)r->w[0], srcloc_id(c, r->w[1]));
        ++*depth;
        break;
    case TC_REC_ZONE_BEGIN_ALLOC:
        tc_enc_zone_begin_alloc(e, (int64_t)r->w[0], (const uint8_t *)(uintptr_t)r->w[1]);
        ++*depth;
        break;
    case TC_REC_ZONE_END:
        /* A zone begun before this connection existed is not open on it. */
        if (*depth) {
            tc_enc_zone_end(e, (int64_t)r->w[0]);
            --*depth;
        }
        break;
    case TC_REC_ZONE_TEXT:
    case TC_REC_ZONE_NAME:
        if (*depth)
            tc_enc_zone_text(e, r->type == TC_REC_ZONE_TEXT ? TCW_ZoneText : TCW_ZoneName, tc_rec_text(r), r->len);
        break;
    case TC_REC_ZONE_COLOR:
        if (*depth)
            tc_enc_zone_color(e, r->u32);
        break;
    case TC_REC_ZONE_VALUE:
        if (*depth)
            tc_enc_zone_value(e, r->w[0]);
        break;
    case TC_REC_MESSAGE:
        tc_enc_message(e, (int64_t)r->w[0], tc_rec_text(r), r->len, r->u32, TCW_MESSAGE_META(r->u8));
        break;
    case TC_REC_MESSAGE_LITERAL:
        tc_enc_message_literal(e, (int64_t)r->w[0], string_id(c, (const char *)(uintptr_t)r->w[1]), r->u32,
                               TCW_MESSAGE_META(r->u8));
        break;
    case TC_REC_PLOT_DOUBLE:
    case TC_REC_PLOT_FLOAT:
    case TC_REC_PLOT_INT: {
        static const uint8_t types[] = {TCW_PlotDataDouble, TCW_PlotDataFloat, TCW_PlotDataInt};
        tc_enc_plot(e, types[r->type - TC_REC_PLOT_DOUBLE], string_id(c, (const char *)(uintptr_t)r->w[1]),
                    (int64_t)r->w[0], r->w[2]);
        break;
    }
    case TC_REC_FRAME_MARK:
        tc_enc_frame_mark(e, TCW_FrameMarkMsg, (int64_t)r->w[0], string_id(c, (const char *)(uintptr_t)r->w[1]));
        break;
    case TC_REC_FRAME_IMAGE: {
        const struct tc_frame_image *img = (const struct tc_frame_image *)(uintptr_t)r->w[0];
        tc_enc_frame_image(e, r->w[0], img->data, img->size, img->frame, img->w, img->h, img->flip);
        break;
    }
    case TC_REC_FIBER_ENTER:
        tc_enc_fiber_enter(e, (int64_t)r->w[0], string_id(c, (const char *)(uintptr_t)r->w[1]), t->tid);
        t->conn_fiber[c->slot] = r->w[1];
        break;
    case TC_REC_FIBER_LEAVE:
        if (t->conn_fiber[c->slot]) {
            tc_enc_fiber_leave(e, (int64_t)r->w[0], t->tid);
            t->conn_fiber[c->slot] = 0;
        }
        break;
    case TC_REC_GPU_ZONE_BEGIN: {
        int alloc = r->u8 & 1;
        if (alloc)
            tc_enc_srcloc_payload(e, (const uint8_t *)(uintptr_t)r->w[1]);
        tc_enc_gpu_zone_begin(e, alloc ? TCW_GpuZoneBeginAllocSrcLoc : TCW_GpuZoneBegin, (int64_t)r->w[0], r->u32,
                              (uint16_t)r->w[2], (uint8_t)(r->w[2] >> 16), alloc ? 0 : srcloc_id(c, r->w[1]), 0);
        break;
    }
    case TC_REC_SECTION_ENTER:
        tc_enc_section_enter(e, (int64_t)r->w[0], r->u32, (uint16_t)r->w[1], tc_rec_text(r), r->len);
        break;
    case TC_REC_SECTION_LEAVE:
        tc_enc_section_leave(e, (int64_t)r->w[0], r->u32);
        break;
    case TC_REC_GPU_ZONE_END:
        tc_enc_gpu_zone_end(e, TCW_GpuZoneEnd, (int64_t)r->w[0], r->u32, (uint16_t)r->w[1], (uint8_t)(r->w[1] >> 16),
                            0);
        break;
    default:
        break;
    }
}

/* Serial records: memory, locks, GPU contexts and serial GPU items, plot configuration,
 * discontinuous frames. */
static void encode_serial_record(struct tc_conn *c, const struct tc_rec *r)
{
    struct tc_encoder *e = &c->enc;
    switch (r->type) {
    case TC_REC_FRAME_START:
    case TC_REC_FRAME_END:
        tc_enc_frame_mark(e, r->type == TC_REC_FRAME_START ? TCW_FrameMarkMsgStart : TCW_FrameMarkMsgEnd,
                          (int64_t)r->w[0], string_id(c, (const char *)(uintptr_t)r->w[1]));
        break;
    case TC_REC_MEM_ALLOC: {
        uint64_t pool = string_id(c, (const char *)(uintptr_t)r->w[3]);
        if (pool)
            tc_idmap_put(&c->pools, pool, 1);
        tc_enc_mem_alloc(e, (int64_t)r->w[0], r->u32, r->w[1], r->w[2], pool);
        break;
    }
    case TC_REC_MEM_FREE:
        tc_enc_mem_free(e, (int64_t)r->w[0], r->u32, r->w[1], string_id(c, (const char *)(uintptr_t)r->w[2]));
        break;
    case TC_REC_MEM_DISCARD: {
        uint64_t dummy;
        /* The server ignores a discard of an unknown pool without advancing its time
         * chain, which would shift every later serial time: send known pools only. */
        if (tc_idmap_get(&c->pools, r->w[1], &dummy))
            tc_enc_mem_discard(e, (int64_t)r->w[0], r->u32, r->w[1]);
        break;
    }
    case TC_REC_LOCK_ANNOUNCE:
        tc_enc_lock_announce(e, r->u32, (int64_t)r->w[0], srcloc_id(c, r->w[1]), r->u8);
        break;
    case TC_REC_LOCK_TERMINATE:
        tc_enc_lock_terminate(e, r->u32, (int64_t)r->w[0]);
        break;
    case TC_REC_LOCK_WAIT:
        tc_enc_lock_event(e, r->u8 ? TCW_LockSharedWait : TCW_LockWait, r->u32, (int64_t)r->w[0], (uint32_t)r->w[1]);
        break;
    case TC_REC_LOCK_OBTAIN:
        tc_enc_lock_event(e, r->u8 ? TCW_LockSharedObtain : TCW_LockObtain, r->u32, (int64_t)r->w[0],
                          (uint32_t)r->w[1]);
        break;
    case TC_REC_LOCK_RELEASE:
        tc_enc_lock_event(e, r->u8 ? TCW_LockSharedRelease : TCW_LockRelease, r->u32, (int64_t)r->w[0],
                          (uint32_t)r->w[1]);
        break;
    case TC_REC_LOCK_MARK:
        tc_enc_lock_mark(e, r->u32, (uint32_t)r->w[0], srcloc_id(c, r->w[1]));
        break;
    case TC_REC_LOCK_NAME:
        tc_enc_lock_name(e, r->u32, tc_rec_text(r), r->len);
        break;
    case TC_REC_APP_INFO:
        tc_enc_app_info(e, (int64_t)r->w[0], tc_rec_text(r), r->len);
        break;
    case TC_REC_SECTION_SETUP:
        tc_enc_section_setup(e, (uint16_t)r->u32, tc_rec_text(r), r->len);
        break;
    case TC_REC_PLOT_CONFIG:
        tc_enc_plot_config(e, string_id(c, (const char *)(uintptr_t)r->w[0]), r->u8 & 0x0f, (r->u8 >> 4) & 1,
                           (r->u8 >> 5) & 1, r->u32);
        break;
    case TC_REC_GPU_NEW_CONTEXT: {
        float period;
        uint32_t bits = (uint32_t)r->w[2];
        memcpy(&period, &bits, 4);
        tc_enc_gpu_new_context(e, (int64_t)r->w[0], (int64_t)r->w[1], r->u32, period, r->u8, (uint8_t)(r->w[2] >> 32),
                               (uint8_t)(r->w[2] >> 40));
        break;
    }
    case TC_REC_GPU_CONTEXT_NAME:
        tc_enc_gpu_context_name(e, r->u8, tc_rec_text(r), r->len);
        break;
    case TC_REC_GPU_CALIBRATION:
        tc_enc_gpu_calibration(e, (int64_t)r->w[1], (int64_t)r->w[0], (int64_t)r->w[2], r->u8);
        break;
    case TC_REC_GPU_TIME_SYNC:
        tc_enc_gpu_time_sync(e, (int64_t)r->w[1], (int64_t)r->w[0], r->u8);
        break;
    case TC_REC_GPU_TIME:
        tc_enc_gpu_time(e, (int64_t)r->w[0], (uint16_t)r->w[1], (uint8_t)(r->w[1] >> 16));
        break;
    case TC_REC_GPU_ZONE_BEGIN: {
        int alloc = r->u8 & 1;
        if (alloc)
            tc_enc_srcloc_payload(e, (const uint8_t *)(uintptr_t)r->w[1]);
        tc_enc_gpu_zone_begin(e, alloc ? TCW_GpuZoneBeginAllocSrcLocSerial : TCW_GpuZoneBeginSerial, (int64_t)r->w[0],
                              r->u32, (uint16_t)r->w[2], (uint8_t)(r->w[2] >> 16), alloc ? 0 : srcloc_id(c, r->w[1]),
                              1);
        break;
    }
    case TC_REC_GPU_ZONE_END:
        tc_enc_gpu_zone_end(e, TCW_GpuZoneEndSerial, (int64_t)r->w[0], r->u32, (uint16_t)r->w[1],
                            (uint8_t)(r->w[1] >> 16), 1);
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
        const struct tc_rec *r = (const struct tc_rec *)begin;
        if (t)
            encode_thread_record(c, t, r);
        else
            encode_serial_record(c, r);
        begin += tc_rec_size(r->type, r->len);
    }
}

void tc_conn_record(struct tc_conn *c, struct tc_thread *t, const struct tc_rec *r)
{
    const uint8_t *begin = (const uint8_t *)r;
    tc_conn_records(c, t, begin, begin + tc_rec_size(r->type, r->len));
}

static void reply_string(struct tc_conn *c, uint8_t type, uint64_t id)
{
    uint64_t v;
    const char *s = unknown_text;
    if (tc_idmap_get(&c->ids, id, &v) && ID_KIND(v) == ID_STRING)
        s = ID_PTR(v);
    tc_enc_string_reply(&c->enc, type, id, s, strlen(s));
}

static void reply_srcloc(struct tc_conn *c, uint64_t id)
{
    uint64_t v;
    if (!tc_idmap_get(&c->ids, id, &v) || ID_KIND(v) != ID_SRCLOC) {
        uint64_t q = string_id(c, unknown_text);
        tc_enc_srcloc_reply(&c->enc, 0, q, q, 0, 0);
        return;
    }
    const struct ___tracy_source_location_data *s = ID_PTR(v);
    uint64_t name = s->name && s->name[0] ? string_id(c, s->name) : 0;
    uint64_t function = string_id(c, s->function ? s->function : unknown_text);
    uint64_t file = string_id(c, s->file ? s->file : unknown_text);
    tc_enc_srcloc_reply(&c->enc, name, function, file, s->line, s->color);
}

static void answer(struct tc_conn *c, uint8_t type, uint64_t ptr, uint32_t extra)
{
    struct tc_encoder *e = &c->enc;
    switch (type) {
    case TCW_QUERY_TERMINATE:
    case TCW_QUERY_DISCONNECT:
        c->terminated = 1;
        break;
    case TCW_QUERY_STRING:
        reply_string(c, TCW_StringData, ptr);
        break;
    case TCW_QUERY_THREAD_STRING: {
        char name[256];
        size_t n = tc_names_get((uint32_t)ptr, name, sizeof name);
        tc_enc_string_reply(e, TCW_ThreadName, ptr, name, n);
        break;
    }
    case TCW_QUERY_SOURCE_LOCATION:
        reply_srcloc(c, ptr);
        break;
    case TCW_QUERY_PLOT_NAME:
        reply_string(c, TCW_PlotName, ptr);
        break;
    case TCW_QUERY_FRAME_NAME:
        reply_string(c, TCW_FrameName, ptr);
        break;
    case TCW_QUERY_FIBER_NAME:
        reply_string(c, TCW_FiberName, ptr);
        break;
    case TCW_QUERY_EXTERNAL_NAME:
        tc_enc_string_reply(e, TCW_ExternalThreadName, ptr, unknown_text, 1);
        tc_enc_string_reply(e, TCW_ExternalName, ptr, unknown_text, 1);
        break;
    case TCW_QUERY_CALLSTACK_FRAME: {
        /* We never send callstacks; answer a stray query with one unknown frame. */
        tc_enc_single_string(e, unknown_text, 1);
        uint8_t *p = tc_enc_item(e, 10);
        p[0] = TCW_CallstackFrameSize;
        memcpy(p + 1, &ptr, 8);
        p[9] = 1;
        tc_enc_single_string(e, unknown_text, 1);
        p = tc_enc_item(e, 3);
        p[0] = TCW_SecondStringData8;
        p[1] = 1;
        p[2] = '?';
        p = tc_enc_item(e, 17);
        memset(p, 0, 17);
        p[0] = TCW_CallstackFrame;
        break;
    }
    case TCW_QUERY_SYMBOL: {
        tc_enc_single_string(e, unknown_text, 1);
        uint8_t *p = tc_enc_item(e, 13);
        memset(p, 0, 13);
        p[0] = TCW_SymbolInformation;
        memcpy(p + 5, &ptr, 8);
        break;
    }
    case TCW_QUERY_SYMBOL_CODE:
        tc_enc_byte(e, TCW_AckSymbolCodeNotAvailable);
        break;
    case TCW_QUERY_SOURCE_CODE:
        tc_enc_source_unavailable(e, (uint32_t)ptr);
        break;
    default: /* Parameter, DataTransfer(Part), and codes this protocol does not define */
        (void)extra;
        tc_enc_byte(e, TCW_AckServerQueryNoop);
        break;
    }
}

int tc_conn_serve_queries(struct tc_conn *c, int timeout_ms)
{
    if (!c->alive)
        return -1;
    int answered = 0;
    uint8_t buf[13 * 64];
    for (;;) {
        long n = c->transport->recv(c->transport, buf, sizeof buf, answered ? 0 : timeout_ms);
        if (n < 0) {
            c->alive = 0;
            return -1;
        }
        if (n == 0)
            break;
        for (long i = 0; i < n; i++) {
            c->query[c->query_len++] = buf[i];
            if (c->query_len < TCW_QUERY_SIZE)
                continue;
            uint64_t ptr;
            uint32_t extra;
            memcpy(&ptr, c->query + 1, 8);
            memcpy(&extra, c->query + 9, 4);
            c->query_len = 0;
            answer(c, c->query[0], ptr, extra);
            answered++;
        }
        timeout_ms = 0;
    }
    if (answered && tc_enc_flush(&c->enc) != 0)
        return -1;
    return answered;
}

static void report(struct tc_conn *c, const char *text, int n)
{
    tc_enc_thread(&c->enc, tc_prof.main_tid);
    tc_enc_message(&c->enc, tc_clock_now(), text, (size_t)n, 0,
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

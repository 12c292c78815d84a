/* encode.c - item layouts of protocol 82 (docs/protocol.md §7-§19), their conversion to
 * the connection's version (§24), and LZ4 framing (§5). */
#include "wire/encode.h"

#include "wire/protocol.h"
#include "wire/versions.h"
#include "util/bytes.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>

#define RING_SIZE (3 * TCW_TARGET_FRAME_SIZE)
/* The item stream is very repetitive: a faster LZ4 setting still compresses it well and
 * keeps the worker ahead of the threads it drains. */
#define LZ4_ACCELERATION 8

int tcw_enc_init(struct tcw_encoder *e, tcw_write_fn write, void *user)
{
    memset(e, 0, sizeof *e);
    e->ring = malloc(RING_SIZE);
    e->out = malloc(4 + TCW_LZ4_SIZE);
    e->lz4 = LZ4_createStream();
    if (!e->ring || !e->out || !e->lz4) {
        tcw_enc_free(e);
        return -1;
    }
    e->write = write;
    e->user = user;
    return 0;
}

void tcw_enc_free(struct tcw_encoder *e)
{
    free(e->ring);
    free(e->out);
    if (e->lz4)
        LZ4_freeStream(e->lz4);
    memset(e, 0, sizeof *e);
}

void tcw_enc_set_items_writer(struct tcw_encoder *e, tcw_write_fn write_items)
{
    e->write_items = write_items;
}

void tcw_enc_set_version(struct tcw_encoder *e, int vi)
{
    e->vi = vi;
}

int tcw_enc_has(const struct tcw_encoder *e, uint8_t type)
{
    return tcw_version_has(e->vi, type);
}

/* Rewrites the most recent item into the connection's version (docs/protocol.md §24). */
static void convert_last(struct tcw_encoder *e)
{
    e->pending = 0;
    size_t n = tcw_item_to_version(e->ring + e->last, e->pos - e->last, e->vi);
    if (n == 0)
        e->absent++; /* the caller should have dropped the event: the item is left out */
    e->pos = e->last + n;
}

int tcw_enc_flush(struct tcw_encoder *e)
{
    if (e->pending)
        convert_last(e);
    if (e->failed) {
        /* The transport is gone: what was written since is discarded, and the ring
         * starts over so that later items stay within it. */
        e->start = e->pos = 0;
        return -1;
    }
    size_t n = e->pos - e->start;
    if (n == 0)
        return 0;
    if (e->write_items) {
        int rc = e->write_items(e->user, e->ring + e->start, n);
        if (e->pos > 2 * TCW_TARGET_FRAME_SIZE)
            e->pos = 0;
        e->start = e->pos;
        e->bytes_out += n;
        e->failed = rc != 0;
        return rc != 0 ? -1 : 0;
    }
    int c = LZ4_compress_fast_continue(e->lz4, (const char *)e->ring + e->start, (char *)e->out + 4, (int)n,
                                       TCW_LZ4_SIZE, LZ4_ACCELERATION);
    if (e->pos > 2 * TCW_TARGET_FRAME_SIZE)
        e->pos = 0;
    e->start = e->pos;
    if (c <= 0) {
        e->failed = 1;
        return -1;
    }
    tcu_wr32(e->out, (uint32_t)c);
    e->bytes_out += 4 + (size_t)c;
    if (e->write(e->user, e->out, 4 + (size_t)c) != 0) {
        e->failed = 1;
        return -1;
    }
    return 0;
}

uint8_t *tcw_enc_item(struct tcw_encoder *e, size_t n)
{
    if (e->pending)
        convert_last(e);
    /* Room for the item as it may grow in its conversion, so that it stays in the frame. */
    if (e->pos - e->start + n + TCW_CONVERT_GROWTH > TCW_TARGET_FRAME_SIZE)
        tcw_enc_flush(e);
    uint8_t *p = e->ring + e->pos;
    if (e->vi != TCW_V82) {
        e->last = e->pos;
        e->pending = 1;
    }
    e->pos += n;
    return p;
}

void tcw_enc_thread_switch(struct tcw_encoder *e, uint32_t tid)
{
    uint8_t *p = tcw_enc_item(e, 5);
    p[0] = TCW_ThreadContext;
    tcu_wr32(p + 1, tid);
    e->thread = tid;
    e->ref_thread = 0;
}

static int64_t thread_delta(struct tcw_encoder *e, int64_t time)
{
    int64_t d = time - e->ref_thread;
    e->ref_thread = time;
    return d;
}

static int64_t serial_delta(struct tcw_encoder *e, int64_t time)
{
    int64_t d = time - e->ref_serial;
    e->ref_serial = time;
    return d;
}

/* The 16/32/64-bit rule of docs/protocol.md §8.3. `base` is the 64-bit type; the 32- and
 * 16-bit types follow it. Returns a pointer past the time field. */
static uint8_t *compact_time(struct tcw_encoder *e, uint8_t base, int64_t d, size_t tail)
{
    uint8_t *p;
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        p = tcw_enc_item(e, 3 + tail);
        p[0] = (uint8_t)(base + 2);
        tcu_wr16(p + 1, (uint16_t)d);
        return p + 3;
    }
    if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        p = tcw_enc_item(e, 5 + tail);
        p[0] = (uint8_t)(base + 1);
        tcu_wr32(p + 1, (uint32_t)(d - TCW_DELTA16_LIMIT));
        return p + 5;
    }
    p = tcw_enc_item(e, 9 + tail);
    p[0] = base;
    tcu_wr64(p + 1, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    return p + 9;
}

void tcw_enc_zone_begin(struct tcw_encoder *e, int64_t time, uint64_t srcloc)
{
    tcu_wr64(compact_time(e, TCW_ZoneBegin, thread_delta(e, time), 8), srcloc);
}

void tcw_enc_zone_begin_callstack(struct tcw_encoder *e, int64_t time, uint64_t srcloc)
{
    tcu_wr64(compact_time(e, TCW_ZoneBeginCallstack, thread_delta(e, time), 8), srcloc);
}

void tcw_enc_srcloc_payload(struct tcw_encoder *e, const uint8_t *blob)
{
    uint16_t size;
    memcpy(&size, blob, 2);
    size_t len = size - 2u; /* the wire length leaves out the size itself */
    uint8_t *p = tcw_enc_item(e, 11 + len);
    p[0] = TCW_SourceLocationPayload;
    tcu_wr64(p + 1, (uint64_t)(uintptr_t)blob);
    tcu_wr16(p + 9, (uint16_t)len);
    memcpy(p + 11, blob + 2, len);
}

static void zone_begin_alloc(struct tcw_encoder *e, uint8_t type, int64_t time, const uint8_t *blob)
{
    tcw_enc_srcloc_payload(e, blob);
    uint8_t *p = tcw_enc_item(e, 9);
    p[0] = type;
    tcu_wr64(p + 1, (uint64_t)thread_delta(e, time));
}

void tcw_enc_zone_begin_alloc(struct tcw_encoder *e, int64_t time, const uint8_t *blob)
{
    zone_begin_alloc(e, TCW_ZoneBeginAllocSrcLoc, time, blob);
}

void tcw_enc_zone_begin_alloc_callstack(struct tcw_encoder *e, int64_t time, const uint8_t *blob)
{
    zone_begin_alloc(e, TCW_ZoneBeginAllocSrcLocCallstack, time, blob);
}

void tcw_enc_zone_end(struct tcw_encoder *e, int64_t time)
{
    compact_time(e, TCW_ZoneEnd, thread_delta(e, time), 0);
}

/* A string item: the short form (u8 length) up to 255 bytes, else the long form (u16
 * length less 256). */
static void string_item(struct tcw_encoder *e, uint8_t short_type, uint8_t long_type, const char *text, size_t len)
{
    uint8_t *p;
    if (len <= 255) {
        p = tcw_enc_item(e, 2 + len);
        p[0] = short_type;
        p[1] = (uint8_t)len;
        memcpy(p + 2, text, len);
    } else {
        p = tcw_enc_item(e, 3 + len);
        p[0] = long_type;
        tcu_wr16(p + 1, (uint16_t)(len - 256));
        memcpy(p + 3, text, len);
    }
}

void tcw_enc_single_string(struct tcw_encoder *e, const char *text, size_t len)
{
    string_item(e, TCW_SingleStringData8, TCW_SingleStringData, text, len);
}

void tcw_enc_zone_text(struct tcw_encoder *e, uint8_t type, const char *text, size_t len)
{
    tcw_enc_single_string(e, text, len);
    tcw_enc_item(e, 1)[0] = type;
}

void tcw_enc_zone_color(struct tcw_encoder *e, uint32_t color)
{
    uint8_t *p = tcw_enc_item(e, 4);
    p[0] = TCW_ZoneColor;
    p[1] = (uint8_t)color;
    p[2] = (uint8_t)(color >> 8);
    p[3] = (uint8_t)(color >> 16);
}

void tcw_enc_zone_value(struct tcw_encoder *e, uint64_t value)
{
    uint8_t *p = tcw_enc_item(e, 9);
    p[0] = TCW_ZoneValue;
    tcu_wr64(p + 1, value);
}

static void put_bgr(uint8_t *p, uint32_t color)
{
    p[0] = (uint8_t)color;
    p[1] = (uint8_t)(color >> 8);
    p[2] = (uint8_t)(color >> 16);
}

/* Message and MessageColor, or (callstack = 2) their Callstack forms two codes later. */
static void message(struct tcw_encoder *e, int callstack, int64_t time, const char *text, size_t len, uint32_t color,
                    uint8_t meta)
{
    tcw_enc_single_string(e, text, len);
    if (color) {
        uint8_t *p = tcw_enc_item(e, 13);
        p[0] = (uint8_t)(TCW_MessageColor + callstack);
        tcu_wr64(p + 1, (uint64_t)time);
        put_bgr(p + 9, color);
        p[12] = meta;
    } else {
        uint8_t *p = tcw_enc_item(e, 10);
        p[0] = (uint8_t)(TCW_Message + callstack);
        tcu_wr64(p + 1, (uint64_t)time);
        p[9] = meta;
    }
}

void tcw_enc_message(struct tcw_encoder *e, int64_t time, const char *text, size_t len, uint32_t color, uint8_t meta)
{
    message(e, 0, time, text, len, color, meta);
}

void tcw_enc_message_callstack(struct tcw_encoder *e, int64_t time, const char *text, size_t len, uint32_t color,
                               uint8_t meta)
{
    message(e, TCW_MessageCallstack - TCW_Message, time, text, len, color, meta);
}

/* MessageLiteral and MessageLiteralColor, or (callstack = 2) their Callstack forms. */
static void message_literal(struct tcw_encoder *e, int callstack, int64_t time, uint64_t text_id, uint32_t color,
                            uint8_t meta)
{
    uint64_t field = (text_id << 8) | meta;
    if (color) {
        uint8_t *p = tcw_enc_item(e, 20);
        p[0] = (uint8_t)(TCW_MessageLiteralColor + callstack);
        tcu_wr64(p + 1, (uint64_t)time);
        put_bgr(p + 9, color);
        tcu_wr64(p + 12, field);
    } else {
        uint8_t *p = tcw_enc_item(e, 17);
        p[0] = (uint8_t)(TCW_MessageLiteral + callstack);
        tcu_wr64(p + 1, (uint64_t)time);
        tcu_wr64(p + 9, field);
    }
}

void tcw_enc_message_literal(struct tcw_encoder *e, int64_t time, uint64_t text_id, uint32_t color, uint8_t meta)
{
    message_literal(e, 0, time, text_id, color, meta);
}

void tcw_enc_message_literal_callstack(struct tcw_encoder *e, int64_t time, uint64_t text_id, uint32_t color,
                                       uint8_t meta)
{
    message_literal(e, TCW_MessageLiteralCallstack - TCW_MessageLiteral, time, text_id, color, meta);
}

void tcw_enc_app_info(struct tcw_encoder *e, int64_t time, const char *text, size_t len)
{
    tcw_enc_single_string(e, text, len);
    uint8_t *p = tcw_enc_item(e, 9);
    p[0] = TCW_MessageAppInfo;
    tcu_wr64(p + 1, (uint64_t)time);
}

void tcw_enc_plot(struct tcw_encoder *e, uint8_t type, uint64_t name, int64_t time, uint64_t value_bits)
{
    size_t vsize = type == TCW_PlotDataFloat ? 4 : 8;
    uint8_t *p = tcw_enc_item(e, 17 + vsize);
    p[0] = type;
    tcu_wr64(p + 1, name);
    tcu_wr64(p + 9, (uint64_t)thread_delta(e, time));
    if (vsize == 4)
        tcu_wr32(p + 17, (uint32_t)value_bits);
    else
        tcu_wr64(p + 17, value_bits);
}

void tcw_enc_plot_config(struct tcw_encoder *e, uint64_t name, uint8_t format, uint8_t step, uint8_t fill,
                         uint32_t color)
{
    uint8_t *p = tcw_enc_item(e, 16);
    p[0] = TCW_PlotConfig;
    tcu_wr64(p + 1, name);
    p[9] = format;
    p[10] = step;
    p[11] = fill;
    tcu_wr32(p + 12, color);
}

void tcw_enc_frame_mark(struct tcw_encoder *e, uint8_t type, int64_t time, uint64_t name)
{
    uint8_t *p = tcw_enc_item(e, 17);
    p[0] = type;
    tcu_wr64(p + 1, (uint64_t)time);
    tcu_wr64(p + 9, name);
}

void tcw_enc_frame_image(struct tcw_encoder *e, uint64_t id, const uint8_t *dxt, uint32_t size, uint32_t frame,
                         uint16_t w, uint16_t h, uint8_t flip)
{
    uint8_t *p = tcw_enc_item(e, 13 + size);
    p[0] = TCW_FrameImageData;
    tcu_wr64(p + 1, id);
    tcu_wr32(p + 9, size);
    memcpy(p + 13, dxt, size);
    p = tcw_enc_item(e, 10);
    p[0] = TCW_FrameImage;
    tcu_wr32(p + 1, frame);
    tcu_wr16(p + 5, w);
    tcu_wr16(p + 7, h);
    p[9] = flip;
}

void tcw_enc_fiber_enter(struct tcw_encoder *e, int64_t time, uint64_t fiber, uint32_t tid)
{
    uint8_t *p = tcw_enc_item(e, 25);
    p[0] = TCW_FiberEnter;
    tcu_wr64(p + 1, (uint64_t)thread_delta(e, time));
    tcu_wr64(p + 9, fiber);
    tcu_wr32(p + 17, tid);
    tcu_wr32(p + 21, 0);
}

void tcw_enc_fiber_leave(struct tcw_encoder *e, int64_t time, uint32_t tid)
{
    uint8_t *p = tcw_enc_item(e, 13);
    p[0] = TCW_FiberLeave;
    tcu_wr64(p + 1, (uint64_t)thread_delta(e, time));
    tcu_wr32(p + 9, tid);
}

void tcw_enc_gpu_zone_begin(struct tcw_encoder *e, uint8_t type, int64_t time, uint32_t tid, uint16_t query,
                            uint8_t ctx, uint64_t srcloc, int serial)
{
    int alloc = type == TCW_GpuZoneBeginAllocSrcLoc || type == TCW_GpuZoneBeginAllocSrcLocSerial ||
                type == TCW_GpuZoneBeginAllocSrcLocCallstack || type == TCW_GpuZoneBeginAllocSrcLocCallstackSerial;
    uint8_t *p = tcw_enc_item(e, alloc ? 16 : 24);
    p[0] = type;
    tcu_wr64(p + 1, (uint64_t)(serial ? serial_delta(e, time) : thread_delta(e, time)));
    tcu_wr32(p + 9, tid);
    tcu_wr16(p + 13, query);
    p[15] = ctx;
    if (!alloc)
        tcu_wr64(p + 16, srcloc);
}

void tcw_enc_gpu_zone_end(struct tcw_encoder *e, uint8_t type, int64_t time, uint32_t tid, uint16_t query, uint8_t ctx,
                          int serial)
{
    uint8_t *p = tcw_enc_item(e, 16);
    p[0] = type;
    tcu_wr64(p + 1, (uint64_t)(serial ? serial_delta(e, time) : thread_delta(e, time)));
    tcu_wr32(p + 9, tid);
    tcu_wr16(p + 13, query);
    p[15] = ctx;
}

void tcw_enc_gpu_time(struct tcw_encoder *e, int64_t gpu_time, uint16_t query, uint8_t ctx)
{
    uint8_t *p = tcw_enc_item(e, 12);
    p[0] = TCW_GpuTime;
    tcu_wr64(p + 1, (uint64_t)(gpu_time - e->ref_gpu));
    e->ref_gpu = gpu_time;
    tcu_wr16(p + 9, query);
    p[11] = ctx;
}

void tcw_enc_gpu_new_context(struct tcw_encoder *e, int64_t cpu, int64_t gpu, uint32_t tid, float period, uint8_t ctx,
                             uint8_t flags, uint8_t type)
{
    uint8_t *p = tcw_enc_item(e, 28);
    p[0] = TCW_GpuNewContext;
    tcu_wr64(p + 1, (uint64_t)cpu);
    tcu_wr64(p + 9, (uint64_t)gpu);
    tcu_wr32(p + 17, tid);
    memcpy(p + 21, &period, 4);
    p[25] = ctx;
    p[26] = flags;
    p[27] = type;
}

void tcw_enc_gpu_context_name(struct tcw_encoder *e, uint8_t ctx, const char *name, size_t len)
{
    tcw_enc_single_string(e, name, len);
    uint8_t *p = tcw_enc_item(e, 2);
    p[0] = TCW_GpuContextName;
    p[1] = ctx;
}

void tcw_enc_gpu_calibration(struct tcw_encoder *e, int64_t gpu, int64_t cpu, int64_t cpu_delta, uint8_t ctx)
{
    uint8_t *p = tcw_enc_item(e, 26);
    p[0] = TCW_GpuCalibration;
    tcu_wr64(p + 1, (uint64_t)gpu);
    tcu_wr64(p + 9, (uint64_t)cpu);
    tcu_wr64(p + 17, (uint64_t)cpu_delta);
    p[25] = ctx;
}

void tcw_enc_gpu_time_sync(struct tcw_encoder *e, int64_t gpu, int64_t cpu, uint8_t ctx)
{
    uint8_t *p = tcw_enc_item(e, 18);
    p[0] = TCW_GpuTimeSync;
    tcu_wr64(p + 1, (uint64_t)gpu);
    tcu_wr64(p + 9, (uint64_t)cpu);
    p[17] = ctx;
}

static void mem_name(struct tcw_encoder *e, uint64_t pool)
{
    uint8_t *p = tcw_enc_item(e, 9);
    p[0] = TCW_MemNamePayload;
    tcu_wr64(p + 1, pool);
}

/* Each memory item's Callstack form is four codes after the plain one (MemAlloc 35 ->
 * MemAllocCallstack 39, MemFree 37 -> MemFreeCallstack 41); MemDiscardCallstack follows
 * MemDiscard. */
#define MEM_CALLSTACK_OFFSET (TCW_MemAllocCallstack - TCW_MemAlloc)

void tcw_enc_mem_alloc(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t addr, uint64_t size, uint64_t pool,
                       int callstack)
{
    if (pool)
        mem_name(e, pool);
    uint8_t *p = tcw_enc_item(e, 27);
    p[0] = (uint8_t)((pool ? TCW_MemAllocNamed : TCW_MemAlloc) + (callstack ? MEM_CALLSTACK_OFFSET : 0));
    tcu_wr64(p + 1, (uint64_t)serial_delta(e, time));
    tcu_wr32(p + 9, tid);
    tcu_wr64(p + 13, addr);
    tcu_wr32(p + 21, (uint32_t)size);
    tcu_wr16(p + 25, (uint16_t)(size >> 32));
}

void tcw_enc_mem_free(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t addr, uint64_t pool, int callstack)
{
    if (pool)
        mem_name(e, pool);
    uint8_t *p = tcw_enc_item(e, 21);
    p[0] = (uint8_t)((pool ? TCW_MemFreeNamed : TCW_MemFree) + (callstack ? MEM_CALLSTACK_OFFSET : 0));
    tcu_wr64(p + 1, (uint64_t)serial_delta(e, time));
    tcu_wr32(p + 9, tid);
    tcu_wr64(p + 13, addr);
}

void tcw_enc_mem_discard(struct tcw_encoder *e, int64_t time, uint32_t tid, uint64_t pool, int callstack)
{
    uint8_t *p = tcw_enc_item(e, 21);
    p[0] = callstack ? TCW_MemDiscardCallstack : TCW_MemDiscard;
    tcu_wr64(p + 1, (uint64_t)serial_delta(e, time));
    tcu_wr32(p + 9, tid);
    tcu_wr64(p + 13, pool);
}

void tcw_enc_lock_announce(struct tcw_encoder *e, uint32_t id, int64_t time, uint64_t srcloc, uint8_t shared)
{
    uint8_t *p = tcw_enc_item(e, 22);
    p[0] = TCW_LockAnnounce;
    tcu_wr32(p + 1, id);
    tcu_wr64(p + 5, (uint64_t)time);
    tcu_wr64(p + 13, srcloc);
    p[21] = shared;
}

void tcw_enc_lock_terminate(struct tcw_encoder *e, uint32_t id, int64_t time)
{
    uint8_t *p = tcw_enc_item(e, 13);
    p[0] = TCW_LockTerminate;
    tcu_wr32(p + 1, id);
    tcu_wr64(p + 5, (uint64_t)time);
}

void tcw_enc_lock_event(struct tcw_encoder *e, uint8_t type, uint32_t id, int64_t time, uint32_t tid)
{
    int64_t d = serial_delta(e, time);
    uint8_t *p;
    switch (type) {
    case TCW_LockRelease:
        p = tcw_enc_item(e, 13);
        p[0] = type;
        tcu_wr32(p + 1, id);
        tcu_wr64(p + 5, (uint64_t)d);
        break;
    case TCW_LockSharedRelease:
        p = tcw_enc_item(e, 17);
        p[0] = type;
        tcu_wr32(p + 1, id);
        tcu_wr64(p + 5, (uint64_t)d);
        tcu_wr32(p + 13, tid);
        break;
    default: /* wait and obtain, exclusive or shared */
        p = tcw_enc_item(e, 17);
        p[0] = type;
        tcu_wr32(p + 1, tid);
        tcu_wr32(p + 5, id);
        tcu_wr64(p + 9, (uint64_t)d);
        break;
    }
}

void tcw_enc_lock_mark(struct tcw_encoder *e, uint32_t id, uint32_t tid, uint64_t srcloc)
{
    uint8_t *p = tcw_enc_item(e, 17);
    p[0] = TCW_LockMark;
    tcu_wr32(p + 1, tid);
    tcu_wr32(p + 5, id);
    tcu_wr64(p + 9, srcloc);
}

void tcw_enc_lock_name(struct tcw_encoder *e, uint32_t id, const char *name, size_t len)
{
    tcw_enc_single_string(e, name, len);
    uint8_t *p = tcw_enc_item(e, 5);
    p[0] = TCW_LockName;
    tcu_wr32(p + 1, id);
}

void tcw_enc_section_enter(struct tcw_encoder *e, int64_t time, uint32_t id, uint16_t category, const char *text,
                           size_t len)
{
    tcw_enc_single_string(e, text, len);
    uint8_t *p = tcw_enc_item(e, 15);
    p[0] = TCW_SectionEnter;
    tcu_wr64(p + 1, (uint64_t)thread_delta(e, time));
    tcu_wr32(p + 9, id);
    tcu_wr16(p + 13, category);
}

void tcw_enc_section_leave(struct tcw_encoder *e, int64_t time, uint32_t id)
{
    uint8_t *p = tcw_enc_item(e, 13);
    p[0] = TCW_SectionLeave;
    tcu_wr64(p + 1, (uint64_t)thread_delta(e, time));
    tcu_wr32(p + 9, id);
}

void tcw_enc_section_setup(struct tcw_encoder *e, uint16_t category, const char *text, size_t len)
{
    tcw_enc_single_string(e, text, len);
    uint8_t *p = tcw_enc_item(e, 3);
    p[0] = TCW_SectionSetup;
    tcu_wr16(p + 1, category);
}

void tcw_enc_string_reply(struct tcw_encoder *e, uint8_t type, uint64_t id, const char *text, size_t len)
{
    if (len > TCW_MAX_STRING)
        len = TCW_MAX_STRING;
    uint8_t *p = tcw_enc_item(e, 11 + len);
    p[0] = type;
    tcu_wr64(p + 1, id);
    tcu_wr16(p + 9, (uint16_t)len);
    memcpy(p + 11, text, len);
}

void tcw_enc_srcloc_reply(struct tcw_encoder *e, uint64_t name, uint64_t function, uint64_t file, uint32_t line,
                          uint32_t color)
{
    uint8_t *p = tcw_enc_item(e, 32);
    p[0] = TCW_SourceLocation;
    tcu_wr64(p + 1, name);
    tcu_wr64(p + 9, function);
    tcu_wr64(p + 17, file);
    tcu_wr32(p + 25, line);
    put_bgr(p + 29, color);
}

void tcw_enc_byte(struct tcw_encoder *e, uint8_t type)
{
    tcw_enc_item(e, 1)[0] = type;
}

void tcw_enc_source_unavailable(struct tcw_encoder *e, uint32_t id)
{
    uint8_t *p = tcw_enc_item(e, 5);
    p[0] = TCW_AckSourceCodeNotAvailable;
    tcu_wr32(p + 1, id);
}

/* Callstacks (docs/protocol.md §26). A CallstackPayload carries the addresses; the
 * Callstack item (thread-bound: the current ThreadContext's next event) or CallstackSerial
 * item (the next serial event) hands it to the event that follows. */
static void callstack_payload(struct tcw_encoder *e, const uint64_t *frames, size_t n)
{
    size_t bytes = n * 8;
    uint8_t *p = tcw_enc_item(e, 11 + bytes);
    p[0] = TCW_CallstackPayload;
    tcu_wr64(p + 1, 0); /* the server ignores the pointer field */
    tcu_wr16(p + 9, (uint16_t)bytes);
    memcpy(p + 11, frames, bytes);
}

void tcw_enc_callstack(struct tcw_encoder *e, uint8_t type, const uint64_t *frames, size_t n)
{
    callstack_payload(e, frames, n);
    tcw_enc_item(e, 1)[0] = type;
}

static int64_t ctx_delta(struct tcw_encoder *e, int64_t time)
{
    int64_t d = time - e->ref_ctx;
    e->ref_ctx = time;
    return d;
}

void tcw_enc_callstack_sample(struct tcw_encoder *e, uint32_t tid, int64_t time, const uint64_t *frames, size_t n)
{
    callstack_payload(e, frames, n);
    int64_t d = ctx_delta(e, time);
    uint8_t *p;
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        p = tcw_enc_item(e, 7);
        p[0] = TCW_CallstackSample16;
        tcu_wr32(p + 1, tid);
        tcu_wr16(p + 5, (uint16_t)d);
    } else if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        p = tcw_enc_item(e, 9);
        p[0] = TCW_CallstackSample32;
        tcu_wr32(p + 1, tid);
        tcu_wr32(p + 5, (uint32_t)(d - TCW_DELTA16_LIMIT));
    } else {
        p = tcw_enc_item(e, 13);
        p[0] = TCW_CallstackSample;
        tcu_wr32(p + 1, tid);
        tcu_wr64(p + 5, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    }
}

void tcw_enc_context_switch(struct tcw_encoder *e, int64_t time, uint32_t old_tid, uint32_t new_tid, uint8_t cpu,
                            uint8_t reason, uint8_t state)
{
    uint8_t *p = tcw_enc_item(e, 23);
    p[0] = TCW_ContextSwitch;
    tcu_wr64(p + 1, (uint64_t)ctx_delta(e, time));
    tcu_wr32(p + 9, old_tid);
    tcu_wr32(p + 13, new_tid);
    p[17] = cpu;
    p[18] = reason;
    p[19] = state;
    p[20] = 0; /* previous C-state: not known on Linux */
    p[21] = 0; /* priorities: not in perf's switch records */
    p[22] = 0;
}

void tcw_enc_second_string(struct tcw_encoder *e, const char *text, size_t len)
{
    string_item(e, TCW_SecondStringData8, TCW_SecondStringData, text, len);
}

void tcw_enc_callstack_frame_size(struct tcw_encoder *e, uint64_t address, uint8_t frames, const char *image,
                                  size_t image_len)
{
    tcw_enc_single_string(e, image, image_len);
    uint8_t *p = tcw_enc_item(e, 10);
    p[0] = TCW_CallstackFrameSize;
    tcu_wr64(p + 1, address);
    p[9] = frames;
}

void tcw_enc_callstack_frame(struct tcw_encoder *e, const char *name, size_t name_len, const char *file,
                             size_t file_len, uint32_t line, uint64_t sym_addr, uint32_t sym_len)
{
    tcw_enc_single_string(e, name, name_len);
    tcw_enc_second_string(e, file, file_len);
    uint8_t *p = tcw_enc_item(e, 17);
    p[0] = TCW_CallstackFrame;
    tcu_wr32(p + 1, line);
    tcu_wr64(p + 5, sym_addr);
    tcu_wr32(p + 13, sym_len);
}

void tcw_enc_symbol_information(struct tcw_encoder *e, uint64_t sym_addr, const char *file, size_t file_len,
                                uint32_t line)
{
    tcw_enc_single_string(e, file, file_len);
    uint8_t *p = tcw_enc_item(e, 13);
    p[0] = TCW_SymbolInformation;
    tcu_wr32(p + 1, line);
    tcu_wr64(p + 5, sym_addr);
}

void tcw_enc_tid_to_pid(struct tcw_encoder *e, uint64_t tid, uint64_t pid)
{
    uint8_t *p = tcw_enc_item(e, 17);
    p[0] = TCW_TidToPid;
    tcu_wr64(p + 1, tid);
    tcu_wr64(p + 9, pid);
}

void tcw_enc_tracyc_clock(struct tcw_encoder *e, int64_t ticks, int64_t raw_ns, int64_t real_ns, uint64_t host,
                          uint32_t probe)
{
    uint8_t *p = tcw_enc_item(e, 37);
    p[0] = TCW_TracycClock;
    tcu_wr64(p + 1, (uint64_t)ticks);
    tcu_wr64(p + 9, (uint64_t)raw_ns);
    tcu_wr64(p + 17, (uint64_t)real_ns);
    tcu_wr64(p + 25, host);
    tcu_wr32(p + 33, probe);
}

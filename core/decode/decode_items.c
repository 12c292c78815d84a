/* decode_items.c - one decompressed frame of protocol-82 items in, events out.
 *
 * Every item is checked against the frame's end before any of its bytes is read, and
 * every length is checked before it is trusted. Semantics follow docs/protocol.md (§7-§20)
 * and, where it is silent, tracy-capture 0.14.0: the order in which new identifiers are
 * queried, the time chains, and the failures of §21.2.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "decode/decode_callstacks.h"
#include "decode/decode_clock.h"
#include "decode/decode_global.h"
#include "decode/decode_item.h"
#include "decode/decode_items.h"
#include "decode/decode_names.h"
#include "decode/decode_system.h"

/* ---- threads and registers ----------------------------------------------------------- */

/* Zone text, name, colour and value go to the innermost zone of the current thread,
 * checked against the ZoneValidation register (docs/protocol.md §11.5). */
static struct tcd_thread *zone_extra_target(struct tcd_decoder *dec, const char *failure)
{
    struct tcd_thread *td = dec->ctx ? dec->ctx : tcd_find_thread(dec, dec->ctx_tid);
    if (td && td->fiber)
        td = td->fiber;
    if (!td || td->depth == 0 || td->next_zone_id != td->zone_ids[td->depth - 1]) {
        tcd_item_fail(dec, failure);
        return NULL;
    }
    td->next_zone_id = 0;
    return td;
}

static void put_bytes(struct tcd_decoder *dec, struct tcd_pending_bytes *pb, const char *twice, const uint8_t *s,
                      size_t len)
{
    if (pb->set) {
        tcd_item_fail(dec, twice);
        return;
    }
    pb->set = 1;
    pb->data = s;
    pb->len = len;
}

/* ---- zones ---------------------------------------------------------------------------- */

/* with_callstack: a *Callstack item, which takes the callstack waiting for the thread. */
static inline void zone_begin(struct tcd_decoder *dec, uint64_t delta, uint32_t srcloc, bool with_callstack)
{
    int64_t t = tcd_thread_time(dec, delta);
    struct tcd_thread *td = tcd_current_thread(dec);
    uint32_t callstack = with_callstack ? tcd_take_thread_callstack(dec, true) : 0;
    if ((with_callstack && !callstack) || tcd_zone_push(dec, td) != 0)
        return;
    dec->stats.zones++;
    struct tcd_event *ev = &dec->zone_event;
    ev->kind = TCD_ZONE_BEGIN;
    ev->thread = td->id;
    ev->time = t;
    ev->srcloc = srcloc;
    ev->callstack = callstack;
    tcd_emit(dec, ev);
}

static inline void zone_begin_static(struct tcd_decoder *dec, uint64_t delta, uint64_t srcloc_id, bool with_callstack)
{
    uint32_t srcloc = tcd_item_srcloc(dec, srcloc_id); /* queried before the thread, as upstream */
    zone_begin(dec, delta, srcloc, with_callstack);
}

static void zone_begin_alloc(struct tcd_decoder *dec, const uint8_t *it)
{
    if (!dec->pending_payload) {
        tcd_item_fail(dec, "no SourceLocationPayload precedes the zone");
        return;
    }
    uint32_t srcloc = dec->pending_payload - 1;
    dec->pending_payload = 0;
    zone_begin(dec, tcu_rd64(it + 1), srcloc, it[0] == TCW_ZoneBeginAllocSrcLocCallstack);
}

static void zone_end(struct tcd_decoder *dec, uint64_t delta)
{
    struct tcd_thread *td = tcd_current_thread(dec);
    if (td->depth == 0) {
        tcd_item_fail(dec, "Zone is ended twice.");
        return;
    }
    if (td->zone_ids[--td->depth] != td->next_zone_id) {
        tcd_item_fail(dec, "Invalid order of zone begin and end events.");
        return;
    }
    td->next_zone_id = 0;
    dec->open_zones--;
    struct tcd_event *ev = &dec->zone_event;
    ev->kind = TCD_ZONE_END;
    ev->thread = td->id;
    ev->time = tcd_thread_time(dec, delta);
    ev->srcloc = 0;
    ev->callstack = 0;
    tcd_emit(dec, ev);
}

static void zone_text(struct tcd_decoder *dec, enum tcd_event_kind kind)
{
    struct tcd_thread *td =
        zone_extra_target(dec, kind == TCD_ZONE_TEXT ? "Zone text transfer destination doesn't match active zone."
                                                     : "Zone name transfer destination doesn't match active zone.");
    const uint8_t *s;
    size_t len;
    if (!td || tcd_take_single(dec, &s, &len) != 0)
        return;
    tcd_emit(dec, &(struct tcd_event){.kind = kind, .thread = td->id, .text = (const char *)s, .text_len = len});
}

/* ---- messages ------------------------------------------------------------------------- */

/* Whether msg is a Tracy-source message that starts with `prefix` and a number, which
 * goes to *count. */
static bool is_counter_message(const struct tcd_decoder *dec, const struct tcd_event *msg, uint8_t meta,
                               const char *prefix, uint64_t *count)
{
    const size_t plen = strlen(prefix);
    const char *s = msg->text;
    /* Before protocol 82 messages carry no source: the text alone tells. */
    bool from_tracy = (meta & 0x0f) == TCW_MESSAGE_SOURCE_TRACY || !tcw_versions[dec->vi].compact;
    if (!from_tracy || msg->text_len <= plen || memcmp(s, prefix, plen) || s[plen] < '0' || s[plen] > '9')
        return false;
    *count = 0;
    for (size_t i = plen; i < msg->text_len && s[i] >= '0' && s[i] <= '9'; i++)
        *count = *count > (UINT64_MAX - 9) / 10 ? UINT64_MAX : *count * 10 + (uint64_t)(s[i] - '0');
    return true;
}

/* A tracyc client reports running totals as Tracy-source messages: events dropped at its
 * buffer limit "tracyc: dropped <count> ...", plot values it could not send "tracyc:
 * skipped <count> ...", and the samples and switches lost "tracyc: lost <count> CPU samples ..."
 * (docs/protocol.md §25.4). */
static void check_counters(struct tcd_decoder *dec, const struct tcd_event *msg, uint8_t meta)
{
    static const struct {
        const char *prefix;
        enum tcd_event_kind kind;
    } counters[] = {
        {"tracyc: dropped ", TCD_DROPPED}, {"tracyc: skipped ", TCD_PLOT_SKIPPED}, {"tracyc: lost ", TCD_SAMPLES_LOST}};
    uint64_t count;
    for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++) {
        if (!is_counter_message(dec, msg, meta, counters[i].prefix, &count))
            continue;
        if (counters[i].kind == TCD_DROPPED && count > dec->stats.dropped)
            dec->stats.dropped = count; /* a running total, not an increment */
        tcd_emit(dec, &(struct tcd_event){
                          .kind = counters[i].kind, .thread = msg->thread, .time = msg->time, .value = count});
        return;
    }
}

/* with_callstack: a *Callstack item, which takes the callstack waiting for the thread. */
static void message(struct tcd_decoder *dec, uint64_t time, uint32_t color, uint8_t meta, bool with_callstack)
{
    struct tcd_thread *td = tcd_current_thread(dec);
    const uint8_t *s;
    size_t len;
    if (tcd_take_single(dec, &s, &len) != 0)
        return;
    uint32_t callstack = with_callstack ? tcd_take_thread_callstack(dec, true) : 0;
    if (with_callstack && !callstack)
        return;
    struct tcd_event ev = {.kind = TCD_MESSAGE,
                           .thread = td->id,
                           .time = tcd_trace_time(dec, time),
                           .color = color,
                           .severity = meta >> 4,
                           .format = meta & 0x0f,
                           .callstack = callstack,
                           .text = (const char *)s,
                           .text_len = len};
    tcd_emit(dec, &ev);
    check_counters(dec, &ev, meta);
}

/* Literal messages carry (string id << 8) | metadata. */
static void message_literal(struct tcd_decoder *dec, uint64_t time, uint32_t color, uint64_t field, bool with_callstack)
{
    struct tcd_thread *td = tcd_current_thread(dec);
    uint32_t handle = tcd_check_string(dec, field >> 8);
    const char *text = tcd_string_answered(dec, handle);
    uint8_t meta = (uint8_t)field;
    uint32_t callstack = with_callstack ? tcd_take_thread_callstack(dec, true) : 0;
    if (with_callstack && !callstack)
        return;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_MESSAGE,
                                      .thread = td->id,
                                      .time = tcd_trace_time(dec, time),
                                      .id = handle,
                                      .color = color,
                                      .severity = meta >> 4,
                                      .format = meta & 0x0f,
                                      .callstack = callstack,
                                      .text = text,
                                      .text_len = strlen(text)});
}

/* ---- sections --------------------------------------------------------------------------- */

static void section_enter(struct tcd_decoder *dec, const uint8_t *it)
{
    struct tcd_thread *td = tcd_current_thread(dec);
    const uint8_t *s;
    size_t len;
    int64_t time = tcd_thread_time(dec, tcu_rd64(it + 1));
    if (tcd_take_single(dec, &s, &len) != 0)
        return;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_SECTION_ENTER,
                                      .thread = td->id,
                                      .time = time,
                                      .id = tcu_rd32(it + 9),
                                      .query = tcu_rd16(it + 13),
                                      .text = (const char *)s,
                                      .text_len = len});
}

/* ---- plots and frames ------------------------------------------------------------------- */

static void plot(struct tcd_decoder *dec, const uint8_t *it, double value, int is_int)
{
    uint32_t id = tcd_check_plot(dec, tcu_rd64(it + 1));
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_PLOT,
                                      .id = id,
                                      .time = tcd_thread_time(dec, tcu_rd64(it + 9)),
                                      .dvalue = value,
                                      .is_int = (uint8_t)is_int,
                                      .value = is_int ? tcu_rd64(it + 17) : 0});
}

static void frame_mark(struct tcd_decoder *dec, const uint8_t *it, enum tcd_event_kind kind)
{
    uint32_t set = tcd_check_frame_set(dec, tcu_rd64(it + 9), kind != TCD_FRAME_END);
    struct tcd_named *sets = dec->frame_sets.data;
    if (kind == TCD_FRAME_START && set < dec->frame_sets.count)
        sets[set].started = 1;
    if (kind == TCD_FRAME_END && set != 0 && (set >= dec->frame_sets.count || !sets[set].started)) {
        if (!(dec->welcome.flags & TCW_FLAG_ON_DEMAND))
            tcd_item_fail(dec, "Discontinuous frame begin/end mismatch.");
        return;
    }
    tcd_emit(dec, &(struct tcd_event){.kind = kind, .id = set, .time = tcd_trace_time(dec, tcu_rd64(it + 1))});
}

/* ---- fibers, crashes ---------------------------------------------------------------------- */

static void fiber_enter(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = tcd_thread_time(dec, tcu_rd64(it + 1));
    struct tcd_thread *fiber = tcd_fiber_thread(dec, tcu_rd64(it + 9));
    struct tcd_thread *td = tcd_notice_thread(dec, tcu_rd32(it + 17));
    td->fiber = fiber;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_FIBER_ENTER, .thread = td->id, .id = fiber->id, .time = t});
}

static void fiber_leave(struct tcd_decoder *dec, const uint8_t *it)
{
    int64_t t = tcd_thread_time(dec, tcu_rd64(it + 1));
    struct tcd_thread *td = tcd_find_thread(dec, tcu_rd32(it + 9));
    if (!td || !td->fiber) {
        tcd_item_fail(dec, "Fiber execution stopped on a thread which is not executing a fiber.");
        return;
    }
    td->fiber = NULL;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_FIBER_LEAVE, .thread = td->id, .time = t});
}

static void crash_report(struct tcd_decoder *dec, const uint8_t *it)
{
    uint32_t handle = tcd_check_string(dec, tcu_rd64(it + 9));
    struct tcd_thread *td = tcd_current_thread(dec);
    const char *text = tcd_string_answered(dec, handle);
    dec->crash_reported = 1;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_CRASH,
                                      .thread = td->id,
                                      .time = tcd_trace_time(dec, tcu_rd64(it + 1)),
                                      .id = handle,
                                      .callstack = tcd_take_thread_callstack(dec, false),
                                      .text = text,
                                      .text_len = strlen(text)});
}

static void crash(struct tcd_decoder *dec)
{
    dec->crashed = 1;
    if (!dec->crash_reported)
        tcd_emit(dec, &(struct tcd_event){.kind = TCD_CRASH, .thread = dec->ctx_tid, .text = ""});
}

/* ---- string-carrying items ------------------------------------------------------------------ */

static void source_location_payload(struct tcd_decoder *dec, const uint8_t *s, size_t len)
{
    if (dec->pending_payload) {
        tcd_item_fail(dec, "SourceLocationPayload while another one is pending");
        return;
    }
    const uint8_t *fn = s + 8, *fn_end, *file, *file_end;
    if (len < 8 || !(fn_end = memchr(fn, 0, len - 8)) ||
        !(file_end = memchr(file = fn_end + 1, 0, (size_t)(s + len - fn_end - 1)))) {
        tcd_item_fail(dec, "malformed SourceLocationPayload (needs colour, line, function\\0, file\\0, name)");
        return;
    }
    const uint8_t *name = file_end + 1;
    uint32_t idx =
        tcd_payload_srcloc(dec, tcu_rd32(s) & 0xffffff, tcu_rd32(s + 4), (const char *)fn, (size_t)(fn_end - fn),
                           (const char *)file, (size_t)(file_end - file), (const char *)name, (size_t)(s + len - name));
    dec->pending_payload = idx + 1;
}

static void frame_image(struct tcd_decoder *dec, const uint8_t *it)
{
    const uint8_t *s;
    size_t len;
    if (tcd_take_pending(dec, &dec->frame_image, "no FrameImageData precedes FrameImage", &s, &len) != 0)
        return;
    tcd_emit(dec, &(struct tcd_event){.kind = TCD_FRAME_IMAGE,
                                      .id = tcu_rd32(it + 1),
                                      .value = (uint64_t)tcu_rd16(it + 5) << 16 | tcu_rd16(it + 7),
                                      .flags = it[9],
                                      .text = (const char *)s,
                                      .text_len = len});
}

/* Replies to queries this decoder never sends (SymbolCode, SourceCode: no output shows
 * code): always unsolicited. */
static void unsupported_reply(struct tcd_decoder *dec)
{
    tcd_item_fail(dec, "unsolicited reply (the decoder never asks for it)");
}

/* Items of type >= StringData: u64 ptr, u16 (u32 for the long ones) length, bytes.
 * Returns the item's total size, or 0 when it overruns the frame. */
static size_t string_transfer(struct tcd_decoder *dec, uint8_t type, const uint8_t *it, size_t avail)
{
    bool wide = type == TCW_FrameImageData || type == TCW_SymbolCode || type == TCW_SourceCode;
    size_t head = wide ? 13 : 11;
    if (avail < head) {
        tcd_item_fail(dec, "item straddles the end of the frame");
        return 0;
    }
    size_t len = wide ? tcu_rd32(it + 9) : tcu_rd16(it + 9);
    if (len > avail - head) {
        char msg[96];
        snprintf(msg, sizeof msg, "string length %zu overruns the frame (%zu bytes left)", len, avail - head);
        tcd_item_fail(dec, msg);
        return 0;
    }
    uint64_t id = tcu_rd64(it + 1);
    const uint8_t *s = it + head;
    switch (type) {
    case TCW_StringData:
        tcd_reply_string(dec, id, s, len);
        break;
    case TCW_ThreadName:
        tcd_reply_thread_name(dec, id, s, len);
        break;
    case TCW_PlotName:
        tcd_reply_plot_name(dec, id, s, len);
        break;
    case TCW_FrameName:
        tcd_reply_frame_name(dec, id, s, len);
        break;
    case TCW_FiberName:
        tcd_reply_fiber_name(dec, id, s, len);
        break;
    case TCW_SourceLocationPayload:
        source_location_payload(dec, s, len);
        break;
    case TCW_CallstackPayload:
        tcd_callstack_payload(dec, s, len);
        break;
    case TCW_CallstackAllocPayload:
        tcd_callstack_alloc_payload(dec, s, len);
        break;
    case TCW_FrameImageData:
        put_bytes(dec, &dec->frame_image, "FrameImageData while another one is pending", s, len);
        break;
    case TCW_ExternalName:
    case TCW_ExternalThreadName:
        tcd_reply_external(dec, type, id, s, len);
        break;
    default: /* SymbolCode, SourceCode */
        unsupported_reply(dec);
        break;
    }
    return head + len;
}

/* SingleStringData(8) / SecondStringData(8). Returns the item's size, 0 on error. */
static size_t attached_string(struct tcd_decoder *dec, uint8_t type, const uint8_t *it, size_t avail)
{
    bool narrow = type == TCW_SingleStringData8 || type == TCW_SecondStringData8;
    size_t head = narrow ? 2 : 3;
    if (avail < head) {
        tcd_item_fail(dec, "item straddles the end of the frame");
        return 0;
    }
    /* Before protocol 82 the 16-bit form holds the plain length. */
    size_t offset = tcw_versions[dec->vi].compact ? 256 : 0;
    size_t len = narrow ? it[1] : (size_t)tcu_rd16(it + 1) + offset;
    if (len > TCW_MAX_STRING) {
        tcd_item_fail(dec, "string length overflow (the 16-bit form stores length - 256)");
        return 0;
    }
    if (len > avail - head) {
        tcd_item_fail(dec, "string length overruns the frame");
        return 0;
    }
    bool second = type == TCW_SecondStringData || type == TCW_SecondStringData8;
    put_bytes(dec, second ? &dec->second : &dec->single, "two single (or second) strings in a row", it + head, len);
    return head + len;
}

/* ---- zones without their items ---------------------------------------------------------- */

/* What the error message of a failed zone names: the item the event stands for. */
static const uint8_t zone_begin_item[1] = {TCW_ZoneBegin}, zone_end_item[1] = {TCW_ZoneEnd};

/* Whether a zone event may come now: between frames, after the handshake, as
 * tcd_decoder_feed_items takes a frame. */
static bool zone_takes(struct tcd_decoder *dec, const uint8_t *item)
{
    if (dec->state != TCD_STATE_RUNNING || dec->inbuf_len > 0) {
        if (dec->state == TCD_STATE_HANDSHAKE)
            tcd_fail(dec, "items before the handshake");
        else if (dec->state == TCD_STATE_RUNNING)
            tcd_fail(dec, "a zone event in the middle of LZ4 frame %" PRIu64, dec->frame_index);
        return false;
    }
    dec->frame_items = dec->item = item;
    dec->item_type = item[0];
    return true;
}

/* After the event: what a frame's end does for it (queries of a new source location). */
static enum tcd_state zone_taken(struct tcd_decoder *dec)
{
    if (dec->state != TCD_STATE_RUNNING)
        return dec->state;
    if (dec->query_head < dec->query_queue.count || dec->query_low_head < dec->query_queue_low.count)
        tcd_flush_queries(dec);
    if (dec->terminated && tcd_done(dec))
        dec->state = TCD_STATE_DONE;
    return dec->state;
}

enum tcd_state tcd_decoder_zone_begin(struct tcd_decoder *dec, int64_t time, uint64_t srcloc)
{
    if (!zone_takes(dec, zone_begin_item))
        return dec->state;
    /* the delta that moves the thread's time chain to `time`, as the item's would */
    zone_begin_static(dec, (uint64_t)time - dec->ref_thread, srcloc, false);
    return zone_taken(dec);
}

enum tcd_state tcd_decoder_zone_end(struct tcd_decoder *dec, int64_t time)
{
    if (!zone_takes(dec, zone_end_item))
        return dec->state;
    zone_end(dec, (uint64_t)time - dec->ref_thread);
    return zone_taken(dec);
}

/* ---- the frame loop ---------------------------------------------------------------------------- */

void tcd_parse_items(struct tcd_decoder *dec, const uint8_t *p, size_t n)
{
    size_t off = 0;
    dec->frame_items = p;
    while (off < n) {
        const uint8_t *it = p + off;
        const size_t avail = n - off;
        /* The wire opcode of the connection's version names a logical (protocol 82) type. */
        uint8_t type = dec->logical[it[0]];
        dec->item = it;
        dec->item_type = type;
        if (type == TCD_UNKNOWN_TYPE) {
            tcd_item_fail(dec, "unknown item type");
            return;
        }
        size_t size = dec->wire_size[it[0]];
        if (avail < size) {
            tcd_item_fail(dec, "item straddles the end of the frame");
            return;
        }
        /* An older layout is read as its protocol-82 equivalent (docs/protocol.md §24). */
        if (dec->vi != TCW_V82 && tcw_item_from_version(type, it, dec->vi, dec->normalized)) {
            it = dec->normalized;
            type = it[0];
        }
        switch ((enum tcw_type)type) {
        case TCW_ZoneBegin16:
            zone_begin_static(dec, tcu_rd16(it + 1), tcu_rd64(it + 3), false);
            break;
        case TCW_ZoneBegin32:
            zone_begin_static(dec, tcu_rd32(it + 1) + (uint64_t)TCW_DELTA16_LIMIT, tcu_rd64(it + 5), false);
            break;
        case TCW_ZoneBegin:
            zone_begin_static(dec, tcd_delta64(it + 1), tcu_rd64(it + 9), false);
            break;
        case TCW_ZoneBeginCallstack16:
            zone_begin_static(dec, tcu_rd16(it + 1), tcu_rd64(it + 3), true);
            break;
        case TCW_ZoneBeginCallstack32:
            zone_begin_static(dec, tcu_rd32(it + 1) + (uint64_t)TCW_DELTA16_LIMIT, tcu_rd64(it + 5), true);
            break;
        case TCW_ZoneBeginCallstack:
            zone_begin_static(dec, tcd_delta64(it + 1), tcu_rd64(it + 9), true);
            break;
        case TCW_ZoneBeginAllocSrcLoc:
        case TCW_ZoneBeginAllocSrcLocCallstack:
            zone_begin_alloc(dec, it);
            break;
        case TCW_ZoneEnd16:
            zone_end(dec, tcu_rd16(it + 1));
            break;
        case TCW_ZoneEnd32:
            zone_end(dec, tcu_rd32(it + 1) + (uint64_t)TCW_DELTA16_LIMIT);
            break;
        case TCW_ZoneEnd:
            zone_end(dec, tcd_delta64(it + 1));
            break;
        case TCW_ZoneValidation:
            tcd_current_thread(dec)->next_zone_id = tcu_rd32(it + 1);
            break;
        case TCW_ZoneText:
            zone_text(dec, TCD_ZONE_TEXT);
            break;
        case TCW_ZoneName:
            zone_text(dec, TCD_ZONE_NAME);
            break;
        case TCW_ZoneColor: {
            struct tcd_thread *td =
                zone_extra_target(dec, "Zone color transfer destination doesn't match active zone.");
            if (td)
                tcd_emit(dec,
                         &(struct tcd_event){.kind = TCD_ZONE_COLOR, .thread = td->id, .color = tcd_rd_bgr(it + 1)});
            break;
        }
        case TCW_ZoneValue: {
            struct tcd_thread *td =
                zone_extra_target(dec, "Zone value transfer destination doesn't match active zone.");
            if (td)
                tcd_emit(dec, &(struct tcd_event){.kind = TCD_ZONE_VALUE, .thread = td->id, .value = tcu_rd64(it + 1)});
            break;
        }
        case TCW_ThreadContext: {
            uint32_t tid = tcu_rd32(it + 1);
            dec->ref_thread = 0;
            if (tid != dec->ctx_tid) {
                dec->ctx_tid = tid;
                dec->ctx = tcd_find_thread(dec, tid);
            }
            break;
        }

        case TCW_Message:
        case TCW_MessageCallstack:
            message(dec, tcu_rd64(it + 1), 0, it[9], type == TCW_MessageCallstack);
            break;
        case TCW_MessageColor:
        case TCW_MessageColorCallstack:
            message(dec, tcu_rd64(it + 1), tcd_rd_bgr(it + 9), it[12], type == TCW_MessageColorCallstack);
            break;
        case TCW_MessageLiteral:
        case TCW_MessageLiteralCallstack:
            message_literal(dec, tcu_rd64(it + 1), 0, tcu_rd64(it + 9), type == TCW_MessageLiteralCallstack);
            break;
        case TCW_MessageLiteralColor:
        case TCW_MessageLiteralColorCallstack:
            message_literal(dec, tcu_rd64(it + 1), tcd_rd_bgr(it + 9), tcu_rd64(it + 12),
                            type == TCW_MessageLiteralColorCallstack);
            break;
        case TCW_MessageAppInfo: {
            const uint8_t *s;
            size_t len;
            if (tcd_take_single(dec, &s, &len) == 0)
                tcd_emit(dec, &(struct tcd_event){.kind = TCD_APP_INFO,
                                                  .time = tcd_trace_time(dec, tcu_rd64(it + 1)),
                                                  .text = (const char *)s,
                                                  .text_len = len});
            break;
        }

        case TCW_PlotDataInt:
            plot(dec, it, (double)(int64_t)tcu_rd64(it + 17), 1);
            break;
        case TCW_PlotDataFloat: {
            float v = tcu_rdf32(it + 17);
            if (isfinite(v))
                plot(dec, it, v, 0); /* the server drops these before the delta */
            break;
        }
        case TCW_PlotDataDouble: {
            double v = tcd_rd_f64(it + 17);
            if (isfinite(v))
                plot(dec, it, v, 0);
            break;
        }
        case TCW_PlotConfig: {
            uint32_t id = tcd_check_plot(dec, tcu_rd64(it + 1));
            tcd_emit(dec, &(struct tcd_event){.kind = TCD_PLOT_CONFIG,
                                              .id = id,
                                              .format = it[9],
                                              .flags = (uint8_t)((it[10] ? 1 : 0) | (it[11] ? 2 : 0)),
                                              .color = tcu_rd32(it + 12) & 0xffffff});
            break;
        }

        case TCW_FrameMarkMsg:
            frame_mark(dec, it, TCD_FRAME_MARK);
            break;
        case TCW_FrameMarkMsgStart:
            frame_mark(dec, it, TCD_FRAME_START);
            break;
        case TCW_FrameMarkMsgEnd:
            frame_mark(dec, it, TCD_FRAME_END);
            break;
        case TCW_FrameImage:
            frame_image(dec, it);
            break;

        case TCW_MemAlloc:
        case TCW_MemAllocCallstack:
        case TCW_MemAllocNamed:
        case TCW_MemAllocCallstackNamed:
        case TCW_MemFree:
        case TCW_MemFreeCallstack:
        case TCW_MemFreeNamed:
        case TCW_MemFreeCallstackNamed:
        case TCW_MemDiscard:
        case TCW_MemDiscardCallstack:
        case TCW_MemNamePayload:
        case TCW_LockAnnounce:
        case TCW_LockTerminate:
        case TCW_LockWait:
        case TCW_LockObtain:
        case TCW_LockSharedWait:
        case TCW_LockSharedObtain:
        case TCW_LockRelease:
        case TCW_LockSharedRelease:
        case TCW_LockMark:
        case TCW_LockName:
        case TCW_GpuNewContext:
        case TCW_GpuZoneBegin:
        case TCW_GpuZoneBeginCallstack:
        case TCW_GpuZoneBeginSerial:
        case TCW_GpuZoneBeginCallstackSerial:
        case TCW_GpuZoneBeginAllocSrcLoc:
        case TCW_GpuZoneBeginAllocSrcLocCallstack:
        case TCW_GpuZoneBeginAllocSrcLocSerial:
        case TCW_GpuZoneBeginAllocSrcLocCallstackSerial:
        case TCW_GpuZoneEnd:
        case TCW_GpuZoneEndSerial:
        case TCW_GpuTime:
        case TCW_GpuCalibration:
        case TCW_GpuTimeSync:
        case TCW_GpuContextName:
        case TCW_GpuAnnotationName:
        case TCW_GpuZoneAnnotation:
            tcd_parse_global_item(dec, type, it);
            break;

        case TCW_FiberEnter:
            fiber_enter(dec, it);
            break;
        case TCW_FiberLeave:
            fiber_leave(dec, it);
            break;
        case TCW_SectionEnter:
            section_enter(dec, it);
            break;
        case TCW_SectionLeave: {
            struct tcd_thread *td = tcd_current_thread(dec);
            tcd_emit(dec, &(struct tcd_event){.kind = TCD_SECTION_LEAVE,
                                              .thread = td->id,
                                              .time = tcd_thread_time(dec, tcu_rd64(it + 1)),
                                              .id = tcu_rd32(it + 9)});
            break;
        }
        case TCW_SectionSetup: {
            const uint8_t *s;
            size_t len;
            if (tcd_take_single(dec, &s, &len) != 0)
                break;
            tcd_emit(dec, &(struct tcd_event){.kind = TCD_SECTION_SETUP,
                                              .query = tcu_rd16(it + 1),
                                              .text = (const char *)s,
                                              .text_len = len});
            break;
        }

        case TCW_CallstackPayload:
        case TCW_CallstackAllocPayload:
        case TCW_SourceLocationPayload:
        case TCW_FrameImageData:
        case TCW_StringData:
        case TCW_ThreadName:
        case TCW_PlotName:
        case TCW_FrameName:
        case TCW_FiberName:
        case TCW_ExternalName:
        case TCW_ExternalThreadName:
        case TCW_SymbolCode:
        case TCW_SourceCode:
            size = string_transfer(dec, type, it, avail);
            break;
        case TCW_SingleStringData:
        case TCW_SecondStringData:
        case TCW_SingleStringData8:
        case TCW_SecondStringData8:
            size = attached_string(dec, type, it, avail);
            break;
        case TCW_SourceLocation:
            tcd_reply_srcloc(dec, tcu_rd64(it + 1), tcu_rd64(it + 9), tcu_rd64(it + 17), tcu_rd32(it + 25),
                             tcd_rd_bgr(it + 29));
            break;
        case TCW_AckServerQueryNoop:
        case TCW_AckSourceCodeNotAvailable:
        case TCW_AckSymbolCodeNotAvailable:
            tcd_reply_ack(dec, type);
            break;
        case TCW_CallstackFrameSize:
            tcd_callstack_frame_size(dec, it);
            break;
        case TCW_CallstackFrame:
            tcd_callstack_frame(dec, it);
            break;
        case TCW_SymbolInformation:
            tcd_symbol_information(dec, it);
            break;

        case TCW_CallstackSerial:
            tcd_callstack_item(dec, true);
            break;
        case TCW_Callstack:
        case TCW_CallstackAlloc:
            tcd_callstack_item(dec, false);
            break;
        case TCW_CallstackSample16:
        case TCW_CallstackSampleContextSwitch16:
            tcd_callstack_sample(dec, tcu_rd32(it + 1), tcu_rd16(it + 5), type == TCW_CallstackSampleContextSwitch16);
            break;
        case TCW_CallstackSample32:
        case TCW_CallstackSampleContextSwitch32:
            tcd_callstack_sample(dec, tcu_rd32(it + 1), tcu_rd32(it + 5) + (uint64_t)TCW_DELTA16_LIMIT,
                                 type == TCW_CallstackSampleContextSwitch32);
            break;
        case TCW_CallstackSample:
        case TCW_CallstackSampleContextSwitch:
            tcd_callstack_sample(dec, tcu_rd32(it + 1), tcd_delta64(it + 5), type == TCW_CallstackSampleContextSwitch);
            break;
        case TCW_ContextSwitch:
            tcd_context_switch(dec, it);
            break;
        case TCW_ThreadWakeup:
            tcd_thread_wakeup(dec, it);
            break;
        case TCW_TidToPid:
            tcd_tid_to_pid(dec, it);
            break;
        case TCW_TracycClock:
            tcd_clock_item(dec, it);
            break;
        case TCW_CrashReport:
            crash_report(dec, it);
            break;
        case TCW_Crash:
            crash(dec);
            break;
        case TCW_Terminate:
            dec->terminated = 1;
            break;
        case TCW_ParamSetup:
            tcd_check_string(dec, tcu_rd64(it + 5));
            break;
        case TCW_SysPowerReport:
            tcd_check_string(dec, tcu_rd64(it + 17));
            break;

        /* System-tracer and informational items: no event; parsed for their size. */
        case TCW_KeepAlive:
        case TCW_FrameVsync:
        case TCW_ThreadGroupHint:
        case TCW_CpuTopology:
        case TCW_SysTimeReport:
        case TCW_HwSampleCpuCycle:
        case TCW_HwSampleInstructionRetired:
        case TCW_HwSampleCacheReference:
        case TCW_HwSampleCacheMiss:
        case TCW_HwSampleBranchRetired:
        case TCW_HwSampleBranchMiss:
            break;

        case TCW_ExternalNameMetadata:
        case TCW_SymbolCodeMetadata:
        case TCW_SourceCodeMetadata:
        case TCW_NUM_TYPES:
            tcd_item_fail(dec, "client-internal item type that never appears on the wire");
            break;
        }
        if (dec->state == TCD_STATE_FAILED)
            return;
        off += size;
    }
}

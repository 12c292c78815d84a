/* decode_item.h - the steps every item parser shares (decode_items.c, decode_global.c,
 * decode_callstacks.c, decode_system.c): reading fields, the time chains, emitting
 * events, taking the pending strings (decode_item.c). */
#ifndef TRACYC_DECODE_DECODE_ITEM_H
#define TRACYC_DECODE_DECODE_ITEM_H

#include "decode/decode_fail.h"
#include "decode/decode_internal.h"
#include "decode/decode_tables.h"
#include "util/bytes.h"

static inline double tcd_rd_f64(const uint8_t *p)
{
    double v;
    memcpy(&v, p, 8);
    return v;
}
/* Wire colours are b, g, r bytes; events carry 0x00RRGGBB. */
static inline uint32_t tcd_rd_bgr(const uint8_t *p)
{
    return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void tcd_emit(struct tcd_decoder *dec, const struct tcd_event *ev)
{
    dec->stats.events++;
    if (dec->cb.on_event)
        dec->cb.on_event(dec->user, ev);
}

/* ---- time --------------------------------------------------------------------------- */

static inline int64_t tcd_clamp_i64(double ns)
{
    if (ns > -9.2e18 && ns < 9.2e18)
        return (int64_t)ns;
    return ns > 0 ? INT64_MAX : ns < 0 ? INT64_MIN : 0; /* NaN: 0 */
}

/* int64((T - initBegin) * timerMul), in f64 like the server. */
static inline int64_t tcd_trace_time(const struct tcd_decoder *dec, uint64_t t)
{
    return tcd_clamp_i64((double)(int64_t)(t - (uint64_t)dec->welcome.init_begin) * dec->welcome.timer_mul);
}

static inline int64_t tcd_thread_time(struct tcd_decoder *dec, uint64_t delta)
{
    return tcd_trace_time(dec, dec->ref_thread += delta);
}

static inline int64_t tcd_serial_time(struct tcd_decoder *dec, uint64_t delta)
{
    return tcd_trace_time(dec, dec->ref_serial += delta);
}

/* The 64-bit variant of a compact encoding (docs/protocol.md §8.3). */
static inline uint64_t tcd_delta64(const uint8_t *p)
{
    int64_t v = (int64_t)tcu_rd64(p);
    return v >= 0 ? (uint64_t)v + TCW_DELTA32_LIMIT : (uint64_t)v;
}

/* ---- shared steps ----------------------------------------------------------------------- */

/* Takes the string or blob waiting in pb; -1 (FAILED with `missing`) when there is none. */
int tcd_take_pending(struct tcd_decoder *dec, struct tcd_pending_bytes *pb, const char *missing, const uint8_t **s,
                     size_t *len);
/* Takes the pending single (second) string; -1 (FAILED) when there is none. */
int tcd_take_single(struct tcd_decoder *dec, const uint8_t **s, size_t *len);
int tcd_take_second(struct tcd_decoder *dec, const uint8_t **s, size_t *len);

/* The thread a thread-bound item belongs to: the current context, noticed (and its
 * name queried) on first use, or the fiber it runs. */
static inline struct tcd_thread *tcd_current_thread(struct tcd_decoder *dec)
{
    struct tcd_thread *td = dec->ctx;
    if (!td)
        td = dec->ctx = tcd_notice_thread(dec, dec->ctx_tid);
    return td->fiber ? td->fiber : td;
}

/* The dense index of a static source location, queried when new. */
static inline uint32_t tcd_item_srcloc(struct tcd_decoder *dec, uint64_t id)
{
    const struct tcd_recent_srcloc *r = &dec->recent_srclocs[tcd_recent_srcloc_slot(id)];
    if (r->id == id && r->index_plus1)
        return r->index_plus1 - 1;
    return tcd_check_srcloc(dec, id); /* looked up, or new: queried */
}

#endif

/* decode_item.h - helpers shared by the item parsers (decode_items.c, decode_global.c). */
#ifndef TRACYC_WIRE_DECODE_ITEM_H
#define TRACYC_WIRE_DECODE_ITEM_H

#include "wire/decode_internal.h"
#include "util/bytes.h"

static inline double rdf64(const uint8_t *p)
{
    double v;
    memcpy(&v, p, 8);
    return v;
}
/* Wire colours are b, g, r bytes; events carry 0x00RRGGBB. */
static inline uint32_t rd_bgr(const uint8_t *p)
{
    return (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static inline void emit(struct tcd_decoder *dec, const struct tcd_event *ev)
{
    dec->stats.events++;
    if (dec->cb.on_event)
        dec->cb.on_event(dec->user, ev);
}

/* ---- time --------------------------------------------------------------------------- */

static inline int64_t clamp_i64(double ns)
{
    if (ns > -9.2e18 && ns < 9.2e18)
        return (int64_t)ns;
    return ns > 0 ? INT64_MAX : ns < 0 ? INT64_MIN : 0; /* NaN: 0 */
}

/* int64((T - initBegin) * timerMul), in f64 like the server. */
static inline int64_t trace_time(const struct tcd_decoder *dec, uint64_t t)
{
    return clamp_i64((double)(int64_t)(t - (uint64_t)dec->welcome.init_begin) * dec->welcome.timer_mul);
}

static inline int64_t thread_time(struct tcd_decoder *dec, uint64_t delta)
{
    return trace_time(dec, dec->ref_thread += delta);
}

static inline int64_t serial_time(struct tcd_decoder *dec, uint64_t delta)
{
    return trace_time(dec, dec->ref_serial += delta);
}

/* The 64-bit variant of a compact encoding (docs/protocol.md §8.3). */
static inline uint64_t delta64(const uint8_t *p)
{
    int64_t v = (int64_t)tcu_rd64(p);
    return v >= 0 ? (uint64_t)v + TCW_DELTA32_LIMIT : (uint64_t)v;
}

/* ---- shared steps ----------------------------------------------------------------------- */

/* FAILED with `what` and the item's type and offset. */
void tcd_item_fail(struct tcd_decoder *dec, const char *what);

/* Takes the pending single (second) string; FAILED when there is none. */
bool tcd_take_single(struct tcd_decoder *dec, const uint8_t **s, size_t *len);
bool tcd_take_second(struct tcd_decoder *dec, const uint8_t **s, size_t *len);

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
    if (id == dec->last_srcloc_id && dec->srclocs.count)
        return dec->last_srcloc_index;
    const uint64_t *index = tcu_map_get(&dec->srcloc_ids, id);
    if (!index)
        return tcd_check_srcloc(dec, id); /* new: query it */
    dec->last_srcloc_id = id;
    dec->last_srcloc_index = (uint32_t)*index;
    return (uint32_t)*index;
}

/* decode_global.c: memory, lock and GPU items, which carry their own thread id. */
void tcd_parse_global_item(struct tcd_decoder *dec, uint8_t type, const uint8_t *it);

/* decode_callstacks.c: payloads, the registers that pass a callstack to its item (a
 * take that finds none FAILS the decoder and gives 0), samples, answers. */
void tcd_callstack_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len);
void tcd_callstack_alloc_payload(struct tcd_decoder *dec, const uint8_t *p, size_t len);
void tcd_callstack_item(struct tcd_decoder *dec, bool serial);
uint32_t tcd_take_thread_callstack(struct tcd_decoder *dec, bool required);
uint32_t tcd_take_serial_callstack(struct tcd_decoder *dec);
void tcd_callstack_sample(struct tcd_decoder *dec, uint32_t thread, uint64_t delta, bool switched_out);
void tcd_callstack_frame_size(struct tcd_decoder *dec, const uint8_t *it);
void tcd_callstack_frame(struct tcd_decoder *dec, const uint8_t *it);
void tcd_symbol_information(struct tcd_decoder *dec, const uint8_t *it);

/* decode_system.c */
void tcd_context_switch(struct tcd_decoder *dec, const uint8_t *it);
void tcd_thread_wakeup(struct tcd_decoder *dec, const uint8_t *it);
void tcd_tid_to_pid(struct tcd_decoder *dec, const uint8_t *it);
bool tcd_reply_external(struct tcd_decoder *dec, uint8_t type, uint64_t id, const uint8_t *s, size_t len);

#endif

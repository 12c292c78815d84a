/* trace_log.c - the events a trace keeps for replays (tct_trace_keep_events): each one as
 * it came, written compactly to a tape (util/tape.h) and read back into a new trace.
 *
 * An event on the tape: its kind, a mask of its fields that are not zero (varint), then
 * those fields in the order of enum field: integers as varints (the time as the zigzag
 * difference from the previous event's time, which is usually small), the double as its 8
 * bytes, the text as its length and bytes. Frame images are not kept: no output shows them.
 * Written and read in the tape's own buffer, a field at a time: a capture that keeps its
 * events goes through tens of millions of them twice. */
#include "trace/trace_internal.h"

#include <errno.h>
#include <string.h>

enum field {
    F_SOURCE,
    F_TIME,
    F_TIME2,
    F_THREAD,
    F_SRCLOC,
    F_ID,
    F_COLOR,
    F_QUERY,
    F_SEVERITY,
    F_FORMAT,
    F_FLAGS,
    F_IS_INT,
    F_CALLSTACK,
    F_VALUE,
    F_ADDRESS,
    F_DVALUE,
    F_TEXT,
};

#define MAX_HEAD 180 /* everything but the text, at most: kind, mask, 15 varints, the double */

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

#define BIT(f, nonzero) ((uint32_t)((nonzero) != 0) << (f))

void tct_trace_log_event(struct tct_trace *tr, uint32_t source, const struct tcd_event *ev)
{
    if (ev->kind == TCD_FRAME_IMAGE)
        return;
    size_t text_len = ev->text ? ev->text_len : 0;
    if (text_len > TCU_TAPE_READ - MAX_HEAD) /* longer than any text the protocol carries */
        text_len = TCU_TAPE_READ - MAX_HEAD;
    uint8_t *start = tcu_tape_reserve(tr->kept, MAX_HEAD + text_len), *p = start;
    if (!start)
        return; /* the error sticks with the tape: the replay reports it */
    uint64_t time = zigzag((int64_t)((uint64_t)ev->time - (uint64_t)tr->kept_time));
    uint64_t dbits;
    memcpy(&dbits, &ev->dvalue, sizeof dbits);
    uint32_t mask = BIT(F_SOURCE, source) | BIT(F_TIME, time) | BIT(F_TIME2, ev->time2) | BIT(F_THREAD, ev->thread) |
                    BIT(F_SRCLOC, ev->srcloc) | BIT(F_ID, ev->id) | BIT(F_COLOR, ev->color) | BIT(F_QUERY, ev->query) |
                    BIT(F_SEVERITY, ev->severity) | BIT(F_FORMAT, ev->format) | BIT(F_FLAGS, ev->flags) |
                    BIT(F_IS_INT, ev->is_int) | BIT(F_CALLSTACK, ev->callstack) | BIT(F_VALUE, ev->value) |
                    BIT(F_ADDRESS, ev->address) | BIT(F_DVALUE, dbits) | BIT(F_TEXT, text_len);
    *p++ = (uint8_t)ev->kind;
    p += put_varint(p, mask);
#define PUT(f, v)                                                                                                      \
    if (mask & 1u << (f))                                                                                              \
    p += put_varint(p, (v))
    PUT(F_SOURCE, source);
    PUT(F_TIME, time);
    PUT(F_TIME2, zigzag(ev->time2));
    PUT(F_THREAD, ev->thread);
    PUT(F_SRCLOC, ev->srcloc);
    PUT(F_ID, ev->id);
    PUT(F_COLOR, ev->color);
    PUT(F_QUERY, ev->query);
    PUT(F_SEVERITY, ev->severity);
    PUT(F_FORMAT, ev->format);
    PUT(F_FLAGS, ev->flags);
    PUT(F_IS_INT, ev->is_int);
    PUT(F_CALLSTACK, ev->callstack);
    PUT(F_VALUE, ev->value);
    PUT(F_ADDRESS, ev->address);
#undef PUT
    if (dbits) {
        memcpy(p, &dbits, 8);
        p += 8;
    }
    if (text_len) {
        p += put_varint(p, text_len);
        memcpy(p, ev->text, text_len);
        p += text_len;
    }
    tcu_tape_commit(tr->kept, (size_t)(p - start));
    tr->kept_time = ev->time;
}

void tct_trace_keep_events(struct tct_trace *tr)
{
    if (!tr->kept)
        tr->kept = tcu_tape_new(tr->spill_memory); /* out of memory: the replay reports it */
}

void tct_trace_set_spill_memory(struct tct_trace *tr, size_t bytes)
{
    tr->spill_memory = bytes;
}

size_t tct_trace_spill_memory(const struct tct_trace *tr)
{
    return tr->spill_memory;
}

int tct_trace_kept_error(const struct tct_trace *tr)
{
    return tr->kept ? tcu_tape_error(tr->kept) : 0;
}

/* ---- reading back ---------------------------------------------------------------------------- */

struct cursor {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t get_varint_long(struct cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static inline uint64_t get_varint(struct cursor *c)
{
    if (c->p < c->end && *c->p < 0x80)
        return *c->p++;
    return get_varint_long(c);
}

/* One event, decoded; its text points into the tape's buffer. */
static int decode_event(struct cursor *c, int64_t *time, struct tcd_event *ev, uint32_t *source)
{
    *ev = (struct tcd_event){0};
    ev->kind = (enum tcd_event_kind) * c->p++;
    uint32_t mask = (uint32_t)get_varint(c);
#define GET(f) (mask & 1u << (f) ? get_varint(c) : 0)
    *source = (uint32_t)GET(F_SOURCE);
    *time = (int64_t)((uint64_t)*time + (uint64_t)unzigzag(GET(F_TIME))); /* wraps as the writer's step did */
    ev->time = *time;
    ev->time2 = unzigzag(GET(F_TIME2));
    ev->thread = (uint32_t)GET(F_THREAD);
    ev->srcloc = (uint32_t)GET(F_SRCLOC);
    ev->id = (uint32_t)GET(F_ID);
    ev->color = (uint32_t)GET(F_COLOR);
    ev->query = (uint16_t)GET(F_QUERY);
    ev->severity = (uint8_t)GET(F_SEVERITY);
    ev->format = (uint8_t)GET(F_FORMAT);
    ev->flags = (uint8_t)GET(F_FLAGS);
    ev->is_int = (uint8_t)GET(F_IS_INT);
    ev->callstack = (uint32_t)GET(F_CALLSTACK);
    ev->value = GET(F_VALUE);
    ev->address = GET(F_ADDRESS);
#undef GET
    if (mask & 1u << F_DVALUE) {
        if (c->end - c->p < 8)
            return -1;
        memcpy(&ev->dvalue, c->p, 8);
        c->p += 8;
    }
    ev->text = "";
    if (mask & 1u << F_TEXT) {
        uint64_t len = get_varint(c);
        if (len > (uint64_t)(c->end - c->p))
            return -1;
        ev->text = (const char *)c->p;
        ev->text_len = (size_t)len;
        c->p += len;
    }
    return c->bad ? -1 : 0;
}

int tct_trace_log_next(struct tct_trace_log_reader *r, struct tcd_event *ev, uint32_t *source)
{
    /* An event is at most TCU_TAPE_READ bytes: with fewer left in view, and more on the
     * tape, take what was read and look further. */
    if (!r->last && (!r->p || (size_t)(r->end - r->p) < TCU_TAPE_READ)) {
        if (r->p)
            tcu_tape_skip(&r->tape_reader, (size_t)(r->p - r->start));
        size_t avail;
        r->start = r->p = tcu_tape_peek(r->tape, &r->tape_reader, &avail);
        if (!r->p)
            return -1;
        r->end = r->p + avail;
        r->last = avail < TCU_TAPE_READ || r->tape_reader.at + avail == tcu_tape_size(r->tape);
    }
    if (r->p == r->end) {
        tcu_tape_skip(&r->tape_reader, (size_t)(r->p - r->start));
        r->start = r->p;
        return 1;
    }
    struct cursor c = {r->p, r->end, 0};
    int rc = decode_event(&c, &r->time, ev, source);
    r->p = c.p;
    return rc;
}

/* trace_log.c - the events a trace keeps for replays (tct_trace_keep_events): each one as
 * it came, written compactly to a tape (util/tape.h) and read back into a new trace.
 *
 * An event on the tape: its length (varint), then its kind, its source (varint), a mask
 * of the fields that are not zero (varint), and those fields: integers as varints (times
 * as the zigzag difference from the previous event's time, which is usually small), the
 * double as its 8 bytes, the text as its length and bytes. Frame images are not kept: no
 * output shows them. */
#include "trace/trace_internal.h"

#include <errno.h>
#include <string.h>

enum field {
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

#define MAX_HEAD 160 /* everything but the text, at most */

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

void tct_trace_log_event(struct tct_trace *tr, uint32_t source, const struct tcd_event *ev)
{
    if (ev->kind == TCD_FRAME_IMAGE)
        return;
    const uint64_t values[] = {
        [F_TIME] = zigzag((int64_t)((uint64_t)ev->time - (uint64_t)tr->kept_time)),
        [F_TIME2] = zigzag(ev->time2),
        [F_THREAD] = ev->thread,
        [F_SRCLOC] = ev->srcloc,
        [F_ID] = ev->id,
        [F_COLOR] = ev->color,
        [F_QUERY] = ev->query,
        [F_SEVERITY] = ev->severity,
        [F_FORMAT] = ev->format,
        [F_FLAGS] = ev->flags,
        [F_IS_INT] = ev->is_int,
        [F_CALLSTACK] = ev->callstack,
        [F_VALUE] = ev->value,
        [F_ADDRESS] = ev->address,
    };
    uint64_t dbits;
    memcpy(&dbits, &ev->dvalue, sizeof dbits);
    size_t text_len = ev->text ? ev->text_len : 0;
    if (text_len > TCU_TAPE_READ - MAX_HEAD) /* longer than any text the protocol carries */
        text_len = TCU_TAPE_READ - MAX_HEAD;
    uint32_t mask = 0;
    for (int f = 0; f <= F_ADDRESS; f++)
        mask |= (uint32_t)(values[f] != 0) << f;
    mask |= dbits ? 1u << F_DVALUE : 0;
    mask |= text_len ? 1u << F_TEXT : 0;
    uint8_t head[MAX_HEAD], *p = head;
    *p++ = (uint8_t)ev->kind;
    p += put_varint(p, source);
    p += put_varint(p, mask);
    for (uint32_t m = mask & ((1u << (F_ADDRESS + 1)) - 1); m; m &= m - 1)
        p += put_varint(p, values[__builtin_ctz(m)]);
    if (dbits) {
        memcpy(p, &dbits, 8);
        p += 8;
    }
    if (text_len)
        p += put_varint(p, text_len);
    uint8_t len[10];
    size_t body = (size_t)(p - head) + text_len;
    tr->kept_time = ev->time;
    /* An error sticks with the tape: the replay reports it. */
    if (tcu_tape_write(tr->kept, len, put_varint(len, body)) == 0 &&
        tcu_tape_write(tr->kept, head, (size_t)(p - head)) == 0 && text_len)
        tcu_tape_write(tr->kept, ev->text, text_len);
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

/* ---- reading back ---------------------------------------------------------------------------- */

struct cursor {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t get_varint(struct cursor *c)
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

/* The body of one event, decoded; its text points into the body. */
static int decode_event(struct cursor *c, int64_t *time, struct tcd_event *ev, uint32_t *source)
{
    *ev = (struct tcd_event){0};
    if (c->p >= c->end)
        return -1;
    ev->kind = (enum tcd_event_kind) * c->p++;
    *source = (uint32_t)get_varint(c);
    uint32_t mask = (uint32_t)get_varint(c);
    uint64_t v[F_ADDRESS + 1] = {0};
    for (uint32_t m = mask & ((1u << (F_ADDRESS + 1)) - 1); m; m &= m - 1)
        v[__builtin_ctz(m)] = get_varint(c);
    *time = (int64_t)((uint64_t)*time + (uint64_t)unzigzag(v[F_TIME])); /* wraps as the writer's step did */
    ev->time = *time;
    ev->time2 = unzigzag(v[F_TIME2]);
    ev->thread = (uint32_t)v[F_THREAD];
    ev->srcloc = (uint32_t)v[F_SRCLOC];
    ev->id = (uint32_t)v[F_ID];
    ev->color = (uint32_t)v[F_COLOR];
    ev->query = (uint16_t)v[F_QUERY];
    ev->severity = (uint8_t)v[F_SEVERITY];
    ev->format = (uint8_t)v[F_FORMAT];
    ev->flags = (uint8_t)v[F_FLAGS];
    ev->is_int = (uint8_t)v[F_IS_INT];
    ev->callstack = (uint32_t)v[F_CALLSTACK];
    ev->value = v[F_VALUE];
    ev->address = v[F_ADDRESS];
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

/* The next event's body from the tape: its length, then its bytes. NULL at the end. */
static const uint8_t *next_body(struct tcu_tape *tape, struct tcu_tape_reader *r, size_t *len)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        const uint8_t *b = tcu_tape_read(tape, r, 1);
        if (!b)
            return NULL;
        v |= (uint64_t)(*b & 0x7f) << shift;
        if (!(*b & 0x80))
            break;
    }
    if (v > TCU_TAPE_READ)
        return NULL;
    *len = (size_t)v;
    return tcu_tape_read(tape, r, *len);
}

int tct_trace_log_next(struct tct_trace_log_reader *r, struct tcd_event *ev, uint32_t *source)
{
    size_t len;
    const uint8_t *body = next_body(r->tape, &r->tape_reader, &len);
    if (!body)
        return 1;
    struct cursor c = {body, body + len, 0};
    return decode_event(&c, &r->time, ev, source) == 0 ? 0 : -1;
}

/* decode_stream.c - hand-built protocol-82 streams for the decoder tests (decode_stream.h). */
#include "decode_stream.h"

#include <inttypes.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

void put(struct buf *b, const void *data, size_t len)
{
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, data, len);
    b->len += len;
}
void u8(struct buf *b, uint8_t v)
{
    put(b, &v, 1);
}
void u16(struct buf *b, uint16_t v)
{
    put(b, &v, 2);
}
void u32(struct buf *b, uint32_t v)
{
    put(b, &v, 4);
}
void u64(struct buf *b, uint64_t v)
{
    put(b, &v, 8);
}
void f32(struct buf *b, float v)
{
    put(b, &v, 4);
}
void f64(struct buf *b, double v)
{
    put(b, &v, 8);
}
void hex(struct buf *b, const char *s)
{
    unsigned v;
    int n;
    while (sscanf(s, " %2x%n", &v, &n) == 1) {
        u8(b, (uint8_t)v);
        s += n;
    }
}
void clear(struct buf *b)
{
    b->len = 0;
}

/* Items (docs/protocol.md §7). */
void it_thread(struct buf *b, uint32_t tid)
{
    u8(b, TCW_ThreadContext);
    u32(b, tid);
}
void it_single(struct buf *b, const char *s)
{
    size_t len = strlen(s);
    if (len <= 255) {
        u8(b, TCW_SingleStringData8);
        u8(b, (uint8_t)len);
    } else {
        u8(b, TCW_SingleStringData);
        u16(b, (uint16_t)(len - 256));
    }
    put(b, s, len);
}
void it_transfer(struct buf *b, uint8_t type, uint64_t id, const void *s, size_t len)
{
    u8(b, type);
    u64(b, id);
    u16(b, (uint16_t)len);
    put(b, s, len);
}
void it_string(struct buf *b, uint8_t type, uint64_t id, const char *s)
{
    it_transfer(b, type, id, s, strlen(s));
}

/* Zone begin/end with the compact encoding of docs/protocol.md §8.3. */
void it_delta(struct buf *b, uint8_t t64, uint8_t t32, uint8_t t16, int64_t d)
{
    if (d >= 0 && d < TCW_DELTA16_LIMIT) {
        u8(b, t16);
        u16(b, (uint16_t)d);
    } else if (d >= TCW_DELTA16_LIMIT && d < TCW_DELTA32_LIMIT) {
        u8(b, t32);
        u32(b, (uint32_t)(d - TCW_DELTA16_LIMIT));
    } else {
        u8(b, t64);
        u64(b, (uint64_t)(d < 0 ? d : d - TCW_DELTA32_LIMIT));
    }
}
void it_zone_begin(struct buf *b, int64_t d, uint64_t srcloc)
{
    it_delta(b, TCW_ZoneBegin, TCW_ZoneBegin32, TCW_ZoneBegin16, d);
    u64(b, srcloc);
}
void it_zone_end(struct buf *b, int64_t d)
{
    it_delta(b, TCW_ZoneEnd, TCW_ZoneEnd32, TCW_ZoneEnd16, d);
}
void it_payload(struct buf *b, uint32_t color, uint32_t line, const char *fn, const char *file, const char *name)
{
    struct buf p = {0};
    u32(&p, color);
    u32(&p, line);
    put(&p, fn, strlen(fn) + 1);
    put(&p, file, strlen(file) + 1);
    put(&p, name, strlen(name));
    it_transfer(b, TCW_SourceLocationPayload, 0x1234, p.p, p.len);
    free(p.p);
}

/* ---- handshake bytes and frames ---------------------------------------------------------- */

void welcome(struct buf *b, double timer_mul, int64_t init_begin, uint8_t flags)
{
    uint8_t w[TCW_WELCOME_SIZE] = {0};
    int64_t init_end = init_begin + 100000;
    uint64_t resolution = 20, epoch = 1735689600, pid = 1234;
    memcpy(w + TCW_WELCOME_TIMER_MUL, &timer_mul, 8);
    memcpy(w + TCW_WELCOME_INIT_BEGIN, &init_begin, 8);
    memcpy(w + TCW_WELCOME_INIT_END, &init_end, 8);
    memcpy(w + TCW_WELCOME_RESOLUTION, &resolution, 8);
    memcpy(w + TCW_WELCOME_EPOCH, &epoch, 8);
    memcpy(w + TCW_WELCOME_PID, &pid, 8);
    w[TCW_WELCOME_FLAGS] = flags;
    w[TCW_WELCOME_CPU_ARCH] = 2;
    memcpy(w + TCW_WELCOME_PROGRAM_NAME, "example", 7);
    memcpy(w + TCW_WELCOME_HOST_INFO, "OS: Linux\n", 10);
    u8(b, TCW_HANDSHAKE_WELCOME);
    put(b, w, sizeof w);
    if (flags & TCW_FLAG_ON_DEMAND) {
        u64(b, 5);
        u64(b, (uint64_t)init_begin);
    }
}

/* Appends items as one LZ4 frame (independent block). */
void frame(struct buf *wire, const struct buf *items)
{
    char out[TCW_LZ4_SIZE];
    int n = LZ4_compress_default((const char *)items->p, out, (int)items->len, (int)sizeof out);
    u32(wire, (uint32_t)n);
    put(wire, out, (size_t)n);
}

/* ---- a decoder that records what it emits --------------------------------------------------- */

void on_event(void *user, const struct tcd_event *ev)
{
    struct recorder *r = user;
    if (r->count == r->cap) {
        r->cap = r->cap * 2 + 64;
        r->events = realloc(r->events, r->cap * sizeof *r->events);
    }
    struct rec_event *e = &r->events[r->count++];
    e->ev = *ev;
    size_t n = ev->text_len < sizeof e->text - 1 ? ev->text_len : sizeof e->text - 1;
    if (ev->text)
        memcpy(e->text, ev->text, n);
    e->text[n] = 0;
    e->ev.text = NULL;
}

void on_query(void *user, const uint8_t packet[13])
{
    struct recorder *r = user;
    if (r->nq == r->qcap) {
        r->qcap = r->qcap * 2 + 64;
        r->queries = realloc(r->queries, r->qcap * sizeof *r->queries);
    }
    memcpy(r->queries[r->nq++], packet, 13);
}

void rec_init(struct recorder *r, const struct tcd_limits *limits)
{
    memset(r, 0, sizeof *r);
    struct tcd_callbacks cb = {on_event, on_query};
    r->dec = tcd_decoder_new(&cb, r, limits);
}

void rec_free(struct recorder *r)
{
    tcd_decoder_free(r->dec);
    free(r->events);
    free(r->queries);
}

const struct rec_event *find_event(const struct recorder *r, enum tcd_event_kind kind, size_t nth)
{
    for (size_t i = 0; i < r->count; i++)
        if (r->events[i].ev.kind == kind && nth-- == 0)
            return &r->events[i];
    return NULL;
}

size_t count_events(const struct recorder *r, enum tcd_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        n += r->events[i].ev.kind == kind;
    return n;
}

enum tcd_state feed(struct recorder *r, const struct buf *b)
{
    return tcd_decoder_feed(r->dec, b->p, b->len);
}

void it_second(struct buf *b, const char *s)
{
    size_t len = strlen(s);
    u8(b, TCW_SecondStringData8);
    u8(b, (uint8_t)len);
    put(b, s, len);
}

void it_frame_answer(struct buf *b, uint64_t address)
{
    char text[64];
    unsigned n = 1 + (unsigned)(address & 1);
    snprintf(text, sizeof text, "img%" PRIx64, address >> 12);
    it_single(b, text);
    u8(b, TCW_CallstackFrameSize);
    u64(b, address);
    u8(b, (uint8_t)n);
    for (unsigned i = 0; i < n; i++) {
        snprintf(text, sizeof text, "%s%" PRIx64, i + 1 < n ? "inl" : "f", address);
        it_single(b, text);
        it_second(b, "src.c");
        u8(b, TCW_CallstackFrame);
        u32(b, (uint32_t)(address & 0xffff) + i);
        u64(b, address & ~(uint64_t)0xfff);
        u32(b, 64);
    }
}

/* Answers every query received so far (from index *answered on) like a client would
 * (decode_stream.h). */
void answer_queries(struct recorder *r, size_t *answered)
{
    struct buf items = {0}, wire = {0};
    char text[64];
    for (; *answered < r->nq; ++*answered) {
        const uint8_t *q = r->queries[*answered];
        uint64_t id;
        memcpy(&id, q + 1, 8);
        switch (q[0]) {
        case TCW_QUERY_STRING:
            snprintf(text, sizeof text, "s%" PRIx64, id);
            it_string(&items, TCW_StringData, id, text);
            break;
        case TCW_QUERY_THREAD_STRING:
            snprintf(text, sizeof text, "t%" PRIu64, id);
            it_string(&items, TCW_ThreadName, id, text);
            break;
        case TCW_QUERY_PLOT_NAME:
            snprintf(text, sizeof text, "p%" PRIx64, id);
            it_string(&items, TCW_PlotName, id, text);
            break;
        case TCW_QUERY_FRAME_NAME:
            snprintf(text, sizeof text, "f%" PRIx64, id);
            it_string(&items, TCW_FrameName, id, text);
            break;
        case TCW_QUERY_FIBER_NAME:
            snprintf(text, sizeof text, "fiber%" PRIx64, id);
            it_string(&items, TCW_FiberName, id, text);
            break;
        case TCW_QUERY_SOURCE_LOCATION:
            u8(&items, TCW_SourceLocation);
            u64(&items, id + 1);
            u64(&items, id + 2);
            u64(&items, id + 3);
            u32(&items, 7);
            u8(&items, 0x33); /* b */
            u8(&items, 0x22); /* g */
            u8(&items, 0x11); /* r */
            break;
        case TCW_QUERY_EXTERNAL_NAME:
            snprintf(text, sizeof text, "et%" PRIu64, id);
            it_string(&items, TCW_ExternalThreadName, id, text);
            snprintf(text, sizeof text, "ep%" PRIu64, id);
            it_string(&items, TCW_ExternalName, id, text);
            break;
        case TCW_QUERY_CALLSTACK_FRAME:
            it_frame_answer(&items, id);
            break;
        case TCW_QUERY_SYMBOL:
            snprintf(text, sizeof text, "sym%" PRIx64 ".c", id);
            it_single(&items, text);
            u8(&items, TCW_SymbolInformation);
            u32(&items, 5);
            u64(&items, id);
            break;
        default:
            tt_check(0, "unexpected query type %u", q[0]);
            break;
        }
    }
    if (items.len) {
        frame(&wire, &items);
        feed(r, &wire);
    }
    free(items.p);
    free(wire.p);
}

/* Feeds welcome + items (as one frame) + Terminate, then answers queries until done. */
enum tcd_state run_stream(struct recorder *r, const struct buf *items, const struct tcd_limits *limits)
{
    struct buf wire = {0}, term = {0};
    rec_init(r, limits);
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    frame(&wire, items);
    u8(&term, TCW_Terminate);
    frame(&wire, &term);
    feed(r, &wire);
    size_t answered = 0;
    for (int round = 0; round < 8 && tcd_decoder_state(r->dec) == TCD_STATE_RUNNING && answered < r->nq; round++)
        answer_queries(r, &answered);
    free(wire.p);
    free(term.p);
    return tcd_decoder_state(r->dec);
}

/* A stream that must fail; the error must mention `needle`. */
void expect_failure(const char *what, const struct buf *wire, const char *needle)
{
    struct recorder r;
    rec_init(&r, NULL);
    enum tcd_state st = feed(&r, wire);
    if (st != TCD_STATE_FAILED)
        st = tcd_decoder_close(r.dec);
    const char *err = tcd_decoder_error(r.dec);
    tt_check(st == TCD_STATE_FAILED && strstr(err, needle) != NULL, "%s -> FAILED \"%s\"", what, err);
    rec_free(&r);
}

void expect_items_failure(const char *what, const struct buf *items, const char *needle)
{
    struct buf wire = {0};
    welcome(&wire, 1.0, INIT_BEGIN, 0);
    frame(&wire, items);
    expect_failure(what, &wire, needle);
    free(wire.p);
}

/* decode_stream.h - hand-built protocol-82 streams for the decoder tests: a byte buffer,
 * item writers (docs/protocol.md §7), the handshake and LZ4 frames, and a decoder that
 * records the events and queries it produces and answers queries like a client. */
#ifndef TRACYC_TESTS_DECODE_STREAM_H
#define TRACYC_TESTS_DECODE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"
#include "wire/protocol.h"

#define INIT_BEGIN 1000000000ll

/* ---- byte buffers ---------------------------------------------------------------------- */

struct buf {
    uint8_t *p;
    size_t len, cap;
};

void put(struct buf *b, const void *data, size_t len);
void u8(struct buf *b, uint8_t v);
void u16(struct buf *b, uint16_t v);
void u32(struct buf *b, uint32_t v);
void u64(struct buf *b, uint64_t v);
void f32(struct buf *b, float v);
void f64(struct buf *b, double v);
void hex(struct buf *b, const char *s); /* "4B 92 ..." */
void clear(struct buf *b);

/* ---- items -------------------------------------------------------------------------------- */

void it_thread(struct buf *b, uint32_t tid);
void it_single(struct buf *b, const char *s);
void it_second(struct buf *b, const char *s);
void it_transfer(struct buf *b, uint8_t type, uint64_t id, const void *s, size_t len);
void it_string(struct buf *b, uint8_t type, uint64_t id, const char *s);
/* A compact time encoding (docs/protocol.md §8.3): the 64, 32 or 16-bit form of d. */
void it_delta(struct buf *b, uint8_t t64, uint8_t t32, uint8_t t16, int64_t d);
void it_zone_begin(struct buf *b, int64_t d, uint64_t srcloc);
void it_zone_end(struct buf *b, int64_t d);
void it_payload(struct buf *b, uint32_t color, uint32_t line, const char *fn, const char *file, const char *name);
/* The answer to a CallstackFrame query for address, as answer_queries gives it: image
 * "img<address >> 12 in hex>", then 1 frame (2 for an odd address: "inl<addr>" inlined in
 * "f<addr>"), file "src.c", line (address & 0xffff) + i, symbol address & ~0xfff. */
void it_frame_answer(struct buf *b, uint64_t address);

/* ---- handshake and frames ------------------------------------------------------------------ */

/* Status byte and welcome (program "example", pid 1234, initEnd = init_begin + 100000). */
void welcome(struct buf *b, double timer_mul, int64_t init_begin, uint8_t flags);
/* Appends items as one LZ4 frame (independent block). */
void frame(struct buf *wire, const struct buf *items);

/* ---- a decoder that records what it emits ---------------------------------------------------- */

struct rec_event {
    struct tcd_event ev;
    char text[128];
};

struct recorder {
    struct rec_event *events;
    size_t count, cap;
    uint8_t (*queries)[13];
    size_t nq, qcap;
    struct tcd_decoder *dec;
};

void on_event(void *user, const struct tcd_event *ev);
void on_query(void *user, const uint8_t packet[13]);
void rec_init(struct recorder *r, const struct tcd_limits *limits);
void rec_free(struct recorder *r);
const struct rec_event *find_event(const struct recorder *r, enum tcd_event_kind kind, size_t nth);
size_t count_events(const struct recorder *r, enum tcd_event_kind kind);
enum tcd_state feed(struct recorder *r, const struct buf *b);

/* Answers every query received so far (from index *answered on) like a client would:
 * strings "s<id>", threads "t<id>", plots "p<id>", frames "f<id>", fibers "fiber<id>",
 * source locations {name id+1, function id+2, file id+3, line 7}, external threads
 * "et<id>" of process "ep<id>", callstack frames as it_frame_answer, symbols "sym<id>.c"
 * line 5. */
void answer_queries(struct recorder *r, size_t *answered);
/* Feeds welcome + items (as one frame) + Terminate, then answers queries until done. */
enum tcd_state run_stream(struct recorder *r, const struct buf *items, const struct tcd_limits *limits);
/* A stream that must fail; the error must mention `needle`. */
void expect_failure(const char *what, const struct buf *wire, const char *needle);
/* The same for items in one frame after a welcome. */
void expect_items_failure(const char *what, const struct buf *items, const char *needle);

#endif

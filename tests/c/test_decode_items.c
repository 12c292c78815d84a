/* test_decode_items.c - frames handed over uncompressed (the in-process capture:
 * tcw_enc_set_items_writer on the client's encoder, tcd_decoder_feed_items on the decoder)
 * decode to exactly the events of the same frames LZ4-compressed on the wire: zones on two
 * threads and messages whose text makes items straddle many frames. Items before the
 * handshake, empty or oversized frames fail the capture with a message. */
#include "decode_stream.h"
#include "test_util.h"
#include "wire/encode.h"

#include <stdlib.h>
#include <string.h>

static struct buf wire;       /* the LZ4-framed stream */
static struct buf frames[64]; /* the same frames, uncompressed */
static size_t nframes;

static int write_wire(void *user, const void *data, size_t len)
{
    (void)user;
    put(&wire, data, len);
    return 0;
}

static int write_items(void *user, const void *items, size_t len)
{
    (void)user;
    if (nframes == sizeof frames / sizeof *frames)
        return -1;
    put(&frames[nframes++], items, len);
    return 0;
}

/* The same items into the encoder e. */
static void encode(struct tcw_encoder *e)
{
    static char text[7000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)('a' + i % 26);
    int64_t t = INIT_BEGIN + 1000;
    for (int i = 0; i < 400; i++) {
        tcw_enc_thread(e, 100 + (uint32_t)(i % 2));
        tcw_enc_zone_begin(e, t += 10, 0x5555000000 + (uint64_t)(i % 7));
        tcw_enc_message(e, t += 3, text, 1000 + (size_t)(i * 37) % 6000, 0, 0);
        tcw_enc_zone_end(e, t += 20);
    }
    tcw_enc_item(e, 1)[0] = TCW_Terminate;
    CHECK(tcw_enc_flush(e) == 0);
}

int main(void)
{
    struct tcw_encoder lz4, raw;
    CHECK(tcw_enc_init(&lz4, write_wire, NULL) == 0);
    CHECK(tcw_enc_init(&raw, write_wire, NULL) == 0);
    tcw_enc_set_items_writer(&raw, write_items);
    struct buf hs = {0};
    welcome(&hs, 1.0, INIT_BEGIN, 0);
    put(&wire, hs.p, hs.len);
    encode(&lz4);
    size_t wire_len = wire.len;
    encode(&raw);
    tt_check(wire.len == wire_len, "with the items writer nothing goes to the framed writer");
    tt_check(nframes > 3, "the items span several frames (%zu)", nframes);

    struct recorder a, b;
    rec_init(&a, NULL);
    rec_init(&b, NULL);
    feed(&a, &wire);
    enum tcd_state st = feed(&b, &hs);
    for (size_t i = 0; i < nframes && st == TCD_STATE_RUNNING; i++)
        st = tcd_decoder_feed_items(b.dec, frames[i].p, frames[i].len);
    tt_check(tcd_decoder_state(a.dec) != TCD_STATE_FAILED && st != TCD_STATE_FAILED, "both decode: %s / %s",
             tcd_decoder_error(a.dec), tcd_decoder_error(b.dec));
    int same = a.count == b.count && a.count >= 1200; /* 400 x (zone begin, message, zone end) */
    for (size_t i = 0; same && i < a.count; i++)
        same = a.events[i].ev.kind == b.events[i].ev.kind && a.events[i].ev.time == b.events[i].ev.time &&
               a.events[i].ev.thread == b.events[i].ev.thread && a.events[i].ev.text_len == b.events[i].ev.text_len &&
               strcmp(a.events[i].text, b.events[i].text) == 0;
    tt_check(same, "the same events, in the same order (%zu and %zu)", a.count, b.count);
    tt_check(a.nq == b.nq && (a.nq == 0 || memcmp(a.queries, b.queries, a.nq * 13) == 0),
             "the same queries (%zu and %zu)", a.nq, b.nq);
    rec_free(&a);
    rec_free(&b);

    struct recorder c;
    rec_init(&c, NULL);
    st = tcd_decoder_feed_items(c.dec, frames[0].p, frames[0].len);
    tt_check(st == TCD_STATE_FAILED && strstr(tcd_decoder_error(c.dec), "before the handshake"),
             "items before the handshake: %s", tcd_decoder_error(c.dec));
    rec_free(&c);
    rec_init(&c, NULL);
    feed(&c, &hs);
    st = tcd_decoder_feed_items(c.dec, frames[0].p, 0);
    tt_check(st == TCD_STATE_FAILED && strstr(tcd_decoder_error(c.dec), "must be 1..262144"), "an empty frame: %s",
             tcd_decoder_error(c.dec));
    rec_free(&c);
    rec_init(&c, NULL);
    feed(&c, &hs);
    static uint8_t big[TCW_TARGET_FRAME_SIZE + 1];
    st = tcd_decoder_feed_items(c.dec, big, sizeof big);
    tt_check(st == TCD_STATE_FAILED && strstr(tcd_decoder_error(c.dec), "must be 1..262144"), "an oversized frame: %s",
             tcd_decoder_error(c.dec));
    rec_free(&c);

    for (size_t i = 0; i < nframes; i++)
        free(frames[i].p);
    free(wire.p);
    free(hs.p);
    tcw_enc_free(&lz4);
    tcw_enc_free(&raw);
    return tt_finish("test_decode_items");
}

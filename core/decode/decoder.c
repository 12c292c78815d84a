/* decoder.c - the decoder's public face: handshake, LZ4 framing, completion.
 *
 * Bytes arrive in any chunking. A frame that is whole inside the caller's chunk is
 * decompressed straight from it; otherwise it is gathered in inbuf (at most 4 + 263188
 * bytes). Frames are decompressed into one ring exactly as the server does (docs/protocol.md §5.3),
 * so any stream tracy-capture accepts decodes here too.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "decode/decode_callstacks.h"
#include "decode/decode_fail.h"
#include "decode/decode_internal.h"
#include "decode/decode_items.h"
#include "decode/decode_tables.h"

void tcd_handshake_request(uint8_t out[12])
{
    const uint32_t version = TCW_PROTOCOL_VERSION;
    memcpy(out, TCW_SHIBBOLETH, TCW_SHIBBOLETH_SIZE);
    memcpy(out + TCW_SHIBBOLETH_SIZE, &version, 4);
}

void tcd_decoder_hello(const struct tcd_decoder *dec, uint8_t out[12])
{
    tcd_handshake_request(out);
    memcpy(out + TCW_SHIBBOLETH_SIZE, &tcw_versions[dec->vi].protocol, 4);
}

/* The tables of dec->vi. */
static void version_tables(struct tcd_decoder *dec)
{
    memset(dec->logical, TCD_UNKNOWN_TYPE, sizeof dec->logical);
    memset(dec->wire_size, 0, sizeof dec->wire_size);
    for (unsigned t = 0; t < TCW_NUM_TYPES; t++) {
        uint8_t op = tcw_opcodes[t][dec->vi];
        if (op == TCW_ABSENT)
            continue;
        dec->logical[op] = (uint8_t)t;
        dec->wire_size[op] = (uint8_t)tcw_item_size_in((uint8_t)t, dec->vi);
    }
}

int tcd_decoder_set_version(struct tcd_decoder *dec, uint32_t protocol)
{
    int vi = tcw_version_index(protocol);
    bool fresh = dec->state == TCD_STATE_HANDSHAKE && dec->hs_len == 0 && dec->stats.bytes_in == 0;
    if (vi < 0 || !(fresh || dec->refused))
        return -1;
    dec->vi = vi;
    version_tables(dec);
    /* After a refusal nothing was decoded: the handshake simply starts over. */
    dec->state = TCD_STATE_HANDSHAKE;
    dec->refused = 0;
    dec->hs_len = 0;
    dec->error[0] = 0;
    dec->stats.bytes_in = 0;
    return 0;
}

uint32_t tcd_decoder_version(const struct tcd_decoder *dec)
{
    return tcw_versions[dec->vi].protocol;
}

bool tcd_decoder_refused(const struct tcd_decoder *dec)
{
    return dec->refused;
}

bool tcd_decoder_awaiting(const struct tcd_decoder *dec)
{
    return dec->state == TCD_STATE_RUNNING && !tcd_nothing_pending(dec);
}

struct tcd_decoder *tcd_decoder_new(const struct tcd_callbacks *cb, void *user, const struct tcd_limits *limits)
{
    struct tcd_decoder *dec = calloc(1, sizeof *dec);
    if (!dec)
        return NULL;
    if (cb)
        dec->cb = *cb;
    dec->user = user;
    dec->query_user = user;
    dec->max_queries = limits && limits->max_queries ? limits->max_queries : TCD_DEFAULT_MAX_QUERIES;
    /* Seeds the identifier hash so crafted ids cannot aim at one bucket. */
    dec->hash_seed = (uint64_t)(uintptr_t)dec * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL) ^ (uint64_t)clock();
    dec->state = TCD_STATE_HANDSHAKE;
    version_tables(dec);
    int tables = tcd_tables_init(dec, limits && limits->max_memory ? limits->max_memory : TCD_DEFAULT_MAX_MEMORY);
    dec->ring = tcu_alloc(&dec->budget, TCD_RING_SIZE);
    dec->inbuf = tcu_alloc(&dec->budget, TCD_FRAME_HEADER + TCW_LZ4_SIZE);
    if (tables != 0 || !dec->ring || !dec->inbuf) {
        tcd_decoder_free(dec);
        return NULL;
    }
    return dec;
}

void tcd_decoder_free(struct tcd_decoder *dec)
{
    if (!dec)
        return;
    tcd_callstack_tables_free(dec);
    tcd_tables_free(dec);
    free(dec->ring);
    free(dec->inbuf);
    free(dec);
}

/* ---- handshake ------------------------------------------------------------------------ */

static size_t handshake_size(const struct tcd_decoder *dec)
{
    const struct tcw_version *v = &tcw_versions[dec->vi];
    size_t flags_at = TCW_WELCOME_FLAGS + (v->welcome_delay ? 8 : 0);
    if (dec->hs_len < 1u + v->welcome_size)
        return 1u + v->welcome_size;
    bool on_demand = dec->hs_buf[1 + flags_at] & TCW_FLAG_ON_DEMAND;
    return 1u + v->welcome_size + (on_demand ? TCW_ONDEMAND_SIZE : 0);
}

static void parse_welcome(struct tcd_decoder *dec)
{
    uint8_t w[TCW_WELCOME_SIZE]; /* in protocol 82's layout */
    tcw_welcome_from_version(w, dec->hs_buf + 1, dec->vi);
    struct tcd_welcome *out = &dec->welcome;
    memcpy(&out->timer_mul, w + TCW_WELCOME_TIMER_MUL, 8);
    memcpy(&out->init_begin, w + TCW_WELCOME_INIT_BEGIN, 8);
    memcpy(&out->init_end, w + TCW_WELCOME_INIT_END, 8);
    memcpy(&out->resolution, w + TCW_WELCOME_RESOLUTION, 8);
    memcpy(&out->epoch, w + TCW_WELCOME_EPOCH, 8);
    memcpy(&out->pid, w + TCW_WELCOME_PID, 8);
    out->flags = w[TCW_WELCOME_FLAGS];
    out->cpu_arch = w[TCW_WELCOME_CPU_ARCH];
    if (!memchr(w + TCW_WELCOME_PROGRAM_NAME, 0, TCW_PROGRAM_NAME_SIZE) ||
        !memchr(w + TCW_WELCOME_HOST_INFO, 0, TCW_HOST_INFO_SIZE)) {
        tcd_fail(dec, "welcome message: programName or hostInfo is not NUL-terminated");
        return;
    }
    if (!isfinite(out->timer_mul) || out->timer_mul <= 0) {
        tcd_fail(dec, "welcome message: timerMul %g is not a positive number", out->timer_mul);
        return;
    }
    memcpy(out->program_name, w + TCW_WELCOME_PROGRAM_NAME, TCW_PROGRAM_NAME_SIZE);
    memcpy(out->host_info, w + TCW_WELCOME_HOST_INFO, TCW_HOST_INFO_SIZE);
    /* A tracyc client tells of threads renamed after their name was asked (§27), and of
     * its clocks (§28). */
    if (strstr(out->host_info, TCW_HOST_INFO_TRACYC)) {
        dec->renames = 1;
        dec->clock = TCD_CLOCK_ASKED;
        tcd_query(dec, TCW_QUERY_TRACYC_EXTENSIONS, TCW_EXTENSION_THREAD_RENAMES | TCW_EXTENSION_CLOCK);
        /* At once, not after the first frame: a client that records nothing for a while
         * (a program waiting for the children it forked) would wait that long for its
         * first clock reading, and an in-process capture for its reference to take
         * children by. */
        tcd_flush_queries(dec);
    }
    if (out->flags & TCW_FLAG_ON_DEMAND) {
        const uint8_t *od = dec->hs_buf + 1 + tcw_versions[dec->vi].welcome_size;
        memcpy(&out->ondemand_frames, od, 8);
        memcpy(&out->ondemand_time, od + 8, 8);
    }
    LZ4_setStreamDecode(&dec->lz4, NULL, 0);
    dec->state = TCD_STATE_RUNNING;
}

static size_t feed_handshake(struct tcd_decoder *dec, const uint8_t *p, size_t len)
{
    if (dec->hs_len == 0) {
        switch (p[0]) {
        case TCW_HANDSHAKE_WELCOME:
            break;
        case TCW_HANDSHAKE_PROTOCOL_MISMATCH:
            tcd_fail(dec, "client speaks another protocol version than %u (Tracy %s)", tcw_versions[dec->vi].protocol,
                     tcw_versions[dec->vi].tracy);
            dec->refused = 1;
            return 1;
        case TCW_HANDSHAKE_NOT_AVAILABLE:
            tcd_fail(dec, "client is not available (it already served a capture)");
            return 1;
        default:
            tcd_fail(dec, "invalid handshake status %u", p[0]);
            return 1;
        }
    }
    size_t used = 0;
    while (used < len && dec->state == TCD_STATE_HANDSHAKE) {
        size_t want = handshake_size(dec) - dec->hs_len;
        size_t n = len - used < want ? len - used : want;
        memcpy(dec->hs_buf + dec->hs_len, p + used, n);
        dec->hs_len += n;
        used += n;
        if (dec->hs_len == handshake_size(dec))
            parse_welcome(dec);
    }
    return used;
}

/* ---- frames ---------------------------------------------------------------------------- */

/* The n bytes of items at the ring's current offset: one frame. */
static void frame_items(struct tcd_decoder *dec, int n)
{
    uint8_t *out = dec->ring + dec->ring_off;
    dec->stats.bytes_decoded += (uint64_t)n;
    tcd_parse_items(dec, out, (size_t)n);
    if (dec->state == TCD_STATE_FAILED)
        return;
    /* Pending strings may be consumed by the next frame: take them out of the ring. */
    if (tcd_pending_keep(dec, &dec->single) != 0 || tcd_pending_keep(dec, &dec->second) != 0 ||
        tcd_pending_keep(dec, &dec->frame_image) != 0)
        return;
    dec->ring_off += (size_t)n;
    if (dec->ring_off > 2 * (size_t)TCW_TARGET_FRAME_SIZE)
        dec->ring_off = 0;
    dec->frame_index++;
    tcd_flush_queries(dec);
    if (tcd_done(dec))
        dec->state = TCD_STATE_DONE;
}

static void process_frame(struct tcd_decoder *dec, const uint8_t *src, uint32_t csize)
{
    uint8_t *out = dec->ring + dec->ring_off;
    int n = LZ4_decompress_safe_continue(&dec->lz4, (const char *)src, (char *)out, (int)csize, TCW_TARGET_FRAME_SIZE);
    if (n <= 0) {
        tcd_fail(dec, "LZ4 frame %" PRIu64 " (%" PRIu32 " bytes) does not decompress to 1..%d bytes", dec->frame_index,
                 csize, TCW_TARGET_FRAME_SIZE);
        return;
    }
    frame_items(dec, n);
}

static int check_frame_size(struct tcd_decoder *dec, uint32_t csize)
{
    if (csize >= 1 && csize <= TCW_LZ4_SIZE)
        return 0;
    tcd_fail(dec, "LZ4 frame %" PRIu64 " has size %" PRIu32 " (must be 1..%d)", dec->frame_index, csize, TCW_LZ4_SIZE);
    return -1;
}

static size_t feed_frames(struct tcd_decoder *dec, const uint8_t *p, size_t len)
{
    uint32_t csize;
    if (dec->inbuf_len == 0 && len >= TCD_FRAME_HEADER) {
        memcpy(&csize, p, 4);
        if (check_frame_size(dec, csize) != 0)
            return len;
        if (len - TCD_FRAME_HEADER >= csize) { /* the whole frame is here */
            process_frame(dec, p + TCD_FRAME_HEADER, csize);
            return TCD_FRAME_HEADER + csize;
        }
    }
    size_t want = dec->inbuf_len < TCD_FRAME_HEADER ? TCD_FRAME_HEADER - dec->inbuf_len
                                                    : TCD_FRAME_HEADER + dec->frame_csize - dec->inbuf_len;
    size_t n = len < want ? len : want;
    memcpy(dec->inbuf + dec->inbuf_len, p, n);
    dec->inbuf_len += n;
    if (dec->inbuf_len == TCD_FRAME_HEADER) {
        memcpy(&dec->frame_csize, dec->inbuf, 4);
        if (check_frame_size(dec, dec->frame_csize) != 0)
            return len;
    } else if (dec->inbuf_len == TCD_FRAME_HEADER + (size_t)dec->frame_csize) {
        dec->inbuf_len = 0;
        process_frame(dec, dec->inbuf + TCD_FRAME_HEADER, dec->frame_csize);
    }
    return n;
}

enum tcd_state tcd_decoder_feed(struct tcd_decoder *dec, const void *data, size_t len)
{
    const uint8_t *p = data;
    if (dec->state == TCD_STATE_DONE || dec->state == TCD_STATE_FAILED)
        return dec->state;
    dec->stats.bytes_in += len;
    while (len > 0 && (dec->state == TCD_STATE_HANDSHAKE || dec->state == TCD_STATE_RUNNING)) {
        size_t used = dec->state == TCD_STATE_HANDSHAKE ? feed_handshake(dec, p, len) : feed_frames(dec, p, len);
        p += used;
        len -= used;
    }
    return dec->state;
}

enum tcd_state tcd_decoder_feed_items(struct tcd_decoder *dec, const void *items, size_t len)
{
    if (dec->state == TCD_STATE_HANDSHAKE)
        tcd_fail(dec, "frame items before the handshake");
    if (dec->state != TCD_STATE_RUNNING)
        return dec->state;
    if (len < 1 || len > TCW_TARGET_FRAME_SIZE || dec->inbuf_len > 0) {
        tcd_fail(dec, "frame %" PRIu64 " of %zu bytes of items (must be 1..%d, between frames)", dec->frame_index, len,
                 TCW_TARGET_FRAME_SIZE);
        return dec->state;
    }
    dec->stats.bytes_in += len;
    /* Into the ring, as a decompressed frame would be: items may point into it until the
     * frame's end, and pending strings are taken out of it then. */
    memcpy(dec->ring + dec->ring_off, items, len);
    frame_items(dec, (int)len);
    return dec->state;
}

enum tcd_state tcd_decoder_close(struct tcd_decoder *dec)
{
    if (dec->state == TCD_STATE_HANDSHAKE)
        tcd_fail(dec, "connection closed during the handshake (%zu bytes received)", dec->hs_len);
    else if (dec->state == TCD_STATE_RUNNING && dec->inbuf_len > 0)
        tcd_fail(dec, "connection closed in the middle of LZ4 frame %" PRIu64 " (%zu bytes of it received)",
                 dec->frame_index, dec->inbuf_len);
    else if (dec->state == TCD_STATE_RUNNING && !dec->terminated)
        tcd_fail(dec, "connection closed before the client sent Terminate");
    else if (dec->state == TCD_STATE_RUNNING)
        dec->state = TCD_STATE_DONE; /* unanswered queries leave names unresolved */
    return dec->state;
}

void tcd_decoder_set_query_handler(struct tcd_decoder *dec, void (*fn)(void *user, const uint8_t packet[13]),
                                   void *user)
{
    dec->cb.on_query = fn;
    dec->query_user = user;
}

enum tcd_state tcd_decoder_state(const struct tcd_decoder *dec)
{
    return dec->state;
}

const char *tcd_decoder_error(const struct tcd_decoder *dec)
{
    return dec->error;
}

const struct tcd_welcome *tcd_decoder_welcome(const struct tcd_decoder *dec)
{
    return &dec->welcome;
}

void tcd_decoder_stats(const struct tcd_decoder *dec, struct tcd_stats *out)
{
    *out = dec->stats;
    out->memory = dec->budget.used;
}

/* capture.c - decode + model-build speed of the capture on recorded streams, against
 * plain LZ4 decompression of the same bytes, in one run.
 *
 * Zones: what a tracyc client sends for 4 threads x 2.5 M zone pairs with some messages
 * and plots, recorded once with the client's own encoder.
 * Sampling: what a sampling client sends (docs/protocol.md §25): 4 threads x 250,000
 * samples, each a CallstackPayload of 12..27 return addresses (2,000 distinct stacks over
 * 6,000 distinct addresses, so most payloads repeat one seen before) and a CallstackSample
 * on the context-switch chain, a ContextSwitch every 8 samples; items written by hand.
 * Each stream is decoded repeatedly into a fresh decoder and trace model; queries are
 * sent nowhere and stay unanswered, which the decoder does not wait for. */
#include "trace/model.h"
#include "decode/decode.h"
#include "wire/encode.h"
#include "wire/protocol.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 4
#define PAIRS_PER_THREAD 2500000
#define BATCH 1000
#define TCW_CONTEXT_SWITCH_ITEM 23 /* bytes of a ContextSwitch item */

struct buffer {
    uint8_t *data;
    size_t len, cap;
};

static int buffer_write(void *user, const void *data, size_t len)
{
    struct buffer *b = user;
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->data = realloc(b->data, b->cap);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static const char *const zone_names[] = {"update", "render", "physics", "audio"};

static void record(struct buffer *out, size_t *frames_start)
{
    uint8_t hello[1 + TCW_WELCOME_SIZE] = {TCW_HANDSHAKE_WELCOME};
    double mul = 1.0;
    memcpy(hello + 1 + TCW_WELCOME_TIMER_MUL, &mul, 8);
    strcpy((char *)hello + 1 + TCW_WELCOME_PROGRAM_NAME, "bench");
    buffer_write(out, hello, sizeof hello);
    *frames_start = out->len;
    struct tcw_encoder e;
    tcw_enc_init(&e, buffer_write, out);
    int64_t t[THREADS] = {0};
    for (int batch = 0; batch < PAIRS_PER_THREAD / BATCH; batch++) {
        for (int th = 0; th < THREADS; th++) {
            tcw_enc_thread(&e, 100 + th);
            for (int i = 0; i < BATCH; i++) {
                tcw_enc_zone_begin(&e, t[th] += 40, (uint64_t)(uintptr_t)zone_names[th]);
                tcw_enc_zone_end(&e, t[th] += 25 + (i & 7));
            }
            tcw_enc_plot(&e, TCW_PlotDataDouble, 0x5000, t[th], 0x3ff0000000000000ULL);
            tcw_enc_message(&e, t[th], "batch done", 10, 0, TCW_MESSAGE_META(2));
        }
    }
    tcw_enc_flush(&e);
    tcw_enc_free(&e);
}

/* ---- the sampling stream ------------------------------------------------------------------ */

#define SAMPLES_PER_THREAD 250000
#define DISTINCT_STACKS 2000

struct items {
    uint8_t data[TCW_TARGET_FRAME_SIZE];
    size_t len;
};

static void put(struct items *it, const void *p, size_t n)
{
    memcpy(it->data + it->len, p, n);
    it->len += n;
}

/* Compresses the items as one frame (an independent block, which the decoder's
 * streaming decompression reads like any other). */
static void flush_frame(struct buffer *out, struct items *it)
{
    static char lz[TCW_LZ4_SIZE];
    if (!it->len)
        return;
    int n = LZ4_compress_default((const char *)it->data, lz, (int)it->len, (int)sizeof lz);
    uint32_t csize = (uint32_t)n;
    buffer_write(out, &csize, 4);
    buffer_write(out, lz, (size_t)n);
    it->len = 0;
}

static uint64_t rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void record_sampling(struct buffer *out, size_t *frames_start, uint64_t *samples)
{
    uint8_t hello[1 + TCW_WELCOME_SIZE] = {TCW_HANDSHAKE_WELCOME};
    double mul = 1.0;
    memcpy(hello + 1 + TCW_WELCOME_TIMER_MUL, &mul, 8);
    strcpy((char *)hello + 1 + TCW_WELCOME_PROGRAM_NAME, "bench");
    buffer_write(out, hello, sizeof hello);
    *frames_start = out->len;
    /* The stacks: a shared root part and a varying leaf part, as real programs have. */
    static uint64_t stacks[DISTINCT_STACKS][28];
    static uint8_t depth[DISTINCT_STACKS];
    uint64_t seed = 1;
    for (int s = 0; s < DISTINCT_STACKS; s++) {
        depth[s] = (uint8_t)(12 + rng(&seed) % 16);
        for (int f = 0; f < depth[s]; f++)
            stacks[s][f] = 0x400000 + (f < 6 ? rng(&seed) % 6000 : (uint64_t)(depth[s] - f) * 16) * 16;
    }
    static struct items it;
    uint64_t t = 1000;
    for (int i = 0; i < SAMPLES_PER_THREAD; i++) {
        for (uint32_t th = 0; th < THREADS; th++) {
            if (it.len > sizeof it.data - 512)
                flush_frame(out, &it);
            int s = (int)(rng(&seed) % DISTINCT_STACKS);
            uint16_t len = (uint16_t)(depth[s] * 8);
            uint8_t type = TCW_CallstackPayload;
            uint64_t ptr = 0;
            put(&it, &type, 1);
            put(&it, &ptr, 8);
            put(&it, &len, 2);
            put(&it, stacks[s], len);
            uint8_t sample = TCW_CallstackSample16;
            uint32_t tid = 100 + th;
            uint16_t delta = (uint16_t)(t == 1000 ? 1000 : 25);
            put(&it, &sample, 1);
            put(&it, &tid, 4);
            put(&it, &delta, 2);
            t += delta;
            (*samples)++;
            if (i % 8 == 0) {
                uint8_t sw[TCW_CONTEXT_SWITCH_ITEM] = {TCW_ContextSwitch};
                uint64_t d = 5;
                uint32_t old_thread = tid, new_thread = 100 + (th + 1) % THREADS;
                memcpy(sw + 1, &d, 8);
                memcpy(sw + 9, &old_thread, 4);
                memcpy(sw + 13, &new_thread, 4);
                sw[17] = (uint8_t)th;
                put(&it, sw, sizeof sw);
                t += d;
            }
        }
    }
    uint8_t term = TCW_Terminate;
    put(&it, &term, 1);
    flush_frame(out, &it);
}

static void count_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, ev);
}

static void ignore_query(void *user, const uint8_t packet[13])
{
    (void)user;
    (void)packet;
}

struct figures {
    double lz4_s, decoder_s, decode_s;
    struct tcd_stats stats;
    size_t model_bytes, decompressed;
};

static void measure(const struct buffer *stream, size_t frames_start, int reps, struct figures *f)
{
    /* Baseline: LZ4 streaming decompression of the same frames, as the decoder does it. */
    char *ring = malloc(3 * TCW_TARGET_FRAME_SIZE + 1);
    LZ4_streamDecode_t *lz = LZ4_createStreamDecode();
    double t0 = now_s();
    size_t decompressed = 0;
    for (int r = 0; r < reps; r++) {
        LZ4_setStreamDecode(lz, NULL, 0);
        size_t off = 0;
        for (size_t p = frames_start; p + 4 <= stream->len;) {
            uint32_t csize;
            memcpy(&csize, stream->data + p, 4);
            int n = LZ4_decompress_safe_continue(lz, (const char *)stream->data + p + 4, ring + off, (int)csize,
                                                 TCW_TARGET_FRAME_SIZE);
            decompressed += (size_t)n;
            off += (size_t)n;
            if (off > 2 * TCW_TARGET_FRAME_SIZE)
                off = 0;
            p += 4 + csize;
        }
    }
    f->lz4_s = (now_s() - t0) / reps;
    f->decompressed = decompressed / (size_t)reps;
    LZ4_freeStreamDecode(lz);
    free(ring);

    /* Decoder alone. */
    t0 = now_s();
    for (int r = 0; r < reps; r++) {
        struct tcd_callbacks cb = {NULL, ignore_query};
        struct tcd_decoder *dec = tcd_decoder_new(&cb, NULL, NULL);
        tcd_decoder_feed(dec, stream->data, stream->len);
        tcd_decoder_free(dec);
    }
    f->decoder_s = (now_s() - t0) / reps;

    /* Decoder + trace model. */
    t0 = now_s();
    for (int r = 0; r < reps; r++) {
        struct tct_trace *trace = tct_trace_new();
        struct tcd_callbacks cb = {count_event, ignore_query};
        struct tcd_decoder *dec = tcd_decoder_new(&cb, trace, NULL);
        tcd_decoder_feed(dec, stream->data, stream->len);
        tcd_decoder_stats(dec, &f->stats);
        f->model_bytes = tct_trace_memory(trace);
        if (tcd_decoder_state(dec) == TCD_STATE_FAILED)
            fprintf(stderr, "decode failed: %s\n", tcd_decoder_error(dec));
        tcd_decoder_free(dec);
        tct_trace_free(trace);
    }
    f->decode_s = (now_s() - t0) / reps;
}

int main(void)
{
    const int reps = 3;
    struct buffer stream = {0};
    size_t frames_start;
    record(&stream, &frames_start);
    struct figures f;
    measure(&stream, frames_start, reps, &f);
    double events = (double)f.stats.events;
    printf("capture: %.1f MB stream (%.1f MB of items), %.0f events (%llu zones)\n", stream.len / 1e6,
           f.decompressed / 1e6, events, (unsigned long long)f.stats.zones);
    printf("  LZ4 decompression alone: %7.1f ms = %6.1f M events/s equivalent\n", f.lz4_s * 1e3,
           events / f.lz4_s / 1e6);
    printf("  decoder alone:           %7.1f ms = %6.1f M events/s\n", f.decoder_s * 1e3, events / f.decoder_s / 1e6);
    printf("  decode + model build:    %7.1f ms = %6.1f M events/s (%.2fx the LZ4 time), model %.0f MiB "
           "(%.1f bytes/zone)\n",
           f.decode_s * 1e3, events / f.decode_s / 1e6, f.decode_s / f.lz4_s, (double)f.model_bytes / 1048576.0,
           (double)f.model_bytes / (double)(f.stats.zones ? f.stats.zones : 1));
    free(stream.data);

    struct buffer sampling = {0};
    uint64_t samples = 0;
    record_sampling(&sampling, &frames_start, &samples);
    measure(&sampling, frames_start, reps, &f);
    events = (double)f.stats.events;
    printf("sampling: %.1f MB stream (%.1f MB of items), %llu samples, %.0f events\n", sampling.len / 1e6,
           f.decompressed / 1e6, (unsigned long long)f.stats.samples, events);
    printf("  LZ4 decompression alone: %7.1f ms = %6.1f M samples/s equivalent\n", f.lz4_s * 1e3,
           (double)samples / f.lz4_s / 1e6);
    printf("  decoder alone:           %7.1f ms = %6.1f M samples/s\n", f.decoder_s * 1e3,
           (double)samples / f.decoder_s / 1e6);
    printf("  decode + model build:    %7.1f ms = %6.1f M samples/s (%.2fx the LZ4 time), model %.0f MiB "
           "(%.1f bytes/sample), decoder tables %.1f MiB\n",
           f.decode_s * 1e3, (double)samples / f.decode_s / 1e6, f.decode_s / f.lz4_s,
           (double)f.model_bytes / 1048576.0, (double)f.model_bytes / (double)samples,
           (double)f.stats.memory / 1048576.0);
    free(sampling.data);
    return 0;
}

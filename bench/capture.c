/* capture.c - decode + model-build speed of the capture on a recorded stream, against
 * plain LZ4 decompression of the same bytes, in one run.
 *
 * The stream is what a tracyc client sends for 4 threads x 2.5 M zone pairs with some
 * messages and plots: recorded once with the client's own encoder, then decoded
 * repeatedly into a fresh decoder and trace model. */
#include "trace/model.h"
#include "wire/decode.h"
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
    struct tc_encoder e;
    tc_enc_init(&e, buffer_write, out);
    int64_t t[THREADS] = {0};
    for (int batch = 0; batch < PAIRS_PER_THREAD / BATCH; batch++) {
        for (int th = 0; th < THREADS; th++) {
            tc_enc_thread(&e, 100 + th);
            for (int i = 0; i < BATCH; i++) {
                tc_enc_zone_begin(&e, t[th] += 40, (uint64_t)(uintptr_t)zone_names[th]);
                tc_enc_zone_end(&e, t[th] += 25 + (i & 7));
            }
            tc_enc_plot(&e, TCW_PlotDataDouble, 0x5000, t[th], 0x3ff0000000000000ULL);
            tc_enc_message(&e, t[th], "batch done", 10, 0, TCW_MESSAGE_META(2));
        }
    }
    tc_enc_flush(&e);
    tc_enc_free(&e);
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

int main(void)
{
    struct buffer stream = {0};
    size_t frames_start;
    record(&stream, &frames_start);
    const int reps = 3;

    /* Baseline: LZ4 streaming decompression of the same frames, as the decoder does it. */
    char *ring = malloc(3 * TCW_TARGET_FRAME_SIZE + 1);
    LZ4_streamDecode_t *lz = LZ4_createStreamDecode();
    double t0 = now_s();
    size_t decompressed = 0;
    for (int r = 0; r < reps; r++) {
        LZ4_setStreamDecode(lz, NULL, 0);
        size_t off = 0;
        for (size_t p = frames_start; p + 4 <= stream.len;) {
            uint32_t csize;
            memcpy(&csize, stream.data + p, 4);
            int n = LZ4_decompress_safe_continue(lz, (const char *)stream.data + p + 4, ring + off, (int)csize,
                                                 TCW_TARGET_FRAME_SIZE);
            decompressed += (size_t)n;
            off += (size_t)n;
            if (off > 2 * TCW_TARGET_FRAME_SIZE)
                off = 0;
            p += 4 + csize;
        }
    }
    double lz4_s = (now_s() - t0) / reps;

    /* Decoder alone. */
    t0 = now_s();
    for (int r = 0; r < reps; r++) {
        struct tcd_callbacks cb = {NULL, ignore_query};
        struct tcd_decoder *dec = tcd_decoder_new(&cb, NULL, NULL);
        tcd_decoder_feed(dec, stream.data, stream.len);
        tcd_decoder_free(dec);
    }
    double decoder_s = (now_s() - t0) / reps;

    /* Decoder + trace model. */
    struct tcd_stats stats = {0};
    size_t model_bytes = 0;
    t0 = now_s();
    for (int r = 0; r < reps; r++) {
        struct tct_trace *trace = tct_trace_new();
        struct tcd_callbacks cb = {count_event, ignore_query};
        struct tcd_decoder *dec = tcd_decoder_new(&cb, trace, NULL);
        tcd_decoder_feed(dec, stream.data, stream.len);
        tcd_decoder_stats(dec, &stats);
        model_bytes = tct_trace_memory(trace);
        if (tcd_decoder_state(dec) == TCD_STATE_FAILED)
            fprintf(stderr, "decode failed: %s\n", tcd_decoder_error(dec));
        tcd_decoder_free(dec);
        tct_trace_free(trace);
    }
    double decode_s = (now_s() - t0) / reps;
    double events = (double)stats.events;
    printf("capture: %.1f MB stream (%.1f MB of items), %.0f events (%llu zones)\n", stream.len / 1e6,
           decompressed / reps / 1e6, events, (unsigned long long)stats.zones);
    printf("  LZ4 decompression alone: %7.1f ms = %6.1f M events/s equivalent\n", lz4_s * 1e3, events / lz4_s / 1e6);
    printf("  decoder alone:           %7.1f ms = %6.1f M events/s\n", decoder_s * 1e3, events / decoder_s / 1e6);
    printf("  decode + model build:    %7.1f ms = %6.1f M events/s (%.2fx the LZ4 time), model %.0f MiB "
           "(%.1f bytes/zone)\n",
           decode_s * 1e3, events / decode_s / 1e6, decode_s / lz4_s, model_bytes / 1048576.0,
           (double)model_bytes / (double)(stats.zones ? stats.zones : 1));
    LZ4_freeStreamDecode(lz);
    free(ring);
    free(stream.data);
    return 0;
}

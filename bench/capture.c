/* capture.c - the capture's speed on recorded streams, against plain LZ4 decompression of
 * the same bytes, in one run: the decoder alone; the decoder feeding a trace with the
 * aggregators of the summary and the CSV (what a capture writing those keeps while it
 * runs); the same keeping the events too, as the Chrome JSON and the Perfetto trace need;
 * and, once that capture has ended, writing the JSON and the .pftrace (each a replay of the
 * kept events, into a stream that counts the bytes and keeps none).
 *
 * Zones: what a tracyc client sends for 4 threads x 2.5 M zone pairs with some messages
 * and plots, recorded once with the client's own encoder.
 * Sampling: what a sampling client sends (docs/protocol.md §25): 4 threads x 250,000
 * samples, each a CallstackPayload of 12..27 return addresses (2,000 distinct stacks over
 * 6,000 distinct addresses, so most payloads repeat one seen before) and a CallstackSample
 * on the context-switch chain, a ContextSwitch every 8 samples; items written by hand.
 * Each stream is decoded repeatedly into a fresh decoder and trace; queries are sent
 * nowhere and stay unanswered, which the decoder does not wait for. */
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "decode/decode.h"
#include "wire/encode.h"
#include "wire/protocol.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define THREADS 4
static long pairs_per_thread = 2500000; /* argv[1] may say fewer, e.g. to run under callgrind */
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
    for (int batch = 0; batch < pairs_per_thread / BATCH; batch++) {
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
    tct_trace_on_event(user, 0, ev);
}

static void ignore_query(void *user, const uint8_t packet[13])
{
    (void)user;
    (void)packet;
}

enum { JSON, PFTRACE, WRITERS };

struct figures {
    double lz4_s, decoder_s, aggregate_s, keep_s, write_s[WRITERS];
    struct tcd_stats stats;
    size_t aggregate_bytes, keep_bytes, decompressed;
    uint64_t written[WRITERS]; /* bytes of each file */
};

static ssize_t count_bytes(void *cookie, const char *data, size_t len)
{
    (void)data;
    *(uint64_t *)cookie += len;
    return (ssize_t)len;
}

/* Writes the output into a stream that only counts its bytes: the time it took. */
static double write_counted(struct tct_output *out, uint64_t *bytes)
{
    *bytes = 0;
    FILE *f = fopencookie(bytes, "w", (cookie_io_functions_t){.write = count_bytes});
    double t0 = now_s();
    if (!f || tct_output_write_to(out, f) != 0 || fflush(f) != 0)
        fprintf(stderr, "writing an output failed\n");
    double took = now_s() - t0;
    if (f)
        fclose(f);
    return took;
}

/* One capture of the stream: the summary's and the CSV's sinks, and the JSON's and the
 * .pftrace's when `keep`; the time it took in *capture_s, each file's writing in f. */
static size_t capture(const struct buffer *stream, int keep, struct figures *f, double *capture_s)
{
    double t0 = now_s();
    struct tct_trace *trace = tct_trace_new();
    struct tcd_callbacks cb = {count_event, ignore_query};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, trace, NULL);
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    tct_trace_add_source(trace, &names, 0);
    struct tct_output *outputs[] = {keep ? tct_output_new(trace, TCT_FORMAT_CHROME, NULL) : NULL,
                                    keep ? tct_output_new(trace, TCT_FORMAT_PFTRACE, NULL) : NULL,
                                    tct_output_new(trace, TCT_FORMAT_SUMMARY, NULL),
                                    tct_output_new(trace, TCT_FORMAT_CSV, NULL)};
    tcd_decoder_feed(dec, stream->data, stream->len);
    tcd_decoder_stats(dec, &f->stats);
    if (tcd_decoder_state(dec) == TCD_STATE_FAILED)
        fprintf(stderr, "decode failed: %s\n", tcd_decoder_error(dec));
    tct_names_from_decoder(&names, dec);
    tct_trace_set_source_names(trace, 0, &names);
    tct_trace_finish(trace);
    *capture_s += now_s() - t0;
    size_t bytes = tct_trace_memory(trace);
    for (int w = 0; keep && w < WRITERS; w++)
        f->write_s[w] += write_counted(outputs[w], &f->written[w]);
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
        tct_output_free(outputs[i]);
    tcd_decoder_free(dec);
    tct_trace_free(trace);
    return bytes;
}

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

    /* The captures, interleaved. */
    f->aggregate_s = f->keep_s = f->write_s[JSON] = f->write_s[PFTRACE] = 0;
    for (int r = 0; r < reps; r++) {
        f->aggregate_bytes = capture(stream, 0, f, &f->aggregate_s);
        f->keep_bytes = capture(stream, 1, f, &f->keep_s);
    }
    f->aggregate_s /= reps;
    f->keep_s /= reps;
    f->write_s[JSON] /= reps;
    f->write_s[PFTRACE] /= reps;
}

static void report(const struct figures *f, double n, const char *unit)
{
    printf("  LZ4 decompression alone: %7.1f ms = %6.1f M %s/s equivalent\n", f->lz4_s * 1e3, n / f->lz4_s / 1e6, unit);
    printf("  decoder alone:           %7.1f ms = %6.1f M %s/s\n", f->decoder_s * 1e3, n / f->decoder_s / 1e6, unit);
    printf("  + summary and CSV sinks: %7.1f ms = %6.1f M %s/s (%.2fx the decoder), %.1f MiB kept\n",
           f->aggregate_s * 1e3, n / f->aggregate_s / 1e6, unit, f->aggregate_s / f->decoder_s,
           (double)f->aggregate_bytes / 1048576.0);
    printf("  + events kept (JSON, .pftrace): %7.1f ms = %6.1f M %s/s (%.2fx the decoder), %.1f MiB in memory\n",
           f->keep_s * 1e3, n / f->keep_s / 1e6, unit, f->keep_s / f->decoder_s, (double)f->keep_bytes / 1048576.0);
    printf("  writing the JSON after:     %7.1f ms = %6.1f M %s/s, %.1f MB\n", f->write_s[JSON] * 1e3,
           n / f->write_s[JSON] / 1e6, unit, (double)f->written[JSON] / 1e6);
    printf("  writing the .pftrace after: %7.1f ms = %6.1f M %s/s, %.1f MB (%.1fx smaller than the JSON)\n",
           f->write_s[PFTRACE] * 1e3, n / f->write_s[PFTRACE] / 1e6, unit, (double)f->written[PFTRACE] / 1e6,
           (double)f->written[JSON] / (double)(f->written[PFTRACE] ? f->written[PFTRACE] : 1));
}

int main(int argc, char **argv)
{
    if (argc > 1)
        pairs_per_thread = atol(argv[1]);
    const int reps = 3;
    struct buffer stream = {0};
    size_t frames_start;
    record(&stream, &frames_start);
    struct figures f;
    measure(&stream, frames_start, reps, &f);
    double events = (double)f.stats.events;
    printf("capture: %.1f MB stream (%.1f MB of items), %.0f events (%llu zones)\n", stream.len / 1e6,
           f.decompressed / 1e6, events, (unsigned long long)f.stats.zones);
    report(&f, events, "events");
    free(stream.data);

    struct buffer sampling = {0};
    uint64_t samples = 0;
    record_sampling(&sampling, &frames_start, &samples);
    measure(&sampling, frames_start, reps, &f);
    events = (double)f.stats.events;
    printf("sampling: %.1f MB stream (%.1f MB of items), %llu samples, %.0f events, decoder tables %.1f MiB\n",
           sampling.len / 1e6, f.decompressed / 1e6, (unsigned long long)f.stats.samples, events,
           (double)f.stats.memory / 1048576.0);
    report(&f, (double)samples, "samples");
    free(sampling.data);
    return 0;
}

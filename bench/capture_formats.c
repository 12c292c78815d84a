/* capture_formats.c - the capture's speed per output format on a recorded stream (what
 * bench_fake_client --record wrote: a client's welcome and every byte it sent, answers to
 * the server's queries included). For each format, what tracyc-capture does with the
 * stream: a fresh decoder and trace with that output alone (tct_output_open), the stream fed
 * in the chunks a socket gives, the trace finished and the file written (into TMPDIR, then
 * removed); and, as the baseline, the decoder alone on the same stream. Formats and the
 * baseline take turns, round after round (the machine is shared): medians of each.
 *
 * Times are this process's CPU time (user + system, writing the file included), which
 * other programs on a loaded machine disturb far less than the wall clock; the capture
 * runs on one thread, so it is the time it would take on an idle core.
 *
 *   bench_capture_formats STREAM [ROUNDS [FORMAT...]]     (default 3 rounds, every format)
 *
 * For each format: "live" is the decoding of the stream (decoder, trace, sinks, the events
 * kept for a replay), the part a live capture must do as fast as the client sends; "write"
 * is the file written once the capture has ended; events/s are the decoder's events over
 * each. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "decode/decode.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 * 1024) /* what capture/session.c reads from the socket at once */
#define MAX_ROUNDS 99

static const char *const all_formats[] = {"txt", "csv", "folded", "svg", "json", "pftrace"};
#define FORMAT_COUNT (sizeof all_formats / sizeof *all_formats)

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, 0, ev);
}

static void feed(struct tcd_decoder *dec, const uint8_t *data, size_t len)
{
    for (size_t off = 0; off < len; off += CHUNK)
        tcd_decoder_feed(dec, data + off, len - off < CHUNK ? len - off : CHUNK);
}

/* The decoder alone: its CPU time, the events in *events. */
static double decoder_alone(const uint8_t *data, size_t len, uint64_t *events)
{
    double t0 = cpu_s();
    struct tcd_callbacks cb = {NULL, NULL};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, NULL, NULL);
    feed(dec, data, len);
    struct tcd_stats st;
    tcd_decoder_stats(dec, &st);
    *events = st.events;
    tcd_decoder_free(dec);
    return cpu_s() - t0;
}

/* One capture into path: the CPU time of the live part and of the writing; -1 on failure. */
static int capture(const uint8_t *data, size_t len, const char *path, double *live, double *write, uint64_t *bytes)
{
    char err[512];
    double t0 = cpu_s();
    struct tct_trace *trace = tct_trace_new();
    static const struct tcd_callbacks cb = {on_event, NULL};
    struct tcd_decoder *dec = trace ? tcd_decoder_new(&cb, trace, NULL) : NULL;
    struct tct_names names;
    struct tct_output *out = NULL;
    if (dec) {
        tct_names_from_decoder(&names, dec);
        if (tct_trace_add_source(trace, &names, 0) == 0)
            out = tct_output_open(trace, path, NULL, err, sizeof err);
        else
            snprintf(err, sizeof err, "out of memory");
    }
    int rc = -1;
    if (out) {
        feed(dec, data, len);
        if (tcd_decoder_close(dec) != TCD_STATE_DONE)
            fprintf(stderr, "capture_formats: %s: the stream is incomplete: %s\n", path, tcd_decoder_error(dec));
        tct_names_from_decoder(&names, dec);
        tct_trace_set_source_names(trace, 0, &names);
        tct_trace_finish(trace);
        double t1 = cpu_s();
        *live = t1 - t0;
        rc = tct_output_close(out, err, sizeof err);
        *write = cpu_s() - t1;
    }
    if (rc != 0)
        fprintf(stderr, "capture_formats: %s\n", err);
    FILE *f = fopen(path, "rb");
    *bytes = 0;
    if (f && fseek(f, 0, SEEK_END) == 0)
        *bytes = (uint64_t)ftell(f);
    if (f)
        fclose(f);
    unlink(path);
    tcd_decoder_free(dec);
    tct_trace_free(trace);
    return rc;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long size = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (size > 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)size)) &&
        fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    if (f)
        fclose(f);
    *len = (size_t)(size > 0 ? size : 0);
    return data;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_capture_formats STREAM [ROUNDS [FORMAT...]]\n");
        return 2;
    }
    size_t len;
    uint8_t *data = read_file(argv[1], &len);
    if (!data) {
        perror(argv[1]);
        return 1;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 3;
    const char *const *formats = argc > 3 ? (const char *const *)argv + 3 : all_formats;
    size_t nformats = argc > 3 ? (size_t)argc - 3 : FORMAT_COUNT;
    const char *dir = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

    double decoder[MAX_ROUNDS], (*live)[MAX_ROUNDS] = calloc(nformats, sizeof *live),
                                (*write)[MAX_ROUNDS] = calloc(nformats, sizeof *write);
    uint64_t *bytes = calloc(nformats, sizeof *bytes), events = 0;
    int failed = 0;
    for (int r = 0; r < rounds; r++) {
        decoder[r] = decoder_alone(data, len, &events);
        for (size_t f = 0; f < nformats; f++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/capture_formats.%d.%s", dir, (int)getpid(), formats[f]);
            if (capture(data, len, path, &live[f][r], &write[f][r], &bytes[f]) != 0)
                failed = 1;
        }
    }
    double dec = median(decoder, rounds), ev = (double)events;
    printf("capture of a recorded stream: %.1f MB, %.0f events; medians of %d rounds, CPU time\n", (double)len / 1e6,
           ev, rounds);
    printf("  %-8s %10s %12s %9s %10s %12s %9s %10s\n", "output", "live s", "M events/s", "/decoder", "write s",
           "M events/s", "/decoder", "file");
    printf("  %-8s %10.3f %12.2f %9s\n", "decoder", dec, ev / dec / 1e6, "1.00");
    for (size_t f = 0; f < nformats; f++) {
        double l = median(live[f], rounds), w = median(write[f], rounds);
        printf("  %-8s %10.3f %12.2f %9.2f %10.3f %12.2f %9.2f %8.1f MB\n", formats[f], l, ev / l / 1e6, l / dec, w,
               ev / (l + w) / 1e6, (l + w) / dec, (double)bytes[f] / 1e6);
    }
    printf("  (live: decoding, the trace and its sinks, as the client sends; write: the file once the capture\n"
           "   ended; the second M events/s and /decoder are of both together; /decoder: times the decoder's time)\n");
    free(live);
    free(write);
    free(bytes);
    free(data);
    return failed;
}

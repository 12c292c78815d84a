/* test_upstream_stream.c - a stream that upstream Tracy 0.14.0's own client sent, replayed
 * through the decoder and every exporter: tests/c/fixtures/streams/upstream_callstacks.stream, the
 * whole byte stream (status byte, welcome, LZ4 frames, the answers to every query) of
 * tests/e2e/upstream_callstacks.c running 60 ms with sampling at 1 kHz and context
 * switches, built with upstream's client (its perf timestamps on CLOCK_MONOTONIC_RAW) and
 * recorded by tests/fuzz/seeds/record_stream. A decoder sends the same queries in the same
 * order as the one that recorded it, so the recorded answers fit.
 *
 * What it holds (seen with upstream's tracy-dump on a capture of the same program):
 * callstacks on the zones outer_work and inner_work, on a message and on allocations; CPU
 * samples whose hottest function is hot_loop; context switches of the whole system. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "test_util.h"
#include "trace/export.h"
#include "trace/model.h"
#include "decode/decode.h"

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    *len = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    return data;
}

static void on_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, ev);
}

static char *export_string(const struct tct_trace *trace, const struct tcd_decoder *dec, enum tct_format format)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    int rc = tct_export_to(f, format, trace, &names, NULL);
    fclose(f);
    tt_check(rc == 0, "export in format %d", format);
    return text;
}

/* The callstack of the first zone named `zone`, as "f < g < h" (innermost first). */
static void zone_stack(const struct tct_trace *tr, const struct tcd_decoder *dec, const char *zone, char *out,
                       size_t len)
{
    out[0] = '\0';
    const struct tct_thread *t = NULL;
    for (size_t i = 0; i < tr->thread_count && !t; i++)
        t = tr->threads[i]->zones.count ? tr->threads[i] : NULL;
    for (size_t z = 0; t && z < t->zones.count; z++) {
        const struct tct_zone_extra *x = tct_thread_zone_extra(t, z);
        if (!x || !x->callstack || strcmp(tcd_srcloc(dec, tct_thread_zone(t, z)->srcloc)->name, zone))
            continue;
        uint32_t depth;
        const uint32_t *frames = tcd_callstack(dec, x->callstack, &depth);
        for (uint32_t i = 0; i < depth; i++) {
            const struct tcd_frame *f = tcd_frame(dec, frames[i]);
            for (uint32_t s = 0; s < f->count; s++)
                snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " < " : "", f->sub[s].function);
        }
        return;
    }
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "streams/upstream_callstacks.stream";
    size_t len;
    uint8_t *stream = read_file(path, &len);
    if (!stream) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }

    /* In pieces of every size the decoder must agree with itself. */
    for (size_t chunk = 1; chunk <= 4096; chunk *= 8) {
        struct tcd_decoder *d = tcd_decoder_new(NULL, NULL, NULL);
        for (size_t off = 0; off < len; off += chunk)
            tcd_decoder_feed(d, stream + off, len - off < chunk ? len - off : chunk);
        struct tcd_stats st;
        tcd_decoder_stats(d, &st);
        tt_check(tcd_decoder_state(d) == TCD_STATE_DONE && st.samples == 48,
                 "fed in pieces of %zu bytes: DONE with 48 samples (%s)", chunk, tcd_decoder_error(d));
        tcd_decoder_free(d);
    }

    struct tct_trace *tr = tct_trace_new();
    struct tcd_callbacks cb = {on_event, NULL};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, tr, NULL);
    enum tcd_state st = tcd_decoder_feed(dec, stream, len);
    tt_check(st == TCD_STATE_DONE, "the upstream client's stream decodes to the end: %s", tcd_decoder_error(dec));
    tct_trace_finish(tr);

    tt_check(tr->samples == 48 && tr->switches.count == 423 && tcd_callstack_count(dec) == 62,
             "48 CPU samples, 423 context switches, 62 distinct callstacks (%llu, %zu, %u)",
             (unsigned long long)tr->samples, tr->switches.count, tcd_callstack_count(dec));
    uint32_t unresolved = 0;
    for (uint32_t i = 0; i < tcd_frame_count(dec); i++)
        unresolved += tcd_frame(dec, i)->state == TCD_FRAME_UNRESOLVED;
    tt_check(tcd_frame_count(dec) > 0 && unresolved == 0, "all %u frames resolved", tcd_frame_count(dec));

    char stack[1024];
    zone_stack(tr, dec, "outer_work", stack, sizeof stack);
    tt_check(strstr(stack, "___tracy_emit_zone_begin_callstack < outer_work < main") != NULL,
             "outer_work's callstack: %s", stack);
    zone_stack(tr, dec, "inner_work", stack, sizeof stack);
    tt_check(strstr(stack, "< inner_work < outer_work < main") != NULL, "inner_work's callstack: %s", stack);
    size_t with_stack = 0;
    for (size_t i = 0; i < tr->messages.count; i++)
        with_stack += tct_trace_message(tr, i)->callstack != 0;
    tt_check(with_stack == 4, "4 messages with callstacks (%zu)", with_stack);
    tt_check(tr->pool_count == 1 && tr->pools[0].site_count == 1 && tr->pools[0].sites[0].count == 4 &&
                 tr->pools[0].frees_with_callstack == 4,
             "4 allocations and frees from one callstack");

    char *summary = export_string(tr, dec, TCT_FORMAT_SUMMARY);
    tt_check(summary && strstr(summary, "Sampling: 48 CPU samples on 2 threads") &&
                 strstr(summary, "        20   41.7%         20   41.7%  hot_loop "),
             "summary: 48 samples, hot_loop first with 20 self samples");
    char *folded = export_string(tr, dec, TCT_FORMAT_FOLDED);
    tt_check(folded && strstr(folded, "Main thread;__libc_start_call_main;main;outer_work;hot_loop 20\n"),
             "folded: the hot path with its 20 samples");
    char *json = export_string(tr, dec, TCT_FORMAT_CHROME);
    size_t where = 0;
    const char *bad = json ? json_check(json, strlen(json), &where) : "no output";
    tt_check(!bad, "Chrome JSON is valid JSON (%s at %zu)", bad ? bad : "", where);
    tt_check(json && strstr(json, "\"ph\":\"P\",\"name\":\"ProfileChunk\"") && strstr(json, "\"stackFrames\":{") &&
                 strstr(json, "\"systemTraceEvents\":\"# tracer: nop\\n") && strstr(json, ": sched_switch: prev_comm="),
             "Chrome JSON: samples as V8 profile chunks, zone stackFrames, context switches as ftrace text");
    char *svg = export_string(tr, dec, TCT_FORMAT_SVG);
    tt_check(svg && strstr(svg, "48 CPU samples</text>") && strstr(svg, "<title>hot_loop (20 samples, 41.67%)</title>"),
             "SVG flame graph: 48 samples, hot_loop 41.67%%");
    free(summary);
    free(folded);
    free(json);
    free(svg);
    tcd_decoder_free(dec);
    tct_trace_free(tr);
    free(stream);
    return tt_finish("test_upstream_stream");
}

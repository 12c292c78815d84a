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
#include "trace/memory_stats.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "decode/decode.h"

static void on_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, 0, ev);
}

static char *output_string(struct tct_output *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = tct_output_write_to(out, f);
    fclose(f);
    tt_check(rc == 0, "output written");
    tct_output_free(out);
    return text;
}

/* What the test looks at besides the outputs: the callstacks of the zones (the first of
 * each source location that has one) and how many messages had one. */
struct looker {
    struct tct_sink sink;
    uint32_t zone_callstack[64]; /* by source location */
    size_t messages_with_stack;
};

static void look(struct tct_sink *sink, const struct tct_record *rec)
{
    struct looker *l = (struct looker *)sink;
    if (rec->kind == TCT_REC_MESSAGE) {
        l->messages_with_stack += rec->u.message.callstack != 0;
        return;
    }
    const struct tct_zone_record *z = &rec->u.zone;
    if (z->srcloc < 64 && z->callstack && !l->zone_callstack[z->srcloc])
        l->zone_callstack[z->srcloc] = z->callstack;
}

static void looker_free(struct tct_sink *sink)
{
    (void)sink;
}

/* The callstack of the first zone named `zone`, as "f < g < h" (innermost first). */
static void zone_stack(const struct looker *l, const struct tcd_decoder *dec, const char *zone, char *out, size_t len)
{
    out[0] = '\0';
    for (uint32_t sl = 0; sl < 64 && sl < tcd_srcloc_count(dec); sl++) {
        if (!l->zone_callstack[sl] || strcmp(tcd_srcloc(dec, sl)->name, zone))
            continue;
        uint32_t depth;
        const uint32_t *frames = tcd_callstack(dec, l->zone_callstack[sl], &depth);
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
    uint8_t *stream = tt_read_bytes(path, &len);
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
        tt_check(tcd_decoder_state(d) == TCD_STATE_DONE && st.samples == 76,
                 "fed in pieces of %zu bytes: DONE with 76 samples (%s)", chunk, tcd_decoder_error(d));
        tcd_decoder_free(d);
    }

    struct tct_trace *tr = tct_trace_new();
    struct tcd_callbacks cb = {on_event, NULL};
    struct tcd_decoder *dec = tcd_decoder_new(&cb, tr, NULL);
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    tct_trace_add_source(tr, &names, 0);
    static const struct tct_sink_ops looker_ops = {"looker", TCT_REC_BIT(TCT_REC_ZONE) | TCT_REC_BIT(TCT_REC_MESSAGE),
                                                   look, looker_free, NULL};
    static struct looker looker = {{&looker_ops}, {0}, 0};
    tct_trace_add_sink(tr, &looker.sink);
    struct tct_memory_stats *mem = tct_memory_stats_of(tr);
    struct tct_output *outputs[4];
    static const enum tct_format formats[4] = {TCT_FORMAT_SUMMARY, TCT_FORMAT_FOLDED, TCT_FORMAT_CHROME,
                                               TCT_FORMAT_SVG};
    for (int i = 0; i < 4; i++)
        outputs[i] = tct_output_new(tr, formats[i], NULL);
    enum tcd_state st = tcd_decoder_feed(dec, stream, len);
    tt_check(st == TCD_STATE_DONE, "the upstream client's stream decodes to the end: %s", tcd_decoder_error(dec));
    tct_names_from_decoder(&names, dec);
    tct_trace_set_source_names(tr, 0, &names);
    tct_trace_finish(tr);

    const struct tct_source *src = tct_trace_source(tr, 0);
    tt_check(src->samples == 76 && src->switches == 248 && tcd_callstack_count(dec) == 80,
             "76 CPU samples, 248 context switches, 80 distinct callstacks (%llu, %llu, %u)",
             (unsigned long long)src->samples, (unsigned long long)src->switches, tcd_callstack_count(dec));
    uint32_t unresolved = 0;
    for (uint32_t i = 0; i < tcd_frame_count(dec); i++)
        unresolved += tcd_frame(dec, i)->state == TCD_FRAME_UNRESOLVED;
    tt_check(tcd_frame_count(dec) > 0 && unresolved == 0, "all %u frames resolved", tcd_frame_count(dec));

    char stack[1024];
    zone_stack(&looker, dec, "outer_work", stack, sizeof stack);
    tt_check(strstr(stack, "___tracy_emit_zone_begin_callstack < outer_work < main") != NULL,
             "outer_work's callstack: %s", stack);
    zone_stack(&looker, dec, "inner_work", stack, sizeof stack);
    tt_check(strstr(stack, "< inner_work < outer_work < main") != NULL, "inner_work's callstack: %s", stack);
    tt_check(looker.messages_with_stack == 4, "4 messages with callstacks (%zu)", looker.messages_with_stack);
    const struct tct_mem_pool *pool = tct_memory_pool_at(mem, 0);
    tt_check(tct_memory_pool_count(mem) == 1 && pool->site_count == 1 && pool->sites[0].count == 4 &&
                 pool->frees_with_callstack == 4,
             "4 allocations and frees from one callstack");

    char *summary = output_string(outputs[0]);
    tt_check(summary && strstr(summary, "Sampling: 76 CPU samples on 3 threads") &&
                 strstr(summary, "        27   35.5%         27   35.5%  hot_loop "),
             "summary: 76 samples, hot_loop first with 27 self samples");
    char *folded = output_string(outputs[1]);
    tt_check(folded && strstr(folded, "Main thread;__libc_start_call_main;main;outer_work;hot_loop 27\n"),
             "folded: the hot path with its 27 samples");
    char *json = output_string(outputs[2]);
    size_t where = 0;
    const char *bad = json ? json_check(json, strlen(json), &where) : "no output";
    tt_check(!bad, "Chrome JSON is valid JSON (%s at %zu)", bad ? bad : "", where);
    tt_check(json && strstr(json, "\"ph\":\"P\",\"name\":\"ProfileChunk\"") && strstr(json, "\"stackFrames\":{") &&
                 strstr(json, "\"systemTraceEvents\":\"# tracer: nop\\n") && strstr(json, ": sched_switch: prev_comm="),
             "Chrome JSON: samples as V8 profile chunks, zone stackFrames, context switches as ftrace text");
    char *svg = output_string(outputs[3]);
    tt_check(svg && strstr(svg, "76 CPU samples</text>") && strstr(svg, "<title>hot_loop (27 samples, 35.53%)</title>"),
             "SVG flame graph: 76 samples, hot_loop 35.53%%");
    free(summary);
    free(folded);
    free(json);
    free(svg);
    tcd_decoder_free(dec);
    tct_trace_free(tr);
    free(stream);
    return tt_finish("test_upstream_stream");
}

/* fuzz_export - the outputs on any trace the decoder can feed: item-frame input (see
 * fuzz_util.h) is decoded into a trace, finished as a capture finishes it (also when the
 * stream was cut off or rejected mid-way), and written as Chrome JSON, CSV
 * (tracy-csvexport's options picked from the input's last byte), the summary, folded
 * stacks, the SVG flame graph and the Perfetto trace. The JSON must parse, whatever names
 * and texts the stream carried; every folded line must end in a sample count; the Perfetto
 * trace must be TracePacket messages whose fields all lie within them. */
#include "fuzz_util.h"
#include "json_check.h"

#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void on_trace_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, 0, ev);
}

/* The CSV options of tracy-csvexport, chosen from a byte of the input. */
static struct tct_export_options options_from(uint8_t bits)
{
    static const char *const filters[] = {NULL, "", "a", "Zone"};
    struct tct_export_options o = {0};
    o.filter = filters[bits & 3];
    o.case_sensitive = (bits >> 2) & 1;
    o.self_time = (bits >> 3) & 1;
    o.unwrap = (bits >> 4) & 1;
    o.messages = (bits >> 5) & 1;
    o.separator = (bits >> 6) & 1 ? ";" : NULL;
    o.top = (bits >> 7) & 1 ? 1 : 0;
    return o;
}

static void check_chrome(struct tct_output *out)
{
    char *json = NULL;
    size_t json_len = 0, where;
    FILE *f = open_memstream(&json, &json_len);
    if (!f)
        abort();
    int rc = tct_output_write_to(out, f);
    fclose(f);
    const char *bad = rc == 0 ? json_check(json, json_len, &where) : NULL;
    if (bad) {
        fprintf(stderr, "Chrome export is not valid JSON: %s at byte %zu of %zu: \"%.*s\"\n", bad, where, json_len,
                (int)(json_len - where < 80 ? json_len - where : 80), json + where);
        abort();
    }
    free(json);
}

/* A protobuf varint at *p, before end; 0 when it runs past it. */
static int pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return 1;
    }
    return 0;
}

/* Fields, each of a known wire type and within [p, end); of field 1 only when top. */
static int pb_fields(const uint8_t *p, const uint8_t *end, int top)
{
    while (p < end) {
        uint64_t key, v;
        if (!pb_varint(&p, end, &key) || (top && key != (1 << 3 | 2)))
            return 0;
        switch (key & 7) {
        case 0:
            if (!pb_varint(&p, end, &v))
                return 0;
            break;
        case 1:
            if (end - p < 8)
                return 0;
            p += 8;
            break;
        case 2:
            if (!pb_varint(&p, end, &v) || v > (uint64_t)(end - p) || (top && !pb_fields(p, p + v, 0)))
                return 0;
            p += v;
            break;
        default:
            return 0;
        }
    }
    return 1;
}

static void check_pftrace(struct tct_output *out)
{
    char *data = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&data, &len);
    if (!f)
        abort();
    int rc = tct_output_write_to(out, f);
    fclose(f);
    if (rc == 0 && !pb_fields((const uint8_t *)data, (const uint8_t *)data + len, 1)) {
        fprintf(stderr, "Perfetto export is not a stream of well-formed TracePackets (%zu bytes)\n", len);
        abort();
    }
    free(data);
}

/* Every line: frames, a space, a count of at least 1; or, without samples, the one comment
 * line that says why ("# tracyc: no CPU samples (...)"). */
static void check_folded(struct tct_output *out)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || tct_output_write_to(out, f) != 0)
        abort();
    fclose(f);
    for (char *line = text, *end; line < text + len; line = end + 1) {
        end = memchr(line, '\n', (size_t)(text + len - line));
        if (end && line == text && strncmp(line, "# tracyc: no CPU samples", 24) == 0)
            continue;
        char *space = end ? memrchr(line, ' ', (size_t)(end - line)) : NULL;
        if (!end || !space || space + 1 == end || space[1] == '0' || memchr(line, '\r', (size_t)(end - line))) {
            fprintf(stderr, "folded output has a malformed line: \"%.*s\"\n", (int)(end ? end - line : 80), line);
            abort();
        }
        for (char *d = space + 1; d < end; d++)
            if (*d < '0' || *d > '9')
                abort();
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    static FILE *devnull;
    if (!devnull && !(devnull = fopen("/dev/null", "w")))
        abort();
    size_t frames_len;
    uint8_t *frames = fz_items_to_stream(data, len, &frames_len);
    uint8_t *stream = malloc(FZ_HANDSHAKE_MAX + frames_len);
    size_t hs = fz_handshake(stream, FZ_HANDSHAKE_MAX, TCW_V82);
    if (frames_len)
        memcpy(stream + hs, frames, frames_len);

    struct tct_trace *trace = tct_trace_new();
    struct fz_run run = {.forward = on_trace_event, .forward_user = trace};
    struct tcd_decoder *dec = fz_decoder_new(&run, TCW_V82);
    struct tct_names names;
    tct_names_from_decoder(&names, dec);
    if (tct_trace_add_source(trace, &names, 0) != 0)
        abort();
    struct tct_export_options o = options_from(len ? data[len - 1] : 0);
    enum { CHROME, CSV, SUMMARY, FOLDED, SVG, PFTRACE, OUTPUTS };
    static const enum tct_format formats[OUTPUTS] = {TCT_FORMAT_CHROME, TCT_FORMAT_CSV, TCT_FORMAT_SUMMARY,
                                                     TCT_FORMAT_FOLDED, TCT_FORMAT_SVG, TCT_FORMAT_PFTRACE};
    struct tct_output *out[OUTPUTS];
    for (int i = 0; i < OUTPUTS; i++)
        if (!(out[i] = tct_output_new(trace, formats[i], &o)))
            abort();
    fz_feed(dec, stream, hs + frames_len, 0);
    tct_names_from_decoder(&names, dec);
    tct_trace_set_source_names(trace, 0, &names);
    if (o.top)
        tct_trace_source_incomplete(trace, 0, "fuzz input ended");
    tct_trace_finish(trace);

    check_chrome(out[CHROME]);
    tct_output_write_to(out[CSV], devnull);
    tct_output_write_to(out[SUMMARY], devnull);
    check_folded(out[FOLDED]);
    tct_output_write_to(out[SVG], devnull);
    check_pftrace(out[PFTRACE]);
    for (int i = 0; i < OUTPUTS; i++)
        tct_output_free(out[i]);

    tcd_decoder_free(dec);
    tct_trace_free(trace);
    free(stream);
    free(frames);
    return 0;
}

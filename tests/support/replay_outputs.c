/* replay_outputs - a recorded client stream through the decoder into every output.
 *
 *   replay_outputs STREAM OUT_DIR [SPILL_MEMORY]
 *
 * STREAM is a whole client byte stream (status byte, welcome, LZ4 frames, the answers to
 * every query), prefixed with its protocol number unless it is protocol 82, as
 * tests/fuzz/seeds/record_stream writes them; or a list of such streams (NAME.streams:
 * their file names, one a line), each a process of one capture (tests/fuzz/corpus/fuzz_decode_handshake/, tests/c/fixtures/streams/). A decoder
 * sends the same queries in the same order as the one that recorded it, so the recorded
 * answers fit. Writes into OUT_DIR, all from one pass over the stream: summary.txt,
 * trace.json, trace.pftrace, profile.folded, flame.svg, and the CSV in each of tracy-csvexport's modes
 * (stats.csv, self.csv, unwrap.csv, unwrap_self.csv, messages.csv, filter.csv; and
 * per_process.csv for several processes).
 * tests/c/golden_outputs.sh compares them with the outputs kept in tests/c/fixtures/golden/.
 * SPILL_MEMORY (bytes) bounds what the capture keeps in memory before it uses the disk
 * (tct_trace_set_spill_memory): a small one makes every output go through its files. */
#include "test_util.h"
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "decode/decode.h"
#include "wire/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One recorded client: its bytes, its decoder, its source in the trace. */
struct client {
    uint8_t *data;
    size_t len, prefix;
    struct tcd_decoder *dec;
    struct tct_trace *trace;
    uint32_t source;
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct client *c = user;
    tct_trace_on_event(c->trace, c->source, ev);
}

/* The streams STREAM names: itself, or, for a list (".streams": file names, one a line,
 * beside it), each it lists. Returns how many went into paths (at most max). */
static size_t stream_paths(const char *stream, char paths[][4096], size_t max)
{
    size_t n = strlen(stream);
    if (n < 8 || strcmp(stream + n - 8, ".streams") != 0) {
        snprintf(paths[0], 4096, "%s", stream);
        return 1;
    }
    FILE *f = fopen(stream, "r");
    const char *slash = strrchr(stream, '/');
    int dir = slash ? (int)(slash - stream + 1) : 0;
    size_t count = 0;
    char line[1024];
    while (f && count < max && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] && line[0] != '#')
            snprintf(paths[count++], 4096, "%.*s%s", dir, stream, line);
    }
    if (f)
        fclose(f);
    return count;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: replay_outputs STREAM OUT_DIR [SPILL_MEMORY]\n");
        return 2;
    }
    enum { MAX_CLIENTS = 16 };
    static char paths[MAX_CLIENTS][4096];
    struct client clients[MAX_CLIENTS] = {0};
    size_t count = stream_paths(argv[1], paths, MAX_CLIENTS);
    struct tct_trace *trace = tct_trace_new();
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    if (!trace || !count) {
        fprintf(stderr, "replay_outputs: nothing to replay in %s\n", argv[1]);
        return 2;
    }
    for (size_t i = 0; i < count; i++) {
        struct client *c = &clients[i];
        c->data = tt_read_bytes(paths[i], &c->len);
        if (!c->data || c->len < 2) {
            fprintf(stderr, "replay_outputs: cannot read %s\n", paths[i]);
            return 2;
        }
        c->trace = trace;
        c->dec = tcd_decoder_new(&callbacks, c, NULL);
        /* A status byte is never a protocol number tracyc speaks. */
        c->prefix = tcw_version_index(c->data[0]) >= 0;
        if (!c->dec || (c->prefix && tcd_decoder_set_version(c->dec, c->data[0]) != 0)) {
            fprintf(stderr, "replay_outputs: out of memory\n");
            return 2;
        }
        struct tct_names names;
        tct_names_from_decoder(&names, c->dec);
        int source = tct_trace_add_source(trace, &names, 0);
        if (source < 0)
            return 2;
        c->source = (uint32_t)source;
    }
    if (argc == 4)
        tct_trace_set_spill_memory(trace, (size_t)strtoull(argv[3], NULL, 10));
    static const struct {
        const char *file;
        struct tct_export_options options;
    } outputs[] = {
        {"summary.txt", {0}},
        {"trace.json", {0}},
        {"trace.pftrace", {0}},
        {"profile.folded", {0}},
        {"flame.svg", {0}},
        {"stats.csv", {0}},
        {"self.csv", {.self_time = 1}},
        {"unwrap.csv", {.unwrap = 1}},
        {"unwrap_self.csv", {.unwrap = 1, .self_time = 1, .separator = ";"}},
        {"messages.csv", {.messages = 1}},
        {"filter.csv", {.filter = "a", .case_sensitive = 1}},
        {"per_process.csv", {.per_process = 1}},
    };
    enum { OUTPUTS = sizeof outputs / sizeof *outputs };
    struct tct_output *open[OUTPUTS];
    int rc = 0;
    for (size_t i = 0; i < OUTPUTS; i++) {
        char path[4096], err[512];
        snprintf(path, sizeof path, "%s/%s", argv[2], outputs[i].file);
        if (outputs[i].options.per_process && count < 2)
            continue; /* the same as stats.csv with one process */
        if (!(open[i] = tct_output_open(trace, path, &outputs[i].options, err, sizeof err))) {
            fprintf(stderr, "replay_outputs: %s\n", err);
            return 2;
        }
    }
    for (size_t i = 0; i < count; i++) {
        struct client *c = &clients[i];
        tcd_decoder_feed(c->dec, c->data + c->prefix, c->len - c->prefix);
        if (tcd_decoder_close(c->dec) != TCD_STATE_DONE)
            tct_trace_source_incomplete(trace, c->source, "client vanished");
        struct tct_names names;
        tct_names_from_decoder(&names, c->dec);
        tct_trace_set_source_names(trace, c->source, &names);
    }
    tct_trace_finish(trace);
    for (size_t i = 0; i < OUTPUTS; i++) {
        char err[512];
        if (open[i] && tct_output_close(open[i], err, sizeof err) != 0) {
            fprintf(stderr, "replay_outputs: %s\n", err);
            rc = 1;
        }
    }
    for (size_t i = 0; i < count; i++) {
        tcd_decoder_free(clients[i].dec);
        free(clients[i].data);
    }
    tct_trace_free(trace);
    return rc;
}

/* replay_outputs - a recorded client stream through the decoder into every output.
 *
 *   replay_outputs STREAM OUT_DIR
 *
 * STREAM is a whole client byte stream (status byte, welcome, LZ4 frames, the answers to
 * every query), prefixed with its protocol number unless it is protocol 82, as
 * tests/fuzz/seeds/record_stream writes them (tests/fuzz/corpus/fuzz_decode_handshake/, tests/c/fixtures/streams/). A decoder
 * sends the same queries in the same order as the one that recorded it, so the recorded
 * answers fit. Writes into OUT_DIR: summary.txt, trace.json, profile.folded, flame.svg,
 * and the CSV in each of tracy-csvexport's modes (stats.csv, self.csv, unwrap.csv,
 * unwrap_self.csv, messages.csv, filter.csv). tests/c/golden_outputs.sh compares them with
 * the outputs kept in tests/c/fixtures/golden/. */
#include "trace/export.h"
#include "trace/model.h"
#include "decode/decode.h"
#include "wire/versions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
    *len = data ? fread(data, 1, (size_t)n, f) : 0;
    fclose(f);
    return data;
}

static void on_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, ev);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: replay_outputs STREAM OUT_DIR\n");
        return 2;
    }
    size_t len;
    uint8_t *data = read_file(argv[1], &len);
    if (!data || len < 2) {
        fprintf(stderr, "replay_outputs: cannot read %s\n", argv[1]);
        return 2;
    }
    struct tct_trace *trace = tct_trace_new();
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    struct tcd_decoder *dec = tcd_decoder_new(&callbacks, trace, NULL);
    /* A status byte is never a protocol number tracyc speaks. */
    size_t prefix = tcw_version_index(data[0]) >= 0;
    if (!trace || !dec || (prefix && tcd_decoder_set_version(dec, data[0]) != 0)) {
        fprintf(stderr, "replay_outputs: out of memory\n");
        return 2;
    }
    tcd_decoder_feed(dec, data + prefix, len - prefix);
    enum tcd_state state = tcd_decoder_close(dec);
    tct_trace_finish(trace);
    static const struct {
        const char *file;
        struct tct_export_options options;
    } outputs[] = {
        {"summary.txt", {0}},
        {"trace.json", {0}},
        {"profile.folded", {0}},
        {"flame.svg", {0}},
        {"stats.csv", {0}},
        {"self.csv", {.self_time = 1}},
        {"unwrap.csv", {.unwrap = 1}},
        {"unwrap_self.csv", {.unwrap = 1, .self_time = 1, .separator = ";"}},
        {"messages.csv", {.messages = 1}},
        {"filter.csv", {.filter = "a", .case_sensitive = 1}},
    };
    int rc = 0;
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++) {
        char path[4096], err[512];
        struct tct_export_options o = outputs[i].options;
        if (state != TCD_STATE_DONE)
            o.incomplete = "client vanished";
        snprintf(path, sizeof path, "%s/%s", argv[2], outputs[i].file);
        if (tct_export_file(trace, dec, path, &o, err, sizeof err) != 0) {
            fprintf(stderr, "replay_outputs: %s\n", err);
            rc = 1;
        }
    }
    tcd_decoder_free(dec);
    tct_trace_free(trace);
    free(data);
    return rc;
}

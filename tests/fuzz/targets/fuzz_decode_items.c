/* fuzz_decode_items - the decoder on any sequence of protocol items, framed and LZ4
 * compressed by the client's own encoder (the item-frame format of fuzz_util.h), so
 * mutations reach the item parser rather than dying in LZ4. The first byte picks the
 * protocol version (fz_version), so the items are read with that version's opcodes and
 * layouts. Decoded twice, all at once and in pieces: both runs must agree. Every name
 * table is read back afterwards. */
#include "fuzz_util.h"

#include "wire/protocol.h"

#include <stdlib.h>
#include <string.h>

static void read_tables(const struct tcd_decoder *dec)
{
    volatile size_t sum = 0;
    for (uint32_t i = 0; i < tcd_srcloc_count(dec); i++) {
        const struct tcd_srcloc *s = tcd_srcloc(dec, i);
        sum += strlen(s->name) + strlen(s->function) + strlen(s->file);
    }
    for (uint32_t id = 0; id < 4; id++) {
        sum += strlen(tcd_thread_name(dec, id)) + strlen(tcd_plot_name(dec, id)) + strlen(tcd_frame_name(dec, id));
        sum += strlen(tcd_pool_name(dec, id)) + strlen(tcd_string(dec, id));
        sum += strlen(tcd_external_thread_name(dec, id)) + strlen(tcd_external_process_name(dec, id));
        sum += tcd_thread_pid(dec, id);
    }
    /* Every callstack, its frames and their symbols. */
    for (uint32_t id = 0; id <= tcd_callstack_count(dec) + 1; id++) {
        uint32_t depth;
        const uint32_t *frames = tcd_callstack(dec, id, &depth);
        for (uint32_t i = 0; frames && i < depth; i++) {
            const struct tcd_frame *f = tcd_frame(dec, frames[i]);
            sum += f->address + strlen(f->image);
            for (uint32_t k = 0; k < f->count; k++) {
                const char *file;
                uint32_t line;
                sum += strlen(f->sub[k].function) + strlen(f->sub[k].file) + f->sub[k].line;
                if (tcd_symbol(dec, f->sub[k].symbol, &file, &line))
                    sum += strlen(file) + line;
            }
        }
    }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    int vi = fz_version(&data, &len);
    size_t frames_len;
    uint8_t *frames = fz_items_to_stream(data, len, &frames_len);
    uint8_t *stream = malloc(FZ_HANDSHAKE_MAX + frames_len);
    size_t hs = fz_handshake(stream, FZ_HANDSHAKE_MAX, vi);
    if (frames_len)
        memcpy(stream + hs, frames, frames_len);
    struct fz_run whole = {0}, pieces = {0};
    struct tcd_decoder *a = fz_decoder_new(&whole, vi), *b = fz_decoder_new(&pieces, vi);
    fz_feed(a, stream, hs + frames_len, 0);
    fz_feed(b, stream, hs + frames_len, 1 + len % 509);
    fz_finish(a, &whole);
    fz_finish(b, &pieces);
    fz_check_same(&whole, &pieces);
    read_tables(a);
    tcd_decoder_free(a);
    tcd_decoder_free(b);
    free(stream);
    free(frames);
    return 0;
}

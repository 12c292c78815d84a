/* fuzz_util.h - what the fuzz targets share: a server-side decoder run over fuzz input,
 * a digest of everything it produced, and the item-frame input format.
 *
 * Item-frame input (fuzz_decode_items, fuzz_export): a sequence of records
 *   u32 length (little endian) | length bytes of decompressed protocol items
 * Each record becomes one LZ4 frame, compressed with the client's own encoder, so the
 * fuzzer mutates items rather than compressed bytes. A length past the input's end or the
 * frame limit is cut to fit.
 */
#ifndef TRACYC_FUZZ_UTIL_H
#define TRACYC_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

/* One decoder run: everything it produced, folded into numbers that must not depend on
 * how the bytes were chunked. Events are also passed on to `forward` when set. */
struct fz_run {
    uint64_t events;
    uint64_t queries;
    uint64_t hash;
    enum tcd_state state;
    char error[256];
    void (*forward)(void *user, const struct tcd_event *ev);
    void *forward_user;
};

/* The protocol version an input asks for: its first byte, consumed. A protocol number
 * tracyc speaks (82, 76, 74, 69, 66, 64) names itself, any other byte picks one by its
 * value. Returns the version index (wire/versions.h); an empty input gets protocol 82. */
int fz_version(const uint8_t **data, size_t *len);

/* The status byte and a plausible welcome message in version vi's layout; returns its
 * length (at most FZ_HANDSHAKE_MAX). */
#define FZ_HANDSHAKE_MAX (1 + 1178)
size_t fz_handshake(uint8_t *out, size_t cap, int vi);

/* A decoder of version vi whose events and queries are folded into run (zero it first).
 * Its memory limit is low, so a hostile input shows up as FAILED, not as the fuzzer's
 * out-of-memory. */
struct tcd_decoder *fz_decoder_new(struct fz_run *run, int vi);

/* Feeds data in pieces of `chunk` bytes (0 = all at once), then closes the stream. */
void fz_feed(struct tcd_decoder *dec, const uint8_t *data, size_t len, size_t chunk);

/* Records the decoder's final state and error into run. */
void fz_finish(struct tcd_decoder *dec, struct fz_run *run);

/* Aborts with a message when the two runs disagree. */
void fz_check_same(const struct fz_run *a, const struct fz_run *b);

/* Turns item-frame input into the wire stream a client would send after its handshake:
 * u32 size | LZ4 frame, ... Returns a malloc'd buffer (free it) and its length. */
uint8_t *fz_items_to_stream(const uint8_t *data, size_t len, size_t *out_len);

#endif

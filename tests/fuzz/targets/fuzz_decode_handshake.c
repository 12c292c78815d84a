/* fuzz_decode_handshake - the decoder on any byte stream from the very first byte: the
 * handshake status, the welcome message (on-demand or not, in the layout of the protocol
 * version the input's first byte picks, fz_version), then frames. Decoded twice, all at
 * once and byte by byte for the handshake's sake: both runs must agree. */
#include "fuzz_util.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    int vi = fz_version(&data, &len);
    struct fz_run whole = {0}, pieces = {0};
    struct tcd_decoder *a = fz_decoder_new(&whole, vi), *b = fz_decoder_new(&pieces, vi);
    fz_feed(a, data, len, 0);
    fz_feed(b, data, len, 1 + len % 7);
    fz_finish(a, &whole);
    fz_finish(b, &pieces);
    fz_check_same(&whole, &pieces);
    if (whole.state != TCD_STATE_HANDSHAKE && whole.state != TCD_STATE_FAILED) {
        const struct tcd_welcome *w = tcd_decoder_welcome(a);
        /* The names were checked for a terminating NUL: reading them stays in bounds. */
        volatile size_t n = strlen(w->program_name) + strlen(w->host_info);
        (void)n;
    }
    tcd_decoder_free(a);
    tcd_decoder_free(b);
    return 0;
}

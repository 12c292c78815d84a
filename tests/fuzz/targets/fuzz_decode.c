/* fuzz_decode - the decoder on any byte stream a client could send after a valid
 * handshake: LZ4 frame headers and compressed bytes exactly as they come off the socket.
 * The first byte picks the protocol version (fz_version). Decoded twice, all at once and
 * in small pieces: both runs must agree. */
#include "fuzz_util.h"

#include "wire/protocol.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    int vi = fz_version(&data, &len);
    uint8_t *stream = malloc(FZ_HANDSHAKE_MAX + len);
    size_t hs = fz_handshake(stream, FZ_HANDSHAKE_MAX, vi);
    if (len)
        memcpy(stream + hs, data, len);
    struct fz_run whole = {0}, pieces = {0};
    struct tcd_decoder *a = fz_decoder_new(&whole, vi), *b = fz_decoder_new(&pieces, vi);
    fz_feed(a, stream, hs + len, 0);
    fz_feed(b, stream, hs + len, 1 + len % 61);
    fz_finish(a, &whole);
    fz_finish(b, &pieces);
    fz_check_same(&whole, &pieces);
    tcd_decoder_free(a);
    tcd_decoder_free(b);
    free(stream);
    return 0;
}

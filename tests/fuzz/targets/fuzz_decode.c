/* fuzz_decode - the decoder on any byte stream a client could send after a valid
 * handshake: LZ4 frame headers and compressed bytes exactly as they come off the socket.
 * Decoded twice, all at once and in small pieces: both runs must agree. */
#include "fuzz_util.h"

#include "wire/protocol.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    uint8_t *stream = malloc(1 + TCW_WELCOME_SIZE + len);
    size_t hs = fz_handshake(stream, 1 + TCW_WELCOME_SIZE);
    if (len)
        memcpy(stream + hs, data, len);
    struct fz_run whole = {0}, pieces = {0};
    struct tcd_decoder *a = fz_decoder_new(&whole), *b = fz_decoder_new(&pieces);
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

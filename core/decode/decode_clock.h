/* decode_clock.h - tracyc's clock extension (docs/protocol.md §28): the TracycClock item
 * (decode_clock.c; tcd_decoder_probe_clock is in decode.h). */
#ifndef TRACYC_DECODE_DECODE_CLOCK_H
#define TRACYC_DECODE_DECODE_CLOCK_H

#include "decode/decode_internal.h"

void tcd_clock_item(struct tcd_decoder *dec, const uint8_t *it);

#endif

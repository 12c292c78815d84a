/* decode_items.h - one decompressed frame of protocol-82 items in, events out. */
#ifndef TRACYC_DECODE_DECODE_ITEMS_H
#define TRACYC_DECODE_DECODE_ITEMS_H

#include "decode/decode_internal.h"

void tcd_parse_items(struct tcd_decoder *dec, const uint8_t *p, size_t n);

#endif

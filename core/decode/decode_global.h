/* decode_global.h - memory, lock and GPU items, which carry their own thread id. */
#ifndef TRACYC_DECODE_DECODE_GLOBAL_H
#define TRACYC_DECODE_DECODE_GLOBAL_H

#include "decode/decode_internal.h"

void tcd_parse_global_item(struct tcd_decoder *dec, uint8_t type, const uint8_t *it);

#endif

/* decode_items.h - one decompressed frame of protocol-82 items in, events out. */
#ifndef TRACYC_DECODE_DECODE_ITEMS_H
#define TRACYC_DECODE_DECODE_ITEMS_H

#include "decode/decode_internal.h"

void tcd_parse_items(struct tcd_decoder *dec, const uint8_t *p, size_t n);
/* A ZoneBegin (ZoneEnd) item of the current thread at raw time `time`, taken without its
 * bytes: the thread's time chain moves on to `time` as the item's delta would move it. */
void tcd_items_zone_begin(struct tcd_decoder *dec, int64_t time, uint64_t srcloc_id);
void tcd_items_zone_end(struct tcd_decoder *dec, int64_t time);

#endif

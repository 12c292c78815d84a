/* decode_fail.c - how the decoder fails (see decode_fail.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "decode/decode_fail.h"
#include "decode/decode_names.h"

void tcd_fail(struct tcd_decoder *dec, const char *fmt, ...)
{
    if (dec->state == TCD_STATE_FAILED)
        return; /* keep the first cause */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dec->error, sizeof dec->error, fmt, ap);
    va_end(ap);
    dec->state = TCD_STATE_FAILED;
}

void tcd_item_fail(struct tcd_decoder *dec, const char *what)
{
    uint8_t type = dec->item_type;
    tcd_fail(dec, "%s [item %s (%u) at offset %td of frame %" PRIu64 "]", what, tcd_item_name(type), dec->item[0],
             dec->item - dec->frame_items, dec->frame_index);
}

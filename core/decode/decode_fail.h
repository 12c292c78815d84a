/* decode_fail.h - how the decoder fails: it keeps the first cause and stops (FAILED). */
#ifndef TRACYC_DECODE_DECODE_FAIL_H
#define TRACYC_DECODE_DECODE_FAIL_H

#include "decode/decode_internal.h"

void tcd_fail(struct tcd_decoder *dec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* FAILED with `what` and the current item's type and offset in its frame. */
void tcd_item_fail(struct tcd_decoder *dec, const char *what);

#endif

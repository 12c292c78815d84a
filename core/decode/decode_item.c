/* decode_item.c - the steps every item parser shares (see decode_item.h). */
#include "decode/decode_item.h"

int tcd_take_pending(struct tcd_decoder *dec, struct tcd_pending_bytes *pb, const char *missing, const uint8_t **s,
                     size_t *len)
{
    if (!pb->set) {
        tcd_item_fail(dec, missing);
        return -1;
    }
    pb->set = 0;
    *s = pb->data;
    *len = pb->len;
    return 0;
}

int tcd_take_single(struct tcd_decoder *dec, const uint8_t **s, size_t *len)
{
    return tcd_take_pending(dec, &dec->single, "no single string precedes the item that consumes it", s, len);
}

int tcd_take_second(struct tcd_decoder *dec, const uint8_t **s, size_t *len)
{
    return tcd_take_pending(dec, &dec->second, "no second string precedes the item that consumes it", s, len);
}

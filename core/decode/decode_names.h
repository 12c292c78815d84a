/* decode_names.h - item type names (upstream's QueueType names) for error messages. */
#ifndef TRACYC_DECODE_DECODE_NAMES_H
#define TRACYC_DECODE_DECODE_NAMES_H

#include <stdint.h>

/* The name of logical item type `type` ("unknown" past the last). */
const char *tcd_item_name(uint8_t type);

#endif

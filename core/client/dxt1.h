/* dxt1.h - RGBA to DXT1 (BC1) compression for frame images, as the server expects. */
#ifndef TRACYC_CLIENT_DXT1_H
#define TRACYC_CLIENT_DXT1_H

#include <stdint.h>

/* rgba: w*h pixels of 4 bytes; w and h multiples of 4; out: w*h/2 bytes. */
void tc_dxt1_compress(const uint8_t *rgba, uint16_t w, uint16_t h, uint8_t *out);

#endif

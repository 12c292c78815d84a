/* dxt1.c - a simple, fast BC1 encoder: each 4x4 block's two endpoints are its darkest
 * and brightest pixels (by luma), and each pixel takes the nearest of the four colours
 * interpolated between them. Good enough for the profiler's frame thumbnails. */
#include "client/dxt1.h"

#include <string.h>

static uint16_t to565(const uint8_t *p)
{
    return (uint16_t)(((p[0] >> 3) << 11) | ((p[1] >> 2) << 5) | (p[2] >> 3));
}

static void from565(uint16_t c, int rgb[3])
{
    rgb[0] = ((c >> 11) & 31) * 255 / 31;
    rgb[1] = ((c >> 5) & 63) * 255 / 63;
    rgb[2] = (c & 31) * 255 / 31;
}

static int luma(const uint8_t *p)
{
    return p[0] * 2 + p[1] * 5 + p[2];
}

static void compress_block(const uint8_t *px[16], uint8_t out[8])
{
    int lo = 0, hi = 0;
    for (int i = 1; i < 16; i++) {
        if (luma(px[i]) < luma(px[lo]))
            lo = i;
        if (luma(px[i]) > luma(px[hi]))
            hi = i;
    }
    uint16_t c0 = to565(px[hi]), c1 = to565(px[lo]);
    uint32_t indices = 0;
    if (c0 == c1) {
        memcpy(out, &c0, 2);
        memcpy(out + 2, &c1, 2);
        memset(out + 4, 0, 4);
        return;
    }
    if (c0 < c1) { /* c0 > c1 selects the four-colour mode */
        uint16_t tmp = c0;
        c0 = c1;
        c1 = tmp;
    }
    int pal[4][3];
    from565(c0, pal[0]);
    from565(c1, pal[1]);
    for (int k = 0; k < 3; k++) {
        pal[2][k] = (2 * pal[0][k] + pal[1][k]) / 3;
        pal[3][k] = (pal[0][k] + 2 * pal[1][k]) / 3;
    }
    for (int i = 0; i < 16; i++) {
        int best = 0, best_d = 1 << 30;
        for (int j = 0; j < 4; j++) {
            int d = 0;
            for (int k = 0; k < 3; k++)
                d += (px[i][k] - pal[j][k]) * (px[i][k] - pal[j][k]);
            if (d < best_d) {
                best_d = d;
                best = j;
            }
        }
        indices |= (uint32_t)best << (2 * i);
    }
    memcpy(out, &c0, 2);
    memcpy(out + 2, &c1, 2);
    memcpy(out + 4, &indices, 4);
}

void tc_dxt1_compress(const uint8_t *rgba, uint16_t w, uint16_t h, uint8_t *out)
{
    for (unsigned by = 0; by < h; by += 4) {
        for (unsigned bx = 0; bx < w; bx += 4) {
            const uint8_t *px[16];
            for (unsigned y = 0; y < 4; y++)
                for (unsigned x = 0; x < 4; x++)
                    px[y * 4 + x] = rgba + ((size_t)(by + y) * w + bx + x) * 4;
            compress_block(px, out);
            out += 8;
        }
    }
}

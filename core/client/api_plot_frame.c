/* api_plot_frame.c - plots, frame marks and frame images. */
#include "client/api.h"

#include "client/dxt1.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint32_t main_frames;

static void plot(unsigned type, const char *name, uint64_t bits)
{
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, type, 0, 0);
    if (!r)
        return;
    r->plot.time = tc_clock_now();
    r->plot.name = name;
    r->plot.value_bits = bits;
    tc_thread_commit(t);
}

/* Non-finite values are dropped: the server discards them without advancing its time
 * reference, which would shift every later event of the thread. */
void ___tracy_emit_plot(const char *name, double val)
{
    if (!name || !isfinite(val))
        return;
    uint64_t bits;
    memcpy(&bits, &val, 8);
    plot(TC_REC_PLOT_DOUBLE, name, bits);
}

void ___tracy_emit_plot_float(const char *name, float val)
{
    if (!name || !isfinite(val))
        return;
    uint32_t bits;
    memcpy(&bits, &val, 4);
    plot(TC_REC_PLOT_FLOAT, name, bits);
}

void ___tracy_emit_plot_int(const char *name, int64_t val)
{
    if (!name)
        return;
    plot(TC_REC_PLOT_INT, name, (uint64_t)val);
}

void ___tracy_emit_plot_config(const char *name, int32_t type, int32_t step, int32_t fill, uint32_t color)
{
    if (!name)
        return;
    union tc_rec *r = tc_serial_reserve(TC_REC_PLOT_CONFIG, 0, 0);
    if (!r)
        return;
    r->plot_config.format = type >= TracyPlotFormatNumber && type <= TracyPlotFormatWatt ? (uint8_t)type : 0;
    r->plot_config.step = step != 0;
    r->plot_config.fill = fill != 0;
    r->plot_config.color = color & 0xffffff;
    r->plot_config.name = name;
    tc_serial_commit();
}

static void frame(unsigned type, const char *name)
{
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, type, 0, 0);
    if (!r)
        return;
    r->frame.time = tc_clock_now();
    r->frame.name = name;
    tc_thread_commit(t);
}

void ___tracy_emit_frame_mark(const char *name)
{
    if (!name)
        atomic_fetch_add_explicit(&main_frames, 1, memory_order_relaxed);
    frame(TC_REC_FRAME_MARK, name);
}

void ___tracy_emit_frame_mark_start(const char *name)
{
    if (name) /* discontinuous frames need a named set */
        frame(TC_REC_FRAME_START, name);
}

void ___tracy_emit_frame_mark_end(const char *name)
{
    if (name)
        frame(TC_REC_FRAME_END, name);
}

/* The image travels DXT1-compressed (w*h/2 bytes) inside one LZ4 frame. */
#define MAX_IMAGE_BYTES (256 * 1024 - 64)

void ___tracy_emit_frame_image(const void *image, uint16_t w, uint16_t h, uint8_t offset, int32_t flip)
{
    if (!image || w == 0 || h == 0 || (w & 3) || (h & 3)) {
        tc_set_error("frame image: width and height must be non-zero multiples of 4");
        return;
    }
    uint32_t size = (uint32_t)w * h / 2;
    if (size > MAX_IMAGE_BYTES) {
        tc_set_error("frame image: %ux%u is too large for one frame", w, h);
        return;
    }
    struct tc_frame_image *img = tc_buffer_alloc(sizeof *img + size); /* freed by the worker */
    if (!img) {
        tc_count_drop();
        return;
    }
    uint32_t frames = atomic_load_explicit(&main_frames, memory_order_relaxed);
    img->frame = frames >= offset ? frames - offset : 0;
    img->w = w;
    img->h = h;
    img->flip = flip ? 1 : 0;
    img->size = size;
    tc_dxt1_compress(image, w, h, img->data);
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_FRAME_IMAGE, 0, 0);
    if (!r) {
        tc_buffer_free(img, sizeof *img + size);
        return;
    }
    r->frame_image.image = img;
    tc_thread_commit(t);
}

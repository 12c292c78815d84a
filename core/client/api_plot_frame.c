/* api_plot_frame.c - plots, frame marks and frame images. */
#include "client/api.h"

#include "client/dxt1.h"
#include "util/array.h"

#include <math.h>
#include <pthread.h>
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

/* Non-finite values are not sent: the server discards them without advancing its time
 * reference, which would shift every later event of the thread. They are counted, and
 * the count is reported like dropped events (conn.c). */
static void skip_plot_value(void)
{
    atomic_fetch_add_explicit(&tc_prof.plot_skipped, 1, memory_order_relaxed);
}

void ___tracy_emit_plot(const char *name, double val)
{
    if (!name)
        return;
    if (!isfinite(val)) {
        skip_plot_value();
        return;
    }
    uint64_t bits;
    memcpy(&bits, &val, 8);
    plot(TC_REC_PLOT_DOUBLE, name, bits);
}

void ___tracy_emit_plot_float(const char *name, float val)
{
    if (!name)
        return;
    if (!isfinite(val)) {
        skip_plot_value();
        return;
    }
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

static void frame(unsigned type, const char *name, uint32_t index)
{
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, type, 0, 0);
    if (!r)
        return;
    r->frame.time = tc_clock_now();
    r->frame.name = name;
    r->frame.index = index;
    tc_thread_commit(t);
}

void ___tracy_emit_frame_mark(const char *name)
{
    uint32_t index = name ? 0 : atomic_fetch_add_explicit(&main_frames, 1, memory_order_relaxed) + 1;
    frame(TC_REC_FRAME_MARK, name, index);
}

/* Discontinuous frames. A server fails the whole capture on an end whose frame set was
 * never started ("Discontinuous frame begin/end mismatch"), so an end is refused here
 * unless its set is open. A start and its end may come from different threads: both go
 * through the serial stream, in the order this lock gives them, so the check holds on
 * the wire too. Frame sets open at once are few; a linear search finds them. */
static pthread_mutex_t frames_lock = PTHREAD_MUTEX_INITIALIZER;
static const char **open_frames;
static size_t open_len, open_cap;

/* A forked child that profiles (TRACYC_FOLLOW_FORK) has none of its parent's frame sets
 * open; the lock, which another of the parent's threads may have held, starts anew. The
 * life cycle layer below cannot call up here, so this file registers its own handler. */
static void frames_forget_after_fork(void)
{
    pthread_mutex_init(&frames_lock, NULL);
    open_len = 0;
}

__attribute__((constructor)) static void frames_at_fork(void)
{
    pthread_atfork(NULL, NULL, frames_forget_after_fork);
}

static size_t open_index(const char *name)
{
    size_t i = 0;
    while (i < open_len && open_frames[i] != name)
        i++;
    return i;
}

/* Records a discontinuous frame mark; 0, or -1 if it was dropped. Under frames_lock. */
static int serial_frame(unsigned type, const char *name)
{
    union tc_rec *r = tc_serial_reserve(type, 0, 0);
    if (!r)
        return -1;
    r->frame.time = tc_clock_now();
    r->frame.name = name;
    tc_serial_commit();
    return 0;
}

void ___tracy_emit_frame_mark_start(const char *name)
{
    if (!name) /* discontinuous frames need a named set */
        return;
    pthread_mutex_lock(&frames_lock);
    size_t i = open_index(name);
    if (i == open_len) {
        const char **grown = tcu_grow(NULL, open_frames, &open_cap, open_len + 1, sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&frames_lock);
            tc_set_error("frame mark start \"%s\": out of memory", name);
            return;
        }
        open_frames = grown;
    }
    if (serial_frame(TC_REC_FRAME_START, name) == 0 && i == open_len)
        open_frames[open_len++] = name; /* a start that was dropped opens nothing */
    pthread_mutex_unlock(&frames_lock);
}

void ___tracy_emit_frame_mark_end(const char *name)
{
    if (!name)
        return;
    pthread_mutex_lock(&frames_lock);
    size_t i = open_index(name);
    if (i == open_len) {
        pthread_mutex_unlock(&frames_lock);
        tc_set_error("frame mark end \"%s\" ignored: that frame set has no FrameMarkStart open", name);
        return;
    }
    open_frames[i] = open_frames[--open_len];
    serial_frame(TC_REC_FRAME_END, name);
    pthread_mutex_unlock(&frames_lock);
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
    img->frames = frames;
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
    tc_thread_owns_heap(t);
    tc_thread_commit(t);
}

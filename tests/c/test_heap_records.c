/* Records that own heap data (a zone's allocated source location, a frame image) have it
 * released once the worker has encoded them, on whichever thread they were recorded.
 *
 * The worker walks a thread's records to release such data only once the thread has
 * written one (tc_thread_owns_heap): a path that wrote one without saying so would keep
 * its payloads charged to the buffer budget for good. Here two threads, one of allocated
 * source locations, one of frame images, record some 20 MB and 2.5 MB of heap data before
 * any capture is there (so all of it is charged, however fast the worker would have
 * drained it), then the in-process capture starts; the test waits until the budget holds no
 * more than the streams' chunks. */
#include "client/stream.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ZONES 20000
#define IMAGES 40
/* What the budget may hold once the heap data is released: the streams' chunks. */
#define CHUNKS_AT_MOST ((size_t)4 << 20)

static void *alloc_zones(void *arg)
{
    (void)arg;
    static char name[1000];
    memset(name, 'n', sizeof name);
    ___tracy_set_thread_name("alloc zones");
    for (int i = 0; i < ZONES; i++) {
        uint64_t srcloc = ___tracy_alloc_srcloc_name(1, "heap.c", 6, "alloc_zones", 11, name, sizeof name, 0);
        ___tracy_emit_zone_end(___tracy_emit_zone_begin_alloc(srcloc, 1));
    }
    return NULL;
}

static void *images(void *arg)
{
    (void)arg;
    static uint8_t rgba[512 * 256 * 4]; /* 64 KiB once compressed */
    ___tracy_set_thread_name("images");
    for (int i = 0; i < IMAGES; i++) {
        ___tracy_emit_frame_mark(NULL);
        ___tracy_emit_frame_image(rgba, 512, 256, 0, 0);
    }
    return NULL;
}

int main(void)
{
    char path[PATH_MAX];
    tt_temp_path(path, sizeof path, "test_heap_records_XXXXXX.txt");
    int fd = mkstemps(path, 4);
    tt_check(fd >= 0, "a temporary file");
    close(fd);
    tt_use_free_port();
    ___tracy_startup_profiler(); /* (listening; nobody connects) */
    pthread_t a, b;
    pthread_create(&a, NULL, alloc_zones, NULL);
    pthread_create(&b, NULL, images, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    size_t peak = atomic_load(&tc_buffer_peak);
    tt_check(peak > CHUNKS_AT_MOST, "the heap data was charged: the budget peaked at %zu bytes", peak);
    tt_check(tracyc_capture_start(path) == 0, "in-process capture started: %s", tracyc_last_error());
    /* Drained at the worker's pace: a minute is only there to end a failing run. */
    size_t held = atomic_load(&tc_buffer_bytes);
    for (int i = 0; i < 6000 && held > CHUNKS_AT_MOST; i++) {
        usleep(10000);
        held = atomic_load(&tc_buffer_bytes);
    }
    tt_check(held <= CHUNKS_AT_MOST, "heap data released once encoded: %zu bytes still held (chunks: <= %zu)", held,
             CHUNKS_AT_MOST);
    ___tracy_shutdown_profiler();
    unlink(path);
    return tt_finish("test_heap_records");
}

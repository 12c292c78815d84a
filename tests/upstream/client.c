/* client.c - a small program of every event kind, built against upstream Tracy's own
 * TracyC.h and client library of one release (0.10 to 0.14.0), to record upstream's
 * client as a test fixture (record.sh). UPSTREAM_MINOR is the release's minor version:
 * locks and colours of allocated source locations exist from 0.11, memory discards
 * from 0.12. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracy/TracyC.h"

#ifndef UPSTREAM_MINOR
#error "define UPSTREAM_MINOR (10 .. 14)"
#endif

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

int main(void)
{
    /* Events before a server is connected would be lost: upstream's client is not an
     * on-demand one, but it only sends what it recorded after the connection. */
    for (int i = 0; i < 3000 && !TracyCIsConnected; i++)
        pause_ms(10);
    if (!TracyCIsConnected) {
        fprintf(stderr, "client: no server connected\n");
        return 1;
    }
    ___tracy_set_thread_name("fixture main");
    TracyCAppInfo("fixture app info", 16);

    TracyCZoneNC(outer, "outer zone", 0x102030, 1);
    TracyCZoneText(outer, "zone text", 9);
    TracyCZoneName(outer, "renamed", 7);
    TracyCZoneColor(outer, 0x405060);
    TracyCZoneValue(outer, 4242);
    for (int i = 0; i < 3; i++) {
        TracyCZoneN(inner, "inner zone", 1);
        TracyCZoneEnd(inner);
    }
#if UPSTREAM_MINOR >= 11
    uint64_t srcloc = ___tracy_alloc_srcloc_name(77, "client.c", 8, "alloc_fn", 8, "alloc zone", 10, 0);
#else /* no colour argument before 0.11 */
    uint64_t srcloc = ___tracy_alloc_srcloc_name(77, "client.c", 8, "alloc_fn", 8, "alloc zone", 10);
#endif
    TracyCZoneCtx alloc = ___tracy_emit_zone_begin_alloc(srcloc, 1);
    TracyCZoneEnd(alloc);
    TracyCZoneEnd(outer);

    TracyCMessage("plain message", 13);
    TracyCMessageL("literal message");
    TracyCMessageC("coloured message", 16, 0x00ff00);
    TracyCMessageLC("coloured literal", 0x0000ff);

    TracyCPlot("double plot", 2.5);
    TracyCPlotF("float plot", 1.25f);
    TracyCPlotI("int plot", -42);
    TracyCPlotConfig("double plot", TracyPlotFormatMemory, 1, 1, 0x808080);

    TracyCFrameMark;
    TracyCFrameMarkNamed("named frames");
    TracyCFrameMarkStart("discontinuous");
    TracyCFrameMarkEnd("discontinuous");
    static uint8_t image[8 * 4 * 4];
    memset(image, 0x80, sizeof image);
    TracyCFrameImage(image, 8, 4, 0, 0);

    static int block[4];
    TracyCAlloc(block, sizeof block);
    TracyCFree(block);
    TracyCAllocN(block, 64, "pool A");
    TracyCFreeN(block, "pool A");
#if UPSTREAM_MINOR >= 12
    TracyCAllocN(block, 128, "pool A");
    TracyCMemoryDiscard("pool A");
#endif

#if UPSTREAM_MINOR >= 11
    TracyCLockCtx(lock);
    TracyCLockAnnounce(lock);
    TracyCLockCustomName(lock, "fixture lock", 12);
    TracyCLockBeforeLock(lock);
    TracyCLockAfterLock(lock);
    TracyCLockAfterUnlock(lock);
    TracyCLockTerminate(lock);
#endif

    struct ___tracy_gpu_new_context_data ctx = {100, 1.0f, 3, 0, 1};
    ___tracy_emit_gpu_new_context(ctx);
    struct ___tracy_gpu_context_name_data name = {3, "fixture gpu", 11};
    ___tracy_emit_gpu_context_name(name);
    static const struct ___tracy_source_location_data gpu_loc = {"gpu zone", "main", "client.c", 99, 0};
    struct ___tracy_gpu_zone_begin_data begin = {(uint64_t)(uintptr_t)&gpu_loc, 10, 3};
    ___tracy_emit_gpu_zone_begin(begin);
    struct ___tracy_gpu_zone_end_data end = {11, 3};
    ___tracy_emit_gpu_zone_end(end);
    struct ___tracy_gpu_time_data t1 = {200, 10, 3}, t2 = {700, 11, 3};
    ___tracy_emit_gpu_time(t1);
    ___tracy_emit_gpu_time(t2);
    return 0;
}

/* all_events.c - one of every kind of event tracyc can record: zones (static and
 * allocated source locations, text, name, colour, value), messages, app info, frames
 * (continuous, discontinuous, image), plots, memory (default and named pools, discard),
 * locks (exclusive and shared), fibers, GPU zones and sections. Used to check that a
 * real Tracy server of every supported version accepts all of them (a version that lacks
 * some kind, such as sections before 0.14, gets one message saying what was not sent). */
#include <tracy/TracyC.h>

#include <stdio.h>
#include <string.h>

static const char *const fiber_name = "fiber A";

static void gpu(void)
{
    struct ___tracy_gpu_new_context_data ctx = {1000, 1.0f, 0, 0, 7 /* Custom */};
    ___tracy_emit_gpu_new_context_serial(ctx);
    struct ___tracy_gpu_context_name_data name = {0, "compute queue", 13};
    ___tracy_emit_gpu_context_name_serial(name);
    static const struct ___tracy_source_location_data loc = {"gpu kernel", "gpu", __FILE__, __LINE__, 0};
    struct ___tracy_gpu_zone_begin_data begin = {(uint64_t)(uintptr_t)&loc, 1, 0};
    ___tracy_emit_gpu_zone_begin_serial(begin);
    struct ___tracy_gpu_zone_end_data end = {2, 0};
    ___tracy_emit_gpu_zone_end_serial(end);
    struct ___tracy_gpu_time_data t1 = {2000, 1, 0}, t2 = {5000, 2, 0};
    ___tracy_emit_gpu_time_serial(t1);
    ___tracy_emit_gpu_time_serial(t2);
}

static void memory(void)
{
    static char a[100], b[200]; /* any addresses do: only the events matter here */
    TracyCAlloc(a, sizeof a);
    TracyCAllocN(b, sizeof b, "pool");
    TracyCFree(a);
    TracyCMemoryDiscard("pool");
}

static void locks(void)
{
    TracyCLockCtx lock;
    TracyCLockAnnounce(lock);
    TracyCLockCustomName(lock, "state lock", 10);
    TracyCLockBeforeLock(lock);
    TracyCLockAfterLock(lock);
    TracyCLockMark(lock);
    TracyCLockAfterUnlock(lock);
    TracyCLockAfterTryLock(lock, 1);
    TracyCLockAfterUnlock(lock);
    TracyCLockTerminate(lock);

    TracyCSharedLockCtx shared;
    TracyCSharedLockAnnounce(shared);
    TracyCSharedLockBeforeSharedLock(shared);
    TracyCSharedLockAfterSharedLock(shared);
    TracyCSharedLockAfterSharedUnlock(shared);
    TracyCSharedLockBeforeLock(shared);
    TracyCSharedLockAfterLock(shared);
    TracyCSharedLockAfterUnlock(shared);
    TracyCSharedLockTerminate(shared);
}

static void sections(void)
{
    tracyc_section_setup(1, "phases", 6);
    uint32_t id = tracyc_section_enter(1, "loading", 7);
    tracyc_section_leave(id);
}

static void frame_image(void)
{
    static uint8_t rgba[16 * 16 * 4];
    for (size_t i = 0; i < sizeof rgba; i++)
        rgba[i] = (uint8_t)(i * 7);
    TracyCFrameImage(rgba, 16, 16, 0, 0);
}

int main(void)
{
    TracyCAppInfo("all_events", 10);
    TracyCPlotConfig("value", TracyPlotFormatPercentage, 1, 0, 0x00ff00);
    {
        TracyCZoneNC(outer, "outer", 0xff0000, 1);
        TracyCZoneText(outer, "some text", 9);
        TracyCZoneName(outer, "renamed outer", 13);
        TracyCZoneColor(outer, 0x00ff00);
        TracyCZoneValue(outer, 42);
        {
            const char func[] = "dynamic_function", file[] = "dynamic.c", name[] = "dynamic zone";
            uint64_t loc = ___tracy_alloc_srcloc_name(7, file, strlen(file), func, strlen(func), name, strlen(name), 0);
            TracyCZoneCtx inner = ___tracy_emit_zone_begin_alloc(loc, 1);
            TracyCZoneEnd(inner);
        }
        TracyCZoneEnd(outer);
    }
    TracyCMessage("dynamic message", 15);
    TracyCMessageL("literal message");
    TracyCMessageC("coloured message", 16, 0xff00ff);
    TracyCMessageLC("coloured literal", 0x0000ff);
    ___tracy_emit_logString(TracyMessageSeverityError, 0, 0, 13, "error message");
    TracyCPlot("value", 0.5);
    TracyCPlotF("float plot", 1.5f);
    TracyCPlotI("int plot", -3);
    TracyCPlot("value", 0.0 / 0.0); /* NaN: dropped */
    TracyCFrameMark;
    TracyCFrameMarkNamed("physics frames");
    TracyCFrameMarkStart("load");
    TracyCFrameMarkEnd("load");
    frame_image();
    TracyCFrameMark;
    memory();
    locks();
    TracyCFiberEnter(fiber_name);
    {
        TracyCZoneN(in_fiber, "in fiber", 1);
        TracyCZoneEnd(in_fiber);
    }
    TracyCFiberLeave;
    gpu();
    sections();
    printf("all_events: done\n");
    return 0;
}

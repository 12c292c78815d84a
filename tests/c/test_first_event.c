/* The first call of a process, whatever kind of event it is, records a sane time.
 *
 * The profiler starts at the first call and that start chooses the clock (TSC ticks or
 * nanoseconds). A time read before the start is in the wrong unit: the first zone of a
 * process came out hundreds of seconds long, beginning long before the trace did.
 *
 * Each case runs in a fresh process (this program re-executed with the case's name), so
 * the event under test really is that process's first call into the library. The child
 * checks, through a capture on loopback, that the event's time lies between the trace's
 * origin and a marker message emitted right after it, and that the span from the event
 * to the marker is no longer than the wall time the child measured around both. */
#include "client/clock.h"
#include "test_capture.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const struct ___tracy_source_location_data loc = {"first", "first_fn", "first.c", 1, 0};
static int block;

static void first_zone(void)
{
    ___tracy_emit_zone_end(___tracy_emit_zone_begin(&loc, 1));
}

static void first_zone_callstack(void)
{
    ___tracy_emit_zone_end(___tracy_emit_zone_begin_callstack(&loc, 8, 1));
}

static void first_zone_alloc(void)
{
    uint64_t srcloc = ___tracy_alloc_srcloc_name(2, "first.c", 7, "first_fn", 8, "alloc", 5, 0);
    ___tracy_emit_zone_end(___tracy_emit_zone_begin_alloc(srcloc, 1));
}

static void first_zone_at(void)
{
    int64_t begin = ___tracy_get_time();
    tracyc_zone_end_at(tracyc_zone_begin_at(&loc, begin), ___tracy_get_time());
}

static void first_message(void)
{
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 5, "first");
}

static void first_message_literal(void)
{
    ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, "first");
}

static void first_app_info(void)
{
    ___tracy_emit_message_appinfo("first", 5);
}

static void first_plot(void)
{
    ___tracy_emit_plot("first", 1.0);
}

static void first_frame_mark(void)
{
    ___tracy_emit_frame_mark(NULL);
}

static void first_frame_start(void)
{
    ___tracy_emit_frame_mark_start("first");
    ___tracy_emit_frame_mark_end("first");
}

static void first_memory(void)
{
    ___tracy_emit_memory_alloc(&block, 16);
    ___tracy_emit_memory_free(&block);
}

/* A GPU zone needs its context, so the context comes first. */
static void first_gpu(void)
{
    struct ___tracy_gpu_new_context_data ctx = {1000, 1.0f, 0, 0, 1};
    ___tracy_emit_gpu_new_context(ctx);
    struct ___tracy_gpu_zone_begin_data begin = {(uint64_t)(uintptr_t)&loc, 1, 0};
    ___tracy_emit_gpu_zone_begin(begin);
    struct ___tracy_gpu_zone_end_data end = {2, 0};
    ___tracy_emit_gpu_zone_end(end);
}

static void first_lock(void)
{
    struct __tracy_lockable_context_data *lock = ___tracy_announce_lockable_ctx(&loc);
    ___tracy_before_lock_lockable_ctx(lock);
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_terminate_lockable_ctx(lock);
}

static void first_fiber(void)
{
    ___tracy_fiber_enter("first fiber");
    ___tracy_fiber_leave();
}

static void first_section(void)
{
    tracyc_section_leave(tracyc_section_enter(1, "first", 5));
}

struct first_case {
    const char *name;
    void (*emit)(void);
    enum tcd_event_kind kind; /* the event whose time is checked */
    enum tcd_event_kind end;  /* its end, or the same kind when it has none */
};

static const struct first_case cases[] = {
    {"zone", first_zone, TCD_ZONE_BEGIN, TCD_ZONE_END},
    {"zone_callstack", first_zone_callstack, TCD_ZONE_BEGIN, TCD_ZONE_END},
    {"zone_alloc", first_zone_alloc, TCD_ZONE_BEGIN, TCD_ZONE_END},
    {"zone_at", first_zone_at, TCD_ZONE_BEGIN, TCD_ZONE_END},
    {"message", first_message, TCD_MESSAGE, TCD_MESSAGE},
    {"message_literal", first_message_literal, TCD_MESSAGE, TCD_MESSAGE},
    {"app_info", first_app_info, TCD_APP_INFO, TCD_APP_INFO},
    {"plot", first_plot, TCD_PLOT, TCD_PLOT},
    {"frame_mark", first_frame_mark, TCD_FRAME_MARK, TCD_FRAME_MARK},
    {"frame_start", first_frame_start, TCD_FRAME_START, TCD_FRAME_END},
    {"memory", first_memory, TCD_MEM_ALLOC, TCD_MEM_FREE},
    {"gpu", first_gpu, TCD_GPU_CONTEXT, TCD_GPU_ZONE_END},
    {"lock", first_lock, TCD_LOCK_ANNOUNCE, TCD_LOCK_TERMINATE},
    {"fiber", first_fiber, TCD_FIBER_ENTER, TCD_FIBER_LEAVE},
    {"section", first_section, TCD_SECTION_ENTER, TCD_SECTION_LEAVE},
};
#define NCASES (sizeof cases / sizeof cases[0])

static int run_case(const struct first_case *fc)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    /* The TSC is where the units differ; use it even where the CPU does not say it is
     * invariant (on other architectures the clock is nanoseconds either way). */
    setenv("TRACY_NO_INVARIANT_CHECK", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    int64_t wall0 = tc_clock_monotonic_raw_ns();
    fc->emit(); /* the process's first call into the library */
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, 6, "marker");
    int64_t wall = tc_clock_monotonic_raw_ns() - wall0;
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    if (cap->result)
        fprintf(stderr, "%s: capture: %s\n", fc->name, cap->err);

    const struct tcd_event *ev = tt_nth(cap, fc->kind, 0);
    const struct tcd_event *end = tt_nth(cap, fc->end, 0);
    const struct tcd_event *marker = tt_find_text(cap, TCD_MESSAGE, "marker");
    tt_check(ev && end && marker, "%s: the first event, its end and the marker were captured", fc->name);
    if (ev && end && marker) {
        tt_check(ev->time >= 0, "%s: begins after the trace's origin (%lld ns)", fc->name, (long long)ev->time);
        tt_check(ev->time <= end->time && end->time <= marker->time, "%s: %lld <= %lld <= marker %lld ns", fc->name,
                 (long long)ev->time, (long long)end->time, (long long)marker->time);
        /* 10% for the calibration of ticks against nanoseconds. */
        tt_check(marker->time - ev->time <= wall + wall / 10,
                 "%s: spans %lld ns, within the %lld ns measured around it", fc->name,
                 (long long)(marker->time - ev->time), (long long)wall);
    }
    tt_capture_free(cap);
    return tt_finish(fc->name);
}

/* Runs one case in a fresh process: this program again, given the case's name. */
static int spawn_case(const char *self, const struct first_case *fc)
{
    char *argv[] = {(char *)self, (char *)fc->name, NULL};
    pid_t pid;
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0)
        return -1;
    int status;
    if (!tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S))
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (size_t i = 0; i < NCASES; i++)
            if (strcmp(argv[1], cases[i].name) == 0)
                return run_case(&cases[i]);
        fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    /* The parent never calls the library: every case starts it afresh. */
    for (size_t i = 0; i < NCASES; i++)
        tt_check(spawn_case("/proc/self/exe", &cases[i]) == 0, "%s as the first call", cases[i].name);
    return tt_finish("test_first_event");
}

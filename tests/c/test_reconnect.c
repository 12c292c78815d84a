/* A server that goes away mid-stream never blocks or crashes the program, and a new
 * server can connect afterwards: zones open and locks held across the switch do not
 * corrupt it. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"tick", "main", "reconnect.c", 1, 0};
static const struct ___tracy_source_location_data span_loc = {"span", "main", "reconnect.c", 2, 0};
static const struct ___tracy_source_location_data lock_loc = {"held", "main", "reconnect.c", 3, 0};
static const struct ___tracy_source_location_data gpu_loc = {"gpu", "main", "reconnect.c", 4, 0};

static void tick(int n)
{
    for (int i = 0; i < n; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
}

/* Until ___tracy_connected() is want, for at most a minute (a hang guard, within the
 * phase's bound): the caller checks it where it must. */
static void wait_connected(int want)
{
    int64_t give_up = tcu_monotonic_ns() + 60 * 1000000000LL;
    while (___tracy_connected() != want && tcu_monotonic_ns() < give_up)
        usleep(1000);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    struct tt_capture *first = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, first);
    tt_phase("recording for the first capture, then its leaving", 120);
    wait_connected(1);
    CHECK_EQ_INT(___tracy_connected(), 1);
    TracyCZoneCtx span = ___tracy_emit_zone_begin(&span_loc, 1); /* open across the switch */
    struct __tracy_lockable_context_data *lock = ___tracy_announce_lockable_ctx(&lock_loc);
    ___tracy_before_lock_lockable_ctx(lock); /* held across the switch */
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_emit_gpu_new_context((struct ___tracy_gpu_new_context_data){0, 1.0f, 0, 0, 1});
    ___tracy_emit_gpu_zone_begin((struct ___tracy_gpu_zone_begin_data){(uint64_t)(uintptr_t)&gpu_loc, 1, 0});
    for (int i = 0; i < 5; i++)
        ___tracy_emit_frame_mark(NULL);
    ___tracy_emit_frame_mark_start("loading"); /* a discontinuous frame across the switch */
    tick(1000);
    /* Everything above has reached the first server once this message has (it waited 100 ms:
     * too short when samples came first, their symbols' first resolving on a loaded machine). */
    ___tracy_emit_message("first ticks sent", 16, 0);
    tt_wait_text(first, TCD_MESSAGE, (uint32_t)syscall(SYS_gettid), "first ticks sent");
    __atomic_store_n(&first->stop, 1, __ATOMIC_RELAXED); /* the first server leaves */
    CHECK_EQ_INT(tt_capture_join(first), 1);
    wait_connected(0);
    CHECK_EQ_INT(___tracy_connected(), 0);
    tick(1000); /* kept for the next server */
    struct tt_capture *second = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, second);
    tt_phase("recording for the second capture", 120);
    wait_connected(1);
    tick(1000);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_emit_frame_mark_end("loading");
    for (int i = 0; i < 3; i++)
        ___tracy_emit_frame_mark(NULL);
    static uint8_t pixels[4 * 4 * 4];
    ___tracy_emit_frame_image(pixels, 4, 4, 0, 0); /* the current frame: the second server's third */
    ___tracy_emit_gpu_zone_end((struct ___tracy_gpu_zone_end_data){2, 0}); /* the GPU zone open across it */
    ___tracy_emit_gpu_time((struct ___tracy_gpu_time_data){10, 1, 0});
    ___tracy_emit_gpu_time((struct ___tracy_gpu_time_data){20, 2, 0});
    ___tracy_emit_gpu_zone_begin((struct ___tracy_gpu_zone_begin_data){(uint64_t)(uintptr_t)&gpu_loc, 3, 0});
    ___tracy_emit_gpu_zone_end((struct ___tracy_gpu_zone_end_data){4, 0});
    ___tracy_emit_gpu_time((struct ___tracy_gpu_time_data){30, 3, 0});
    ___tracy_emit_gpu_time((struct ___tracy_gpu_time_data){40, 4, 0});
    ___tracy_before_lock_lockable_ctx(lock);
    ___tracy_after_lock_lockable_ctx(lock);
    ___tracy_after_unlock_lockable_ctx(lock);
    ___tracy_terminate_lockable_ctx(lock);
    ___tracy_emit_zone_end(span);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(second), 0);
    tt_phase_done();
    if (second->result)
        fprintf(stderr, "second capture: %s\n", second->err);
    CHECK(tt_count(first, TCD_ZONE_BEGIN) >= 1);
    /* The second server sees the 2000 later ticks, complete and balanced; the span
     * begun before it connected is not reported as an unmatched end. */
    CHECK(tt_count(second, TCD_ZONE_BEGIN) >= 2000);
    CHECK_EQ_INT(tt_count(second, TCD_ZONE_BEGIN), tt_count(second, TCD_ZONE_END));
    CHECK_EQ_INT(tcd_decoder_state(second->dec), TCD_STATE_DONE);
    /* The lock obtained before it connected is not released on it: a release of a lock
     * the server never saw obtained trips its lock bookkeeping. */
    tt_check(tt_count(second, TCD_LOCK_OBTAIN) == 1 && tt_count(second, TCD_LOCK_RELEASE) == 1,
             "the second server sees one obtain and one release of the lock (%zu, %zu)",
             tt_count(second, TCD_LOCK_OBTAIN), tt_count(second, TCD_LOCK_RELEASE));
    /* Likewise the end of the frame started before it, and frames count from its own first. */
    tt_check(tt_count(second, TCD_FRAME_END) == 0, "the second server gets no end of a frame it never saw start");
    const struct tcd_event *image = tt_nth(second, TCD_FRAME_IMAGE, 0);
    tt_check(image && image->id == 3 && tt_count(second, TCD_FRAME_MARK) == 3,
             "the image is of the second server's frame 3 (%lld) after its 3 frame marks (%zu)",
             image ? (long long)image->id : -1LL, tt_count(second, TCD_FRAME_MARK));
    /* Likewise the GPU zone begun before it: only the later zone and its two times. */
    tt_check(tt_count(second, TCD_GPU_CONTEXT) == 1 && tt_count(second, TCD_GPU_ZONE_BEGIN) == 1 &&
                 tt_count(second, TCD_GPU_ZONE_END) == 1 && tt_count(second, TCD_GPU_TIME) == 2,
             "the second server sees the GPU context, one GPU zone and its two times");
    tt_phase_describe(NULL, NULL); /* (the captures are freed) */
    tt_capture_free(first);
    tt_capture_free(second);
    return tt_finish("test_reconnect");
}

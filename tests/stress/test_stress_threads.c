/* Stress: 10,000 short-lived threads, each emitting a few nested zones and a message
 * then exiting, while a capture is connected. Nothing is lost, and nothing is kept:
 * once they have exited and been drained, the client holds no state for any of them
 * (and the ASan build's leak check finds nothing). (TSan builds start fewer threads.) */
#include "count_capture.h"
#include "client/state.h"
#include "client/stream.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define THREADS 2000
#else
#define THREADS 10000
#endif
#define ZONES 4  /* per thread: two pairs of nested zones */
#define BATCH 16 /* threads alive at once */

static const struct ___tracy_source_location_data outer_loc = {"outer", "short_lived", "stress_threads.c", 1, 0};
static const struct ___tracy_source_location_data inner_loc = {"inner", "short_lived", "stress_threads.c", 2, 0};

static void *short_lived(void *arg)
{
    (void)arg;
    for (int i = 0; i < ZONES / 2; i++) {
        TracyCZoneCtx outer = ___tracy_emit_zone_begin(&outer_loc, 1);
        TracyCZoneCtx inner = ___tracy_emit_zone_begin(&inner_loc, 1);
        ___tracy_emit_zone_end(inner);
        ___tracy_emit_zone_end(outer);
    }
    ___tracy_emit_messageL("bye", 0);
    return NULL;
}

/* Threads the client still keeps state for. */
static size_t registered_threads(void)
{
    size_t n = 0;
    pthread_mutex_lock(&tc_prof.threads_lock);
    for (struct tc_thread *t = tc_prof.threads; t; t = t->next)
        n++;
    pthread_mutex_unlock(&tc_prof.threads_lock);
    return n;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    struct cc_capture *cap = cc_start(port);
    while (!___tracy_connected())
        usleep(1000);

    for (int started = 0; started < THREADS; started += BATCH) {
        pthread_t t[BATCH];
        for (int i = 0; i < BATCH && started + i < THREADS; i++)
            pthread_create(&t[i], NULL, short_lived, NULL);
        for (int i = 0; i < BATCH && started + i < THREADS; i++)
            pthread_join(t[i], NULL);
    }
    /* The worker frees an exited thread's state once it has drained it. */
    while (registered_threads() > 0)
        usleep(1000);
    size_t buffered = atomic_load(&tc_buffer_bytes);
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(cc_join(cap), 0);
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);

    uint64_t zones = (uint64_t)THREADS * ZONES, messages = 0;
    for (size_t i = 0; i < CC_MAX_THREADS; i++)
        messages += cap->threads[i].messages;
    CHECK_EQ_INT(cap->by_kind[TCD_ZONE_BEGIN], zones);
    CHECK_EQ_INT(cap->by_kind[TCD_ZONE_END], zones);
    CHECK_EQ_INT(messages, THREADS);
    CHECK_EQ_INT(cap->nesting_errors, 0);
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    CHECK_EQ_INT(tcd_decoder_state(cap->dec), TCD_STATE_DONE);
    /* Only the serial stream's first chunk remains buffered, and the sampler's stream (it
     * runs while the capture is connected): its current chunk and at most four drained
     * ones kept for reuse (core/client/stream.c). */
    CHECK(buffered <= (size_t)(1 + 5) * (128 << 10));
    printf("stress threads: %d threads x %d zones: events sent %llu, received %llu, dropped %llu; "
           "%zu bytes buffered after they exited\n",
           THREADS, ZONES, (unsigned long long)(2 * zones + THREADS),
           (unsigned long long)(cap->by_kind[TCD_ZONE_BEGIN] + cap->by_kind[TCD_ZONE_END] + messages),
           (unsigned long long)tracyc_dropped_events(), buffered);
    cc_free(cap);
    return tt_finish("test_stress_threads");
}

/* Stress: 16 threads x 1,000,000 zones, with messages and plots, into a connected
 * capture. Every event is counted on arrival: nothing is lost, nothing is dropped, and
 * each thread's zones nest. (Sanitizer builds send fewer zones per thread.) */
#include "count_capture.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 16
#if defined(__SANITIZE_THREAD__)
#define ZONES 20000
#elif defined(__SANITIZE_ADDRESS__)
#define ZONES 100000
#else
#define ZONES 1000000
#endif
#define EVERY 64 /* a message and a plot point every EVERY zones */

static const struct ___tracy_source_location_data loc = {"stress", "worker", "stress_zones.c", 1, 0};

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ZONES; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        if (i % EVERY == 0) {
            ___tracy_emit_messageL("stress message", 0);
            ___tracy_emit_plot("stress plot", (double)i);
        }
        ___tracy_emit_zone_end(z);
    }
    return NULL;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    setenv("TRACYC_BUFFER_LIMIT", "4G", 1); /* a slow moment of the capture must not drop */
    ___tracy_startup_profiler();
    struct cc_capture *cap = cc_start(port);
    while (!___tracy_connected())
        usleep(1000);

    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    ___tracy_shutdown_profiler();
    CHECK_EQ_INT(cc_join(cap), 0);
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);

    const uint64_t per_thread_messages = (ZONES + EVERY - 1) / EVERY;
    double plot_sum = 0;
    for (int i = 0; i < ZONES; i += EVERY)
        plot_sum += i;
    plot_sum *= THREADS;
    size_t with_zones = 0;
    for (size_t i = 0; i < CC_MAX_THREADS; i++) {
        const struct cc_thread *th = &cap->threads[i];
        if (!th->id || !th->zones)
            continue;
        with_zones++;
        CHECK_EQ_INT(th->zones, ZONES);
        CHECK_EQ_INT(th->messages, per_thread_messages);
        CHECK_EQ_INT(th->depth, 0);
    }
    CHECK_EQ_INT(with_zones, THREADS);
    CHECK_EQ_INT(cap->by_kind[TCD_ZONE_BEGIN], (uint64_t)THREADS * ZONES);
    CHECK_EQ_INT(cap->by_kind[TCD_ZONE_END], (uint64_t)THREADS * ZONES);
    CHECK_EQ_INT(cap->by_kind[TCD_PLOT], THREADS * per_thread_messages);
    CHECK(cap->plot_sum == plot_sum);
    CHECK_EQ_INT(cap->nesting_errors, 0);
    CHECK_EQ_INT(cap->by_kind[TCD_DROPPED], 0);
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    CHECK_EQ_INT(tcd_decoder_state(cap->dec), TCD_STATE_DONE);

    uint64_t sent = (uint64_t)THREADS * (2 * ZONES + 2 * per_thread_messages);
    uint64_t received = cap->by_kind[TCD_ZONE_BEGIN] + cap->by_kind[TCD_ZONE_END] + cap->by_kind[TCD_PLOT];
    for (size_t i = 0; i < CC_MAX_THREADS; i++)
        received += cap->threads[i].messages;
    printf("stress zones: %d threads x %d zones: events sent %llu, received %llu, dropped %llu\n", THREADS, ZONES,
           (unsigned long long)sent, (unsigned long long)received, (unsigned long long)tracyc_dropped_events());
    CHECK_EQ_INT(received, sent);
    cc_free(cap);
    return tt_finish("test_stress_zones");
}

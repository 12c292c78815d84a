/* A capture whose decoder fails says so, in its output file and in its exit status: the
 * in-process capture (the program exits with 1 instead of 0) and tracyc-capture (2). The
 * failure is an item the API refuses to make -- a frame end with no start, which a server
 * rejects as "Discontinuous frame begin/end mismatch" -- written straight into the serial
 * stream, as a client with that defect would send it. */
#include "clock.h"
#include "profiler.h"
#include "record.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <unistd.h>

static const struct ___tracy_source_location_data before = {"before the failure", "main", "decoder.c", 1, 0};

/* Once the worker has taken this thread's records (a zone): the failure comes after it. */
static void wait_drained(void)
{
    while (!tc_stream_empty(&tc_self->stream))
        usleep(1000);
}

static void unmatched_frame_end(void)
{
    static const char name[] = "never started";
    struct tc_rec *r = tc_serial_reserve(TC_REC_FRAME_END, 0, 0);
    if (!r)
        exit(3);
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = (uint64_t)(uintptr_t)name;
    tc_serial_commit();
}

/* A program profiling itself into the file at arg (TRACYC_OUTPUT); it exits with 0. */
static int in_process(void *arg)
{
    setenv("TRACYC_OUTPUT", arg, 1);
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&before, 1);
    ___tracy_emit_zone_end(z);
    wait_drained();
    unmatched_frame_end();
    exit(0); /* not _exit: the capture is written at exit */
}

/* A program profiled by tracyc-capture on the port at arg. */
static int over_tcp(void *arg)
{
    char port[16];
    snprintf(port, sizeof port, "%u", *(uint16_t *)arg);
    setenv("TRACY_PORT", port, 1);
    ___tracy_startup_profiler();
    while (!___tracy_connected())
        usleep(1000);
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&before, 1);
    ___tracy_emit_zone_end(z);
    wait_drained();
    unmatched_frame_end();
    ___tracy_shutdown_profiler();
    return 0;
}

int main(void)
{
    char json[] = "/tmp/tracyc-decoder-failed-XXXXXX.json";
    close(mkstemps(json, 5));
    CHECK_EQ_INT(tf_wait(tf_fork(in_process, json)), 1);
    char *text = tf_read_file(json);
    CHECK(text && strstr(text, "\"incomplete\":\"the capture failed") && strstr(text, "Discontinuous frame"));
    CHECK(text && strstr(text, "\"ph\":\"X\"")); /* the zone before it (its name may not have come) */
    free(text);
    unlink(json);

    uint16_t port = tt_use_free_port();
    char summary[] = "/tmp/tracyc-decoder-failed-XXXXXX.txt";
    close(mkstemps(summary, 4));
    pid_t capture = tf_spawn_capture(port, summary);
    pid_t program = tf_fork(over_tcp, &port);
    CHECK_EQ_INT(tf_wait(capture), 2);
    CHECK_EQ_INT(tf_wait(program), 0);
    text = tf_read_file(summary);
    CHECK(text && strstr(text, "!! Capture incomplete (Discontinuous frame"));
    free(text);
    unlink(summary);
    return tt_finish("test_fault_decoder_failed");
}

/* A capture whose decoder fails says so, in its output file and in its exit status: the
 * in-process capture (the program exits with 1 instead of 0) and tracyc-capture (2). The
 * failure is an item the API refuses to make -- a frame end with no start, which a server
 * rejects as "Discontinuous frame begin/end mismatch" -- written straight into the serial
 * stream, as a client with that defect would send it. App info, also serial, goes before
 * it: what came before the failure is in the file. */
#include "clock.h"
#include "profiler.h"
#include "record.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <unistd.h>

static void before_the_failure(void)
{
    static const char text[] = "before the failure";
    ___tracy_emit_message_appinfo(text, sizeof text - 1);
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
    before_the_failure();
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
    before_the_failure();
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
    CHECK(text && strstr(text, "\"app_info\":[\"before the failure\"]"));
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
    CHECK(text && strstr(text, "App info: before the failure"));
    free(text);
    unlink(summary);
    return tt_finish("test_fault_decoder_failed");
}

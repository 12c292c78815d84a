/* A capture whose decoder fails says so in its output file: the in-process capture (the
 * program's exit status stays its own, 0) and tracyc-capture (which exits with 2). The
 * failure is an item the API never makes -- a wait on a lock that was never announced,
 * which a server rejects -- written straight into the serial stream, as a client with
 * that defect would send it. App info, also serial, goes before it: what came before the
 * failure is in the file. */
#include "client/api.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static void before_the_failure(void)
{
    static const char text[] = "before the failure";
    ___tracy_emit_message_appinfo(text, sizeof text - 1);
}

static void unannounced_lock_wait(void)
{
    union tc_rec *r = tc_serial_reserve(TC_REC_LOCK_WAIT, 0, 0);
    if (!r)
        exit(3);
    r->lock_event.lock = 12345;
    r->lock_event.time = tc_clock_now();
    r->lock_event.thread = tc_current_tid();
    tc_serial_commit();
}

/* A program profiling itself into the file at arg (TRACYC_OUTPUT); it exits with 0. */
static int in_process(void *arg)
{
    setenv("TRACYC_OUTPUT", arg, 1);
    before_the_failure();
    unannounced_lock_wait();
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
    unannounced_lock_wait();
    ___tracy_shutdown_profiler();
    return 0;
}

int main(void)
{
    char json[PATH_MAX];
    tt_temp_path(json, sizeof json, "tracyc-decoder-failed-XXXXXX.json");
    close(mkstemps(json, 5));
    CHECK_EQ_INT(tf_wait(tf_fork(in_process, json)), 0);
    char *text = tt_read_file(json);
    CHECK(text && strstr(text, "\"incomplete\":\"the capture failed") && strstr(text, "lock that was not announced"));
    CHECK(text && strstr(text, "\"app_info\":[\"before the failure\"]"));
    free(text);
    unlink(json);

    uint16_t port = tt_use_free_port();
    char summary[PATH_MAX];
    tt_temp_path(summary, sizeof summary, "tracyc-decoder-failed-XXXXXX.txt");
    close(mkstemps(summary, 4));
    pid_t capture = tf_spawn_capture(port, summary);
    pid_t program = tf_fork(over_tcp, &port);
    CHECK_EQ_INT(tf_wait(capture), 2);
    CHECK_EQ_INT(tf_wait(program), 0);
    text = tt_read_file(summary);
    CHECK(text && strstr(text, "!! Capture incomplete (lock event for a lock that was not announced"));
    CHECK(text && strstr(text, "App info: before the failure"));
    free(text);
    unlink(summary);
    return tt_finish("test_fault_decoder_failed");
}

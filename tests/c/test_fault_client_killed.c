/* The program being profiled is killed (SIGKILL) in the middle of a capture: the
 * capture (the tracyc-capture tool) writes what it received, says it is incomplete, and
 * exits with status 1. The program is a forked child of this test, so that it is killed
 * at a known point: after the zones it recorded so far were sent. Its zones carry their
 * source location inline, so their names need no answer from the dead program. */
#include "client/state.h"
#include "test_child.h"
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#define ZONES 10000

static void zone(void)
{
    static const char file[] = "client_killed.c", function[] = "main", name[] = "doomed";
    uint64_t loc =
        ___tracy_alloc_srcloc_name(1, file, sizeof file - 1, function, sizeof function - 1, name, sizeof name - 1, 0);
    TracyCZoneCtx z = ___tracy_emit_zone_begin_alloc(loc, 1);
    ___tracy_emit_zone_end(z);
}

/* Waits until the worker has drained this thread's records (asked from this thread: the
 * producer's side, which a consumer's tc_stream_empty is not). A drain pass ends by
 * flushing to the socket, so after two of them the earlier records have been sent. */
static int wait_sent(void)
{
    for (int pass = 0; pass < 2; pass++) {
        zone();
        for (int ms = 0; !tc_stream_drained(&tc_self->stream); ms++) {
            if (ms == TT_PROGRAM_WAIT_S * 1000)
                return -1;
            usleep(1000);
        }
    }
    return 0;
}

/* The child: records zones, tells the parent once they were sent, then keeps recording
 * until it is killed. */
static int doomed_program(void *arg)
{
    int ready_fd = *(int *)arg;
    ___tracy_startup_profiler();
    for (int ms = 0; !___tracy_connected(); ms++) {
        if (ms == TT_PROGRAM_WAIT_S * 1000)
            return 4; /* the parent's read ends: the pipe closes */
        usleep(1000);
    }
    for (int i = 0; i < ZONES; i++)
        zone();
    if (wait_sent() != 0)
        return 5;
    if (write(ready_fd, "s", 1) != 1)
        return 3;
    for (;;) {
        zone();
        usleep(100);
    }
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    char output[PATH_MAX];
    tt_temp_path(output, sizeof output, "tracyc-client-killed-XXXXXX.txt");
    close(mkstemps(output, 4));
    int ready[2];
    if (pipe(ready) != 0)
        return 2;
    pid_t program = tf_fork(doomed_program, &ready[1]);
    close(ready[1]); /* a child that dies early ends the read below */
    pid_t capture = tf_spawn_capture(port, output);
    char c;
    CHECK(tt_readable_within(ready[0], TT_PROGRAM_WAIT_S) && read(ready[0], &c, 1) == 1);
    kill(program, SIGKILL);
    CHECK_EQ_INT(tf_wait(program), 128 + SIGKILL);
    CHECK_EQ_INT(tf_wait(capture), 1); /* incomplete */

    char *summary = tt_read_file(output);
    CHECK(summary != NULL);
    if (summary) {
        CHECK(strstr(summary, "Capture incomplete") != NULL);
        CHECK(strstr(summary, "doomed") != NULL);
        /* The zones sent before the kill arrived; how many later ones did is up to the kill. */
        const char *line = strstr(summary, "Captured ");
        char count[32] = "";
        CHECK(line && sscanf(line, "Captured %*[^:]: %31[0-9,] zones", count) == 1);
        size_t digits = 0;
        unsigned long long zones = 0;
        for (const char *p = count; *p; p++)
            if (*p != ',')
                zones = zones * 10 + (unsigned long long)(*p - '0'), digits++;
        CHECK(digits > 0 && zones >= ZONES + 2);
        printf("client killed: the capture wrote %zu bytes of summary with %llu zones (%d sent before the kill)\n",
               strlen(summary), zones, ZONES + 2);
        free(summary);
    }
    unlink(output);
    return tt_finish("test_fault_client_killed");
}

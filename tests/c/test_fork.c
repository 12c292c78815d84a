/* A forked child never writes into the parent's connection; the parent's capture is
 * complete and contains only the parent's events. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct ___tracy_source_location_data parent_loc = {"parent", "main", "fork.c", 1, 0};
static const struct ___tracy_source_location_data child_loc = {"child", "main", "fork.c", 2, 0};

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&parent_loc, 1);
    ___tracy_emit_zone_end(z);
    /* Forked while connected: that connection is the one the child must not write into. */
    int64_t give_up = tcu_monotonic_ns() + 60 * 1000000000LL; /* a hang guard: load only slows it */
    while (!___tracy_connected() && tcu_monotonic_ns() < give_up)
        usleep(10000);
    tt_check(___tracy_connected(), "the parent is connected before the fork (waited up to 60 s)");
    pid_t pid = fork();
    if (pid == 0) {
        for (int i = 0; i < 1000; i++) {
            TracyCZoneCtx c = ___tracy_emit_zone_begin(&child_loc, 1);
            ___tracy_emit_zone_end(c);
        }
        ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0, 0, "from the child");
        _exit(tracyc_disabled() ? 0 : 3);
    }
    int status = 0;
    int ended = tt_child_ended(pid, &status, 30);
    tt_check(ended && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child exits with 0 (%s, status %#x)",
             ended ? "ended" : "hung: killed after 30 s", status);
    z = ___tracy_emit_zone_begin(&parent_loc, 1);
    ___tracy_emit_zone_end(z);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), 2);
    CHECK(tt_find_text(cap, TCD_MESSAGE, "from the child") == NULL);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_fork");
}

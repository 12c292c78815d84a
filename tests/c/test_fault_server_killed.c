/* The server is killed (SIGKILL, no goodbye) in the middle of a capture, then a new one
 * connects: the program neither crashes nor blocks, the zone open across the switch
 * does not corrupt the new capture, and the new server receives exactly what was
 * recorded after the old one was gone. */
#include "test_capture.h"
#include "test_fault_util.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#define ZONES 20000

static const struct ___tracy_source_location_data first_loc = {"first", "main", "server_killed.c", 1, 0};
static const struct ___tracy_source_location_data between_loc = {"between", "main", "server_killed.c", 2, 0};
static const struct ___tracy_source_location_data second_loc = {"second", "main", "server_killed.c", 3, 0};
static const struct ___tracy_source_location_data span_loc = {"span", "main", "server_killed.c", 4, 0};

static size_t count_named(const struct tt_capture *cap, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *e = &cap->events[i].ev;
        n += e->kind == TCD_ZONE_BEGIN && strcmp(tcd_srcloc(cap->dec, e->srcloc)->name, name) == 0;
    }
    return n;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    char output[PATH_MAX];
    tt_temp_path(output, sizeof output, "tracyc-killed-XXXXXX");
    close(mkstemp(output));
    pid_t first = tf_spawn_capture(port, output);
    tt_phase("waiting for tracyc-capture to connect", 120);
    while (!___tracy_connected())
        usleep(1000);
    tt_phase_done();
    TracyCZoneCtx span = ___tracy_emit_zone_begin(&span_loc, 1); /* open across the switch */
    tt_zones(&first_loc, ZONES);
    kill(first, SIGKILL);
    CHECK_EQ_INT(tf_wait(first), 128 + SIGKILL);
    /* The client notices when it next talks to the dead socket: keep recording. */
    tt_phase("recording until the client notices the killed server", 120);
    while (___tracy_connected())
        tt_zones(&first_loc, 100);
    tt_phase_done();

    tt_zones(&between_loc, ZONES); /* nobody connected: kept for the next server */
    struct tt_capture *second = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, second);
    tt_phase("waiting for the second capture to connect", 120);
    while (!___tracy_connected())
        usleep(1000);
    tt_phase_done();
    tt_zones(&second_loc, ZONES);
    ___tracy_emit_zone_end(span);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(second), 0);
    tt_phase_done();
    if (second->result)
        fprintf(stderr, "second capture: %s\n", second->err);
    CHECK_EQ_INT(count_named(second, "between"), ZONES);
    CHECK_EQ_INT(count_named(second, "second"), ZONES);
    CHECK_EQ_INT(count_named(second, "span"), 0); /* begun on the dead connection */
    CHECK_EQ_INT(tt_count(second, TCD_ZONE_BEGIN), tt_count(second, TCD_ZONE_END));
    CHECK_EQ_INT(tcd_decoder_state(second->dec), TCD_STATE_DONE);
    CHECK_EQ_INT(tracyc_dropped_events(), 0);
    printf("server killed: the new server got %zu zones (%d recorded after the old one died)\n",
           tt_count(second, TCD_ZONE_BEGIN), 2 * ZONES);
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(second);
    unlink(output);
    return tt_finish("test_fault_server_killed");
}

/* Servers of different protocol versions, one after the other, in one run of a program:
 * 0.13 (76), then 0.14 (82), then 0.10 (64). Each is answered in its own version; the
 * set-up a new server needs (lock announcement, plot configuration) is replayed to it in
 * its version; what a version lacks is not sent, and the last server, at exit, gets the
 * one message saying so. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct ___tracy_source_location_data loc = {"tick", "main", "versions.c", 1, 0};
static const struct ___tracy_source_location_data lock_loc = {NULL, "main", "versions.c", 2, 0};

static void tick(int n)
{
    for (int i = 0; i < n; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
        ___tracy_emit_zone_end(z);
    }
}

static void wait_connected(int want)
{
    for (int i = 0; i < 5000 && ___tracy_connected() != want; i++)
        usleep(1000);
}

/* Events of every kind the versions disagree on, while a server is connected. */
static void mixed(void)
{
    tick(500);
    ___tracy_emit_logString(TracyMessageSeverityError, 0, 0, 5, "error");
    uint32_t id = tracyc_section_enter(2, "section", 7);
    tracyc_section_leave(id);
    ___tracy_emit_plot("plot", 1.5);
}

static void check_server(struct tt_capture *c, uint32_t protocol, const char *what)
{
    tt_check(tcd_decoder_version(c->dec) == protocol, "%s: answered in protocol %u (%u)", what, protocol,
             tcd_decoder_version(c->dec));
    tt_check(tcd_decoder_state(c->dec) != TCD_STATE_FAILED, "%s: the stream decodes (%s)", what,
             tcd_decoder_error(c->dec));
    tt_check(tt_count(c, TCD_ZONE_BEGIN) >= 1 && tt_count(c, TCD_LOCK_ANNOUNCE) == 1 &&
                 tt_count(c, TCD_PLOT_CONFIG) == 1,
             "%s: zones, and the lock and plot set-up replayed", what);
    const struct tcd_event *e = tt_find_text(c, TCD_MESSAGE, "error");
    if (e)
        tt_check(e->severity == (protocol == 82 ? TracyMessageSeverityError : TracyMessageSeverityInfo),
                 "%s: message severity as the version carries it", what);
    tt_check(tt_count(c, TCD_SECTION_ENTER) == 0 || protocol == 82, "%s: sections only in 82", what);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    ___tracy_startup_profiler();
    struct __tracy_lockable_context_data *lock = ___tracy_announce_lockable_ctx(&lock_loc);
    ___tracy_emit_plot_config("plot", TracyPlotFormatNumber, 0, 1, 0);

    static const uint32_t protocols[] = {76, 82};
    struct tt_capture *caps[2];
    for (int i = 0; i < 2; i++) {
        caps[i] = tt_capture_start_protocol(port, protocols[i]);
        tt_phase_describe(tt_capture_describe, caps[i]);
        tt_phase("recording for a capture (protocol 76, then 82) until it has the last message, then its leaving", 120);
        wait_connected(1);
        mixed();
        /* Everything mixed() recorded has reached this server once its last message has. */
        tt_wait_text(caps[i], TCD_MESSAGE, (uint32_t)syscall(SYS_gettid), "error");
        __atomic_store_n(&caps[i]->stop, 1, __ATOMIC_RELAXED); /* this server leaves */
        tt_capture_join(caps[i]);
        wait_connected(0);
    }
    struct tt_capture *last = tt_capture_start_protocol(port, 64);
    tt_phase_describe(tt_capture_describe, last);
    tt_phase("recording for the protocol 64 capture", 120);
    wait_connected(1);
    tick(1000);
    uint32_t id = tracyc_section_enter(2, "late section", 12);
    tracyc_section_leave(id);
    ___tracy_terminate_lockable_ctx(lock);
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(last), 0);
    tt_phase_done();

    check_server(caps[0], 76, "0.13 server");
    check_server(caps[1], 82, "0.14 server, after it");
    check_server(last, 64, "0.10 server, last");
    CHECK_EQ_INT(tcd_decoder_state(last->dec), TCD_STATE_DONE);
    CHECK(tt_count(last, TCD_ZONE_BEGIN) >= 1000 && tt_count(last, TCD_ZONE_BEGIN) == tt_count(last, TCD_ZONE_END));
    /* The last server got the two section events of its time, and nothing else it lacks. */
    const struct tcd_event *note =
        tt_find_text(last, TCD_MESSAGE,
                     "tracyc: not sent to this server, whose protocol 64 (Tracy 0.10) lacks them: 2 section events");
    tt_check(note != NULL, "0.10 server: one message says what was not sent");
    tt_phase_describe(NULL, NULL); /* (the captures are freed) */
    for (int i = 0; i < 2; i++)
        tt_capture_free(caps[i]);
    tt_capture_free(last);
    return tt_finish("test_reconnect_versions");
}

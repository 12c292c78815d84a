/* A program calls exit() from inside a zone: the capture still completes at once and is
 * written, with the zone ended at exit and marked "still open at exit". Both captures: tracyc-capture over TCP (the
 * program waits for it at exit with TRACY_NO_EXIT=1) and the in-process capture
 * (TRACYC_OUTPUT). Each program is a forked child of this test. */
#include "test_fault_util.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

static const struct ___tracy_source_location_data done_loc = {"finished", "main", "exit_in_zone.c", 1, 0};
static const struct ___tracy_source_location_data exit_loc = {"exiting", "main", "exit_in_zone.c", 2, 0};

static void record_then_exit(void)
{
    for (int i = 0; i < 1000; i++) {
        TracyCZoneCtx z = ___tracy_emit_zone_begin(&done_loc, 1);
        ___tracy_emit_zone_end(z);
    }
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&exit_loc, 1);
    (void)z;
    ___tracy_emit_messageL("about to exit", 0);
    exit(0); /* atexit handlers run inside the zone */
}

static int program_for_server(void *arg)
{
    (void)arg;
    setenv("TRACY_NO_EXIT", "1", 1);
    record_then_exit();
    return 1;
}

static int program_in_process(void *arg)
{
    setenv("TRACYC_OUTPUT", arg, 1);
    record_then_exit();
    return 1;
}

static void check_output(const char *path, const char *open_mark)
{
    char *text = tt_read_file(path);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK(strstr(text, "finished") != NULL);
    CHECK(strstr(text, "exiting") != NULL);
    CHECK(strstr(text, open_mark) != NULL);
    free(text);
}

int main(void)
{
    uint16_t port = tt_use_free_port();

    char summary[PATH_MAX];

    tt_temp_path(summary, sizeof summary, "tracyc-exit-XXXXXX.json");
    close(mkstemps(summary, 5));
    pid_t program = tf_fork(program_for_server, NULL);
    pid_t capture = tf_spawn_capture(port, summary);
    CHECK_EQ_INT(tf_wait(program), 0);
    CHECK_EQ_INT(tf_wait(capture), 0); /* complete */
    check_output(summary, "still open at exit");
    unlink(summary);

    char json[PATH_MAX];

    tt_temp_path(json, sizeof json, "tracyc-exit-XXXXXX.json");
    close(mkstemps(json, 5));
    program = tf_fork(program_in_process, json);
    CHECK_EQ_INT(tf_wait(program), 0);
    check_output(json, "still open at exit");
    unlink(json);
    return tt_finish("test_fault_exit_in_zone");
}

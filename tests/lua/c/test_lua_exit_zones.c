/* Zones still open when a Lua program calls os.exit end at the exit, not when the
 * profiler has finished shutting down (joining its threads, draining, waiting for a
 * server: they once came out ~20 ms long). A forked child runs the Lua program with
 * TRACY_NO_EXIT=1; another of its threads records a message once the exit has begun,
 * then tells this process to connect the capture. Every zone open at the exit, in the
 * main thread and in a suspended coroutine, must end after the program's last message
 * and before that one. */
#include "client/state.h"
#include "lua_host.h"
#include "test_child.h"
#include "test_phase.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *program = "local co = coroutine.wrap(function()\n"
                             "  tracy.ZoneBeginN('open in a coroutine') coroutine.yield()\n"
                             "end)\n"
                             "co()\n"
                             "tracy.ZoneBeginN('open at exit')\n"
                             "tracy.Message('before exit')\n"
                             "os.exit(0)\n";

static int ready[2]; /* the child writes a byte once its exit has begun */
static pthread_barrier_t started;

static void *after_exit_began(void *arg)
{
    (void)arg;
    /* A thread that has recorded before records during the shutdown without the lock
     * the shutdown holds. */
    ___tracy_emit_messageL("recording thread", 0);
    pthread_barrier_wait(&started);
    while (atomic_load(&tc_prof.state) != TC_STATE_STOPPING)
        sched_yield();
    ___tracy_emit_messageL("after exit began", 0);
    char byte = 1;
    if (write(ready[1], &byte, 1) != 1)
        _exit(3);
    return NULL;
}

static void child(void)
{
    setenv("TRACY_NO_EXIT", "1", 1);
    lua_State *L = lh_state();
    pthread_t thread;
    pthread_barrier_init(&started, NULL, 2);
    if (pthread_create(&thread, NULL, after_exit_began, NULL) != 0)
        _exit(4);
    pthread_barrier_wait(&started);
    lh_run(L, "@exit.lua", program);
    _exit(5); /* os.exit did not exit */
}

static void check_ended_at_exit(const struct lh_trace *t, const char *name, const struct tcd_event *before,
                                const struct tcd_event *after)
{
    const struct lh_zone *z = lh_find(t, name);
    CHECK(z && before && after);
    if (!z || !before || !after)
        return;
    tt_check(z->end >= before->time && z->end <= after->time,
             "%s: ended at %lld, between the last message (%lld) and one recorded after the exit began (%lld)", name,
             (long long)z->end, (long long)before->time, (long long)after->time);
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    if (pipe(ready) != 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0)
        child();
    close(ready[1]);
    char byte;
    tt_check(tt_readable_within(ready[0], TT_PROGRAM_WAIT_S) && read(ready[0], &byte, 1) == 1,
             "the child's exit began within %d s", TT_PROGRAM_WAIT_S);
    struct tt_capture *cap = tt_capture_start(port);
    int status = 0;
    CHECK(tt_child_ended(pid, &status, 60));
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    tt_phase_describe(tt_capture_describe, cap);
    tt_phase("joining the capture thread: the capture of the exited child ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);
    const struct tcd_event *before = tt_find_text(cap, TCD_MESSAGE, "before exit");
    const struct tcd_event *after = tt_find_text(cap, TCD_MESSAGE, "after exit began");
    check_ended_at_exit(&t, "open at exit", before, after);
    check_ended_at_exit(&t, "open in a coroutine", before, after);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_exit_zones");
}

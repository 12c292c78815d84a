/* With TRACYC_FOLLOW_FORK=1 a forked child profiles on its own, with nothing of its
 * parent's: the frame sets and sections its parent had open are not open in the child
 * (an end there would reach the child's server with no start), and their locks, which
 * another thread of the parent may have held at the fork, start anew. The parent's own
 * stay open. */
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char frames[] = "loading"; /* one pointer: the frame set's identity */

/* In the child: 0 when both ends are refused as not open; a bit per one accepted. */
static int child(uint32_t section)
{
    int accepted = 0;
    ___tracy_emit_frame_mark_end(frames);
    if (!strstr(tracyc_last_error(), "has no FrameMarkStart open"))
        accepted |= 1;
    if (tracyc_section_leave(section) == 0)
        accepted |= 2;
    return accepted;
}

int main(void)
{
#ifdef __SANITIZE_ADDRESS__
    /* The child starts a profiler of its own, whose worker allocates: AddressSanitizer's
     * allocator keeps no lock across fork(), so a lock the parent's worker held then (its
     * dialling allocates) would stay taken in the child (test_children.c says more). */
    puts("skip: a forked child's own profiler under AddressSanitizer");
    return 77;
#endif
    /* A collector nobody runs: parent and child dial it, and neither listens. */
    char connect[64];
    snprintf(connect, sizeof connect, "127.0.0.1:%u", (unsigned)tt_use_free_port());
    setenv("TRACYC_CONNECT", connect, 1);
    setenv("TRACYC_FOLLOW_FORK", "1", 1);
    ___tracy_startup_profiler();
    ___tracy_emit_frame_mark_start(frames);
    uint32_t section = tracyc_section_enter(1, "setup", 5);
    CHECK(section != 0);

    pid_t pid = fork();
    if (pid == 0)
        _exit(child(section));
    int status = -1;
    tt_child_ended(pid, &status, 60);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
             "the child refused the parent's frame set and section (wait status %#x: 1 frame end, 2 section "
             "leave accepted)",
             status);

    ___tracy_emit_frame_mark_end(frames);
    CHECK(!strstr(tracyc_last_error(), "has no FrameMarkStart open"));
    CHECK(tracyc_section_leave(section) == 0);
    ___tracy_shutdown_profiler();
    return tt_finish("test_fork_open_sets");
}

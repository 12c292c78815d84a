/* Child processes recorded with their parent (issue 19 items 3 and 4).
 *
 *   - TRACYC_FOLLOW_FORK=1 with TRACYC_CONNECT: a forked child starts a profiler of its own
 *     and dials the parent's collector (tests/support/test_collector.c, through the
 *     decoder): its own welcome and pid, its zones and none of the parent's;
 *   - the in-process capture collects children (tracyc_collect_children(1)): a child
 *     started with exec (this program again) dials the parent's socket, and the parent's
 *     -o file (Chrome JSON) holds both processes, the child's zones between the parent's
 *     zone before the child started and its zone after the child ended; the child writes
 *     no file of its own;
 *   - the same with TRACYC_FOLLOW_FORK=1 and TRACYC_OUTPUT, for a forked child;
 *   - and again with the parent's last clock readings held up in their middle, as by a busy
 *     machine's scheduler: the child still lies between the parent's zones.
 *
 * Each case runs in a child process: a profiler's shutdown is final. Every process started
 * is waited for by its pid. The forked children's own profilers run in the normal build
 * only (main() says why).
 */
#include "test_collector.h"
#include "test_fault_util.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct ___tracy_source_location_data before_loc = {"parent before", "main", "children.c", 1, 0};
static const struct ___tracy_source_location_data after_loc = {"parent after", "main", "children.c", 2, 0};
static const struct ___tracy_source_location_data child_loc = {"child work", "child", "children.c", 3, 0};

static int finish(const char *name)
{
    int rc = tt_finish(name);
    fflush(stdout); /* the child ends with _exit */
    return rc;
}

/* The child's part: zones, then exit (the profiler's at-exit sends everything). */
static void child_work(void)
{
    tt_zones(&child_loc, 50);
    exit(0);
}

static int wait_child(pid_t pid)
{
    int status;
    return tt_child_ended(pid, &status, 60) && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Zones of one source location's name a client sent. */
static size_t zones_named(const struct tcol_client *cl, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < cl->len; i++) {
        const struct tcd_event *ev = &cl->events[i].ev;
        n += ev->kind == TCD_ZONE_BEGIN && strcmp(tcd_srcloc(cl->dec, ev->srcloc)->name, name) == 0;
    }
    return n;
}

/* The library's clock_gettime (this program's definition comes before libc's). While
 * stall_readings is set, each CLOCK_MONOTONIC_RAW read returns 100 ms after it was taken.
 * A clock reading (client/conn_clock.c) reads the event clock, CLOCK_MONOTONIC_RAW, the
 * event clock again and CLOCK_REALTIME: each reading the shutdown takes is held up between
 * its raw clock and its second read of the event clock, as a thread the scheduler takes off
 * its CPU there would be. */
static atomic_int stall_readings, stalled_reads;

int clock_gettime(clockid_t id, struct timespec *ts)
{
    int rc = (int)syscall(SYS_clock_gettime, id, ts);
    if (atomic_load(&stall_readings) && id == CLOCK_MONOTONIC_RAW) {
        nanosleep(&(struct timespec){0, 100000000}, NULL);
        atomic_fetch_add(&stalled_reads, 1);
    }
    return rc;
}

/* ---- TRACYC_FOLLOW_FORK=1 with TRACYC_CONNECT ------------------------------------------------ */

static int fork_dials_out(void *arg)
{
    (void)arg;
    struct tcol *col = tcol_start(0);
    char value[32];
    snprintf(value, sizeof value, "127.0.0.1:%u", tcol_port(col));
    setenv("TRACYC_CONNECT", value, 1);
    setenv("TRACYC_FOLLOW_FORK", "1", 1);
    tt_zones(&before_loc, 20);
    fflush(stdout); /* the child exits through stdio */
    pid_t child = fork();
    if (child == 0)
        child_work();
    tt_check(wait_child(child), "the forked child exits cleanly");
    tt_zones(&after_loc, 20);
    ___tracy_shutdown_profiler();
    tcol_wait_ended(col, 2);
    struct tcol_client *p = tcol_client_of_pid(col, (uint64_t)getpid());
    struct tcol_client *c = tcol_client_of_pid(col, (uint64_t)child);
    tt_check(tcol_clients(col) == 2 && p && c, "two clients: the parent and the child (%zu)", tcol_clients(col));
    if (p && c) {
        tt_check(p->end == TCOL_COMPLETE && c->end == TCOL_COMPLETE, "both complete (%s / %s)", p->err, c->err);
        tt_check(zones_named(c, "child work") == 50, "the child's zones, from its own profiler (%zu)",
                 zones_named(c, "child work"));
        tt_check(zones_named(c, "parent before") == 0, "none of the parent's zones in the child (%zu)",
                 zones_named(c, "parent before"));
        tt_check(zones_named(p, "parent before") == 20 && zones_named(p, "parent after") == 20 &&
                     zones_named(p, "child work") == 0,
                 "the parent's zones in the parent only");
    }
    tcol_free(col);
    return finish("test_children (fork, TRACYC_CONNECT)");
}

/* ---- the in-process capture collects its children ---------------------------------------------- */

static char self_path[4096];

/* The first "ts" of a zone named `name` of process `pid` in Chrome JSON (the first or, with
 * `last`, the last one), or -1. */
static double zone_ts(const char *json, const char *name, long pid, int last)
{
    char head[160];
    snprintf(head, sizeof head, "{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%ld,", name, pid);
    double ts = -1;
    for (const char *at = strstr(json, head); at; at = strstr(at + 1, head)) {
        const char *t = strstr(at, "\"ts\":");
        if (t && (ts < 0 || last))
            ts = strtod(t + 5, NULL);
        if (!last)
            break;
    }
    return ts;
}

static size_t count_of(const char *json, const char *needle)
{
    size_t n = 0;
    for (const char *at = strstr(json, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

/* The capture's file: both processes, the child's zones between the parent's. */
static void check_file(const char *label, const char *path, long parent, long child)
{
    char *json = tt_read_file(path);
    tt_check(json != NULL, "%s: %s written", label, path);
    if (!json)
        return;
    char name[64];
    snprintf(name, sizeof name, "{\"ph\":\"X\",\"name\":\"child work\",\"pid\":%ld,", child);
    tt_check(count_of(json, name) == 50, "%s: the child's 50 zones, as process %ld (%zu)", label, child,
             count_of(json, name));
    snprintf(name, sizeof name, "\"process_name\",\"pid\":%ld,", child);
    tt_check(strstr(json, name) != NULL, "%s: the child is a process of its own", label);
    double before = zone_ts(json, "parent before", parent, 1), first = zone_ts(json, "child work", child, 0),
           last = zone_ts(json, "child work", child, 1), after = zone_ts(json, "parent after", parent, 0);
    tt_check(before >= 0 && before < first && first <= last && last < after,
             "%s: on one clock, the child's zones between the parent's before and after (%.3f < %.3f .. %.3f < %.3f)",
             label, before, first, last, after);
    free(json);
    /* ...and the child wrote no file of its own beside it */
    char own[4200];
    snprintf(own, sizeof own, "%.*s.%ld.json", (int)(strlen(path) - 5), path, child);
    tt_check(access(own, F_OK) != 0, "%s: no %s", label, own);
    unlink(own);
}

enum collect_case { API_EXEC, FOLLOW_FORK, FOLLOW_FORK_STALLED };

static int capture_collects(void *arg)
{
    enum collect_case how = *(enum collect_case *)arg;
    int fork_only = how != API_EXEC; /* TRACYC_FOLLOW_FORK=1 and a forked child, or the API and exec */
    const char *label = how == API_EXEC      ? "tracyc_collect_children, exec"
                        : how == FOLLOW_FORK ? "TRACYC_FOLLOW_FORK, fork"
                                             : "TRACYC_FOLLOW_FORK, fork, the shutdown's readings held up";
    char path[PATH_MAX];
    tt_temp_path(path, sizeof path, "tracyc-children-XXXXXX.json");
    close(mkstemps(path, 5));
    unlink(path);
    unsetenv("TRACYC_CONNECT");
    setenv("TRACYC_OUTPUT", path, 1);
    if (fork_only)
        setenv("TRACYC_FOLLOW_FORK", "1", 1);
    else {
        tt_check(tracyc_collect_children(1) == 0, "%s: collecting (%s)", label, tracyc_last_error());
        /* off and on again: TRACYC_CONNECT goes, and comes back */
        tt_check(tracyc_collect_children(0) == 0 && !getenv("TRACYC_CONNECT"), "%s: off", label);
        tt_check(tracyc_collect_children(1) == 0 && getenv("TRACYC_CONNECT"), "%s: on again", label);
    }
    tt_zones(&before_loc, 20);
    const char *connect = getenv("TRACYC_CONNECT");
    tt_check(connect && strncmp(connect, "127.0.0.1:", 10) == 0, "%s: TRACYC_CONNECT=%s for the children", label,
             connect ? connect : "(unset)");
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (fork_only)
            child_work();
        unsetenv("TRACYC_FOLLOW_FORK");
        execl(self_path, self_path, "--child", (char *)NULL);
        _exit(127);
    }
    tt_check(wait_child(child), "%s: the child exits cleanly", label);
    tt_zones(&after_loc, 20);
    if (how == FOLLOW_FORK_STALLED)
        atomic_store(&stall_readings, 1);
    ___tracy_shutdown_profiler();
    atomic_store(&stall_readings, 0);
    if (how == FOLLOW_FORK_STALLED)
        tt_check(atomic_load(&stalled_reads) > 0, "%s: the shutdown's readings were held up", label);
    check_file(label, path, (long)getpid(), (long)child);
    unlink(path);
    return finish(how == API_EXEC      ? "test_children (tracyc_collect_children)"
                  : how == FOLLOW_FORK ? "test_children (TRACYC_FOLLOW_FORK)"
                                       : "test_children (TRACYC_FOLLOW_FORK, readings held up)");
}

/* Without an in-process capture there is nothing to collect into. */
static int nothing_to_collect_into(void *arg)
{
    (void)arg;
    unsetenv("TRACYC_CONNECT");
    tt_use_free_port();
    tt_check(tracyc_collect_children(1) == -1 && strstr(tracyc_last_error(), "no in-process capture"),
             "no capture: -1 (%s)", tracyc_last_error());
    tt_check(getenv("TRACYC_CONNECT") == NULL, "and no TRACYC_CONNECT");
    ___tracy_shutdown_profiler();
    return finish("test_children (no capture)");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0) {
        child_work();
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    self_path[n > 0 ? n : 0] = 0;
    unsetenv("TRACY_NO_EXIT");
    unsetenv("TRACYC_OUTPUT");
    unsetenv("TRACYC_OUTPUT_OWNER");
    unsetenv("TRACYC_CONNECT");
    unsetenv("TRACYC_FOLLOW_FORK");
    /* Every child first: a child forked after a check would inherit its count. */
    static enum collect_case api = API_EXEC, follow = FOLLOW_FORK, stalled = FOLLOW_FORK_STALLED;
    int status[5] = {0};
    /* A child forked from a process with threads starts a profiler of its own, whose threads
     * allocate. Neither sanitizer of this compiler makes that safe: ThreadSanitizer does not
     * run threads in such a child ("dup thread with used id"), and AddressSanitizer's
     * allocator keeps no lock across fork(), so a lock another thread of the parent held at
     * that moment (the collector's, the worker's) stays taken in the child, whose first
     * allocation of that size waits forever. The normal build runs these cases. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    int forked_children = 0;
#else
    int forked_children = 1;
#endif
    if (forked_children) {
        status[0] = tf_wait(tf_fork(fork_dials_out, NULL));
        status[2] = tf_wait(tf_fork(capture_collects, &follow));
        status[4] = tf_wait(tf_fork(capture_collects, &stalled));
    } else {
        printf("skip TRACYC_FOLLOW_FORK cases under a sanitizer\n");
    }
    status[1] = tf_wait(tf_fork(capture_collects, &api));
    status[3] = tf_wait(tf_fork(nothing_to_collect_into, NULL));
    tt_check(status[0] == 0, "TRACYC_FOLLOW_FORK with TRACYC_CONNECT");
    tt_check(status[1] == 0, "tracyc_collect_children, a child started with exec");
    tt_check(status[2] == 0, "TRACYC_FOLLOW_FORK with TRACYC_OUTPUT, a forked child");
    tt_check(status[3] == 0, "nothing to collect into");
    tt_check(status[4] == 0, "TRACYC_FOLLOW_FORK with TRACYC_OUTPUT, the parent's last readings held up");
    return tt_finish("test_children");
}

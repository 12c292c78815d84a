/* A process out of descriptors does not spin. accept4 failing with EMFILE leaves the
 * connection waiting and the listening socket readable, so a wait on it returned at once,
 * for as long as no descriptor was freed: tracyc-capture --listen with more clients than
 * its limit took a whole CPU, and so did a program's worker with a server knocking. Now
 * the socket is left out of the waits for 100 ms at a time, it is said once, and the
 * connections are taken once a descriptor is free.
 *
 * The collector (capture/collector.h) and the proxy's wait for its server (capture/serve.h)
 * are stepped for a second with the process at its limit: a handful of steps (each waits up
 * to 100 ms), not thousands. The worker, in a process of its own at its limit with a
 * server's connection waiting: its CPU time over a second, next to nothing, not the whole
 * second; then a capture connects and gets a message. */
#include "test_capture.h"
#include "test_threads.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include <limits.h>
#include <tracy/TracyC.h>

#include "capture/collector.h"
#include "capture/serve.h"
#include "trace/trace.h"
#include "wire/protocol.h"
#include "util/monotonic.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The process at its descriptor limit: the soft limit lowered to the highest descriptor
 * open + 1, and every lower number taken (by /dev/null), so the next open fails (EMFILE).
 * Undone by restore(). */
static struct rlimit saved_limit;
static int fillers[1024];
static int filler_count;

static int highest_fd(void)
{
    int high = 2;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));) {
        int fd = atoi(e->d_name);
        if (fd > high && fd != dirfd(d))
            high = fd;
    }
    if (d)
        closedir(d);
    return high;
}

static void exhaust(void)
{
    getrlimit(RLIMIT_NOFILE, &saved_limit);
    struct rlimit low = saved_limit;
    low.rlim_cur = (rlim_t)highest_fd() + 1;
    tt_check(setrlimit(RLIMIT_NOFILE, &low) == 0, "the descriptor limit lowered");
    for (int fd; filler_count < 1024 && (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;)
        fillers[filler_count++] = fd;
    tt_check(open("/dev/null", O_RDONLY) < 0 && errno == EMFILE, "no descriptor left");
}

static void restore(void)
{
    while (filler_count)
        close(fillers[--filler_count]);
    setrlimit(RLIMIT_NOFILE, &saved_limit);
}

/* A socket connected to 127.0.0.1:port (into the listener's backlog), or -1. */
static int connect_to(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int accept_failures;
static int failed_errno;

static void on_accept_failed(void *user, uint16_t port, int err)
{
    (void)user;
    (void)port;
    accept_failures++;
    failed_errno = err;
}

static void check_collector(void)
{
    struct tct_trace *trace = tct_trace_new();
    struct tcs_collector *c =
        tcs_collector_new(&(struct tcs_collector_options){.trace = trace, .on_accept_failed = on_accept_failed});
    char err[256] = "";
    uint16_t port = 0;
    tt_check(c && tcs_collector_listen(c, NULL, 0, &port, err, sizeof err) == 0, "the collector listens: %s", err);
    int clients[3];
    for (int i = 0; i < 3; i++)
        clients[i] = connect_to(port);
    tt_check(clients[0] >= 0 && clients[1] >= 0 && clients[2] >= 0, "three connections wait");

    exhaust();
    int steps = 0;
    for (int64_t end = tcu_monotonic_ns() + 1000000000LL; tcu_monotonic_ns() < end; steps++)
        tcs_collector_step(c, 100);
    restore();
    tt_check(steps <= 50, "out of descriptors, the collector stepped %d times in a second (<= 50)", steps);
    tt_check(accept_failures == 1 && failed_errno == EMFILE, "said once, with EMFILE (%d times, errno %d)",
             accept_failures, failed_errno);

    /* With descriptors again, the connections are taken: each gets the collector's hello. */
    int greeted = 0;
    for (int64_t end = tcu_monotonic_ns() + 60000000000LL; greeted < 3 && tcu_monotonic_ns() < end;) {
        tcs_collector_step(c, 50);
        greeted = 0;
        for (int i = 0; i < 3; i++) {
            char byte;
            greeted += recv(clients[i], &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
        }
    }
    tt_check(greeted == 3, "with descriptors free again, the waiting connections are accepted (%d of 3)", greeted);
    for (int i = 0; i < 3; i++)
        close(clients[i]);
    tcs_collector_free(c);
    tct_trace_free(trace);
}

/* The proxy (capture/serve.h, tracyc-capture --serve) waiting for its server the same way:
 * stepped for a second at the limit, then the server's hello is taken once it can be. */
static void check_serve(void)
{
    struct tct_trace *trace = tct_trace_new();
    struct tcs_serve *s = trace ? tcs_serve_new(trace) : NULL;
    char err[256] = "";
    uint16_t port = 0;
    tt_check(s && tcs_serve_listen(s, NULL, 0, &port, err, sizeof err) == 0, "the proxy listens: %s", err);
    int server = connect_to(port);
    tt_check(server >= 0, "a server's connection waits");
    exhaust();
    int steps = 0;
    for (int64_t end = tcu_monotonic_ns() + 1000000000LL; tcu_monotonic_ns() < end; steps++)
        tcs_serve_step(s, 100);
    restore();
    tt_check(steps <= 50, "out of descriptors, the proxy stepped %d times in a second (<= 50)", steps);
    uint8_t hello[TCW_SHIBBOLETH_SIZE + 4];
    uint32_t protocol = TCW_PROTOCOL_VERSION;
    memcpy(hello, TCW_SHIBBOLETH, TCW_SHIBBOLETH_SIZE);
    memcpy(hello + TCW_SHIBBOLETH_SIZE, &protocol, 4);
    tt_check(write(server, hello, sizeof hello) == (ssize_t)sizeof hello, "the server says hello");
    for (int64_t end = tcu_monotonic_ns() + 60000000000LL; !tcs_serve_connected(s) && tcu_monotonic_ns() < end;)
        tcs_serve_step(s, 50);
    tt_check(tcs_serve_connected(s), "with descriptors free again, the server is accepted and its hello read");
    close(server);
    tcs_serve_free(s);
    tct_trace_free(trace);
}

/* A thread's CPU time in clock ticks (utime + stime, from its /proc/self/task/TID/stat,
 * opened before the process ran out of descriptors). */
static long thread_ticks(int stat_fd)
{
    char text[1024];
    ssize_t n = pread(stat_fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = 0;
    const char *p = strrchr(text, ')');
    unsigned long utime = 0, stime = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2)
        return -1;
    return (long)(utime + stime);
}

/* The process re-executed with TRACY_PORT set: its worker, at the limit, with a server's
 * connection waiting. */
static int worker(void)
{
    uint16_t port = (uint16_t)atoi(getenv("TRACY_PORT"));
    ___tracy_startup_profiler();
    uint32_t tid = tt_own_thread("tracyc worker");
    tt_check(tid != 0, "the worker thread is listed and named");
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%u/stat", tid);
    int stat_fd = open(path, O_RDONLY | O_CLOEXEC);
    int knock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    exhaust();
    tt_check(knock >= 0 && connect(knock, (struct sockaddr *)&a, sizeof a) == 0, "a connection waits");
    usleep(100 * 1000); /* the worker has tried to accept it */
    long before = thread_ticks(stat_fd);
    usleep(1000 * 1000);
    long used = thread_ticks(stat_fd) - before;
    restore();
    long per_s = sysconf(_SC_CLK_TCK);
    tt_check(before >= 0 && used * 10 <= per_s,
             "out of descriptors, the worker used %ld of %ld clock ticks in a second (<= a tenth)", used, per_s);
    close(knock);
    close(stat_fd);

    struct tt_capture *cap = tt_capture_start(port);
    TracyCMessageL("after the wait");
    ___tracy_shutdown_profiler();
    tt_check(cap && tt_capture_join(cap) == 0, "a capture connects once descriptors are free: %s", cap ? cap->err : "");
    tt_check(cap && tt_find_text(cap, TCD_MESSAGE, "after the wait") != NULL, "and gets the message");
    tt_capture_free(cap);
    return tt_finish("test_accept_starved worker");
}

static void check_worker(void)
{
    char port[16], err_path[PATH_MAX];
    tt_temp_path(err_path, sizeof err_path, "tracyc_accept_starved_XXXXXX");
    snprintf(port, sizeof port, "%u", tt_use_free_port());
    setenv("TRACY_PORT", port, 1);
    setenv("TRACY_NO_SYS_TRACE", "1", 1); /* no perf events: only the worker's descriptors */
    setenv("TRACY_NO_EXIT", "1", 1);      /* its exit waits for the capture that connects last */
    int err_fd = mkstemp(err_path);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
    char *argv[] = {"/proc/self/exe", "worker", NULL};
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, argv[0], &actions, NULL, argv, environ) != 0 ||
        !tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S))
        status = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(err_fd);
    char *said = tt_read_file(err_path);
    unlink(err_path);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the worker's process passed");
    tt_check(said && tt_occurrences(said, "tracyc: cannot accept a server's connection on port") == 1,
             "said once on stderr: %s", said ? said : "(nothing)");
    free(said);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "worker") == 0)
        return worker();
    check_collector();
    check_serve();
    check_worker();
    return tt_finish("test_accept_starved");
}

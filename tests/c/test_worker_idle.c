/* An idle program costs next to nothing: the worker thread sleeps until there is work
 * instead of looking every millisecond. Counted as the times it went to sleep (its context
 * switches, /proc/self/task/TID/status) while the program sleeps a second: with no server,
 * with the in-process capture connected, with it collecting the program's children
 * (tracyc_collect_children: the worker looked every millisecond), and, in a process of its
 * own, dialing a collector that is not there (TRACYC_CONNECT: every 10 ms). A worker that
 * polls every millisecond switches hundreds of times a second however busy the machine;
 * one that waits for work, for its timeouts (tens of milliseconds and more) and little
 * else (connected, its wait doubles up to 250 ms while nothing comes: about 6 sleeps a
 * second; 18 under ASan on a loaded machine, as samples of the computing part trickle in).
 * The sampler thread is counted the same way while the program computes. */
#include "test_threads.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"
#include "util/monotonic.h"
#include <limits.h>
#include <tracy/TracyC.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The times the thread went to sleep so far: its voluntary context switches (not the
 * involuntary ones, which a busy machine's scheduler adds whatever the thread does). */
static long switches(uint32_t tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/self/task/%u/status", tid);
    FILE *f = fopen(path, "r");
    long total = 0, v;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1)
            total += v;
    if (f)
        fclose(f);
    return total;
}

static long switches_over_a_second(uint32_t tid)
{
    long before = switches(tid);
    usleep(1000 * 1000);
    return switches(tid) - before;
}

/* The sampler's passes while the program computes for a second: its thread sleeps between
 * passes, which came every 10 ms (100 a second, a third of its CPU), now every 50 ms with a
 * full-size ring, plus the ring's watermark wakes (a quarter of the ring written: about 16
 * a second from one CPU-bound thread at 500 Hz). None when sampling is refused here. */
static void check_sampler_while_computing(void)
{
    uint32_t tid = tt_own_thread("tracyc sampler");
    if (!tid) {
        printf("# no sampler thread (sampling refused here): its passes not counted\n");
        return;
    }
    long before = switches(tid);
    /* A second of wall time, not of CPU time (tt_burn_cpu_ns): the check counts the
     * sampler's passes in a second of the clock. */
    int64_t end = tcu_monotonic_ns() + 1000000000LL;
    volatile unsigned long spin = 0;
    do {
        for (int i = 0; i < 100000; i++)
            spin += (unsigned long)i;
    } while (tcu_monotonic_ns() < end);
    long passes = switches(tid) - before;
    tt_check(passes <= 60, "computing, sampled: the sampler slept %ld times in a second (<= 60)", passes);
}

/* The process re-executed with TRACYC_CONNECT to a loopback port nobody listens on. */
static int dialing(void)
{
    ___tracy_startup_profiler();
    uint32_t tid = tt_own_thread("tracyc worker");
    tt_check(tid != 0, "dialing: the worker thread is listed and named");
    if (!tid)
        return tt_finish("test_worker_idle dialing");
    usleep(200 * 1000); /* the first attempts, 10 and 20 ms apart */
    long n = switches_over_a_second(tid);
    tt_check(n <= 30, "dialing a collector that is not there: the worker slept %ld times in a second (<= 30)", n);
    ___tracy_shutdown_profiler();
    return tt_finish("test_worker_idle dialing");
}

static void check_dialing(void)
{
    char address[32];
    snprintf(address, sizeof address, "127.0.0.1:%u", tt_use_free_port()); /* free: nobody there */
    setenv("TRACYC_CONNECT", address, 1);
    char *argv[] = {"/proc/self/exe", "dialing", NULL};
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0 || !tt_child_ended(pid, &status, TT_PROGRAM_WAIT_S))
        status = -1;
    unsetenv("TRACYC_CONNECT");
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "dialing, in a process of its own");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "dialing") == 0)
        return dialing();
    check_dialing();
    tt_use_free_port();
    ___tracy_startup_profiler();
    uint32_t tid = tt_own_thread("tracyc worker");
    tt_check(tid != 0, "the worker thread is listed and named");
    if (!tid)
        return tt_finish("test_worker_idle");
    long idle = switches_over_a_second(tid);
    tt_check(idle <= 30, "no server: the worker slept %ld times in a second (<= 30)", idle);

    char out[PATH_MAX];

    tt_temp_path(out, sizeof out, "tracyc_worker_idle_XXXXXX.txt");
    int fd = mkstemps(out, 4);
    tt_check(fd >= 0, "a temporary file");
    close(fd);
    tt_check(tracyc_capture_start(out) == 0, "the in-process capture starts");
    static const struct ___tracy_source_location_data loc = {"idle", "main", "test_worker_idle.c", 1, 0};
    TracyCZoneCtx z = ___tracy_emit_zone_begin(&loc, 1);
    ___tracy_emit_zone_end(z);
    /* The capture connects: its handshake, the zone's queries and what the sampler (running since the
     * start) kept until a consumer came go out, and the worker's wait grows from 50 ms toward 250. */
    usleep(200 * 1000);
    long connected = switches_over_a_second(tid);
    tt_check(connected <= 60, "in-process capture connected: the worker slept %ld times in a second (<= 60)",
             connected);
    check_sampler_while_computing();
    tt_check(tracyc_collect_children(1) == 0, "the in-process capture collects children: %s", tracyc_last_error());
    usleep(200 * 1000);
    long collecting = switches_over_a_second(tid);
    tt_check(collecting <= 60, "collecting children: the worker slept %ld times in a second (<= 60)", collecting);
    ___tracy_shutdown_profiler();
    FILE *f = fopen(out, "r");
    char text[4096] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f)
        fclose(f);
    tt_check(strstr(text, "idle") != NULL, "the zone recorded while idle is in the capture");
    unlink(out);
    return tt_finish("test_worker_idle");
}

/* test_clock_calibrate.c - a shutdown cuts the TSC calibration's wait short (client/clock.h).
 * A calibration asked to span an hour, waiting in another thread as the worker does for a
 * server's welcome or the sampler's start, returns once tc_clock_calibrate_now is called
 * (what ___tracy_shutdown_profiler does), with the ratio over the time elapsed until then;
 * asked again, the same value at once. Without the cut the wait outlasts ctest's timeout.
 * Then a whole program: one that shuts down right after starting, with an in-process capture,
 * writes its capture. Skipped (77) where the clock is not the TSC. */
#include "client/clock.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double waited;

static void *calibrate_for_an_hour(void *arg)
{
    (void)arg;
    waited = tc_clock_calibrate((int64_t)3600 * 1000000000);
    return NULL;
}

int main(void)
{
    tc_clock_init();
    if (!tc_clock_uses_tsc) {
        printf("test_clock_calibrate: skipped: the clock is not the TSC here\n");
        return 77;
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, calibrate_for_an_hour, NULL) == 0);
    usleep(2000); /* (not needed for the outcome: the thread may as well start after the call) */
    tc_clock_calibrate_now();
    CHECK(pthread_join(t, NULL) == 0);
    CHECK(waited > 0 && isfinite(waited));
    CHECK(tc_clock_calibrate((int64_t)3600 * 1000000000) == waited);

    /* A program that ends as soon as it starts, with an in-process capture. */
    char path[PATH_MAX];
    tt_temp_path(path, sizeof path, "tracyc-calibrate-XXXXXX.txt");
    int fd = mkstemps(path, 4);
    CHECK(fd >= 0);
    close(fd);
    unlink(path);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TRACYC_OUTPUT", path, 1);
        ___tracy_startup_profiler();
        ___tracy_shutdown_profiler();
        _exit(0);
    }
    int status = 0;
    CHECK(tt_child_ended(pid, &status, 60) && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    unlink(path);
    return tt_finish("test_clock_calibrate");
}

/* test_phase.c - see test_phase.h. */
#include "test_phase.h"

#include "util/monotonic.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed; /* waits on CLOCK_MONOTONIC, as the deadlines are */
static pthread_t watchdog;
static pid_t watchdog_pid; /* (a forked child has no watchdog) */
/* Under lock: */
static int stopping; /* the process is exiting: the watchdog ends */
static int64_t test_start;
static const char *phase_what; /* the current phase, or the last one once it is done */
static int64_t phase_start;
static int phase_limit_s;
static int in_phase;
static void (*describe_fn)(FILE *out, void *user);
static void *describe_user;

static double since_s(int64_t then, int64_t now)
{
    return (double)(now - then) / 1e9;
}

static int64_t deadline(void)
{
    int64_t test_end = test_start + TT_TEST_LIMIT_S * 1000000000LL;
    int64_t phase_end = phase_start + phase_limit_s * 1000000000LL;
    return in_phase && phase_end < test_end ? phase_end : test_end;
}

/* On the watchdog's thread, the lock held: the report, then the end of the process. */
static void overrun(int64_t now)
{
    fprintf(stderr, "TIMEOUT at +%.1f s: ", since_s(test_start, now));
    if (in_phase)
        fprintf(stderr, "still %s after %.1f s (the phase's limit: %d s, the test's: %d s)\n", phase_what,
                since_s(phase_start, now), phase_limit_s, TT_TEST_LIMIT_S);
    else
        fprintf(stderr, "the test's limit of %d s reached after the phase \"%s\"\n", TT_TEST_LIMIT_S,
                phase_what ? phase_what : "");
    if (describe_fn)
        describe_fn(stderr, describe_user);
    fflush(stdout);
    fflush(stderr);
    _exit(1);
}

static void *watch(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        int64_t until = deadline(), now = tcu_monotonic_ns();
        if (now >= until)
            overrun(now);
        struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
        pthread_cond_timedwait(&changed, &lock, &ts);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* At exit, after the exit handlers registered after the first phase (those run watched;
 * the profiler's is among them only if it started inside a phase): the watchdog ends and is
 * joined, so the test library leaves no thread of its own for LeakSanitizer's check at exit
 * to stop. */
static void stop_watchdog(void)
{
    if (getpid() != watchdog_pid)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(watchdog, NULL);
}

static void start_watchdog(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&changed, &attr);
    pthread_condattr_destroy(&attr);
    test_start = tcu_monotonic_ns();
    watchdog_pid = getpid();
    if (pthread_create(&watchdog, NULL, watch, NULL) != 0) {
        fprintf(stderr, "test_phase: cannot start the watchdog thread\n");
        _exit(2);
    }
    atexit(stop_watchdog);
}

static void end_phase(int64_t now)
{
    if (in_phase)
        fprintf(stderr, "phase done at +%.1f s, in %.1f s: %s\n", since_s(test_start, now), since_s(phase_start, now),
                phase_what);
    in_phase = 0;
}

void tt_phase(const char *what, int limit_s)
{
    pthread_once(&once, start_watchdog);
    pthread_mutex_lock(&lock);
    int64_t now = tcu_monotonic_ns();
    end_phase(now);
    phase_what = what;
    phase_start = now;
    phase_limit_s = limit_s;
    in_phase = 1;
    fprintf(stderr, "phase started at +%.1f s (limit %d s): %s\n", since_s(test_start, now), limit_s, what);
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

void tt_phase_done(void)
{
    pthread_mutex_lock(&lock);
    end_phase(tcu_monotonic_ns());
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

void tt_phase_describe(void (*describe)(FILE *out, void *user), void *user)
{
    pthread_mutex_lock(&lock);
    describe_fn = describe;
    describe_user = user;
    pthread_mutex_unlock(&lock);
}

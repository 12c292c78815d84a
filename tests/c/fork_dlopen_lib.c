/* fork_dlopen_lib.c - a library test_sampling_fork_dlopen's forked child loads with dlopen
 * (the parent never loads it): the child spends its CPU time here, called from the test
 * program. */
#include <time.h>

static double thread_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Burns `seconds` of the calling thread's CPU time, most of it in this function's own loop
 * (the clock is read once per 10000 rounds). */
__attribute__((noinline, visibility("default"))) unsigned long fork_dlopen_lib_spin(double seconds)
{
    volatile unsigned long x = 1;
    double end = thread_cpu_seconds() + seconds;
    while (thread_cpu_seconds() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

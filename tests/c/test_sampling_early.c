/* With the in-process capture, sampling runs from the moment the profiler's start returns,
 * not from when its worker first gets a CPU: a short program's busy threads could keep the
 * worker waiting past their end, and its capture had no sample at all (a 10 ms program of
 * two busy threads kept samples in 3 runs of 7 on two CPUs). Checked directly (the perf
 * events are open when ___tracy_startup_profiler returns, in the thread that called it) and
 * end to end (a child that starts the profiler and at once burns 10 ms of CPU on each of two
 * threads has the samples of both in its summary). */
#include "test_descriptors.h"
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SAMPLING_HZ 5000
#define BURN_NS 10000000 /* each thread's CPU time: 50 samples at 5 kHz */

static void *burn(void *arg)
{
    tt_burn_cpu_ns(BURN_NS);
    return arg;
}

/* The child: a short program. Its exit status says whether the events were open at once. */
static int short_program(const char *output)
{
    setenv("TRACYC_OUTPUT", output, 1);
    char hz[16];
    snprintf(hz, sizeof hz, "%d", SAMPLING_HZ);
    setenv("TRACY_SAMPLING_HZ", hz, 1);
    ___tracy_startup_profiler();
    int open_at_once = tt_descriptors_on("anon_inode:[perf_event]") > 0;
    pthread_t other;
    pthread_create(&other, NULL, burn, NULL);
    burn(NULL);
    pthread_join(other, NULL);
    return open_at_once ? 0 : 3;
}

/* The rate the profiler samples at: SAMPLING_HZ, unless the kernel allows less (it lowers
 * perf_event_max_sample_rate by itself when its sampling interrupts take long). */
static long sampling_hz(void)
{
    long max = 0;
    FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
    if (f) {
        if (fscanf(f, "%ld", &max) != 1)
            max = 0;
        fclose(f);
    }
    return max > 0 && max < SAMPLING_HZ ? max : SAMPLING_HZ;
}

/* "Sampling: N CPU samples on M threads" of the summary: N, or -1. */
static long summary_samples(const char *text)
{
    long samples = -1;
    const char *line = text ? strstr(text, "Sampling: ") : NULL;
    if (line)
        sscanf(line, "Sampling: %ld CPU samples", &samples);
    return samples;
}

/* The threads of the summary's "CPU per thread" table with at least `least` samples. A row
 * ends with its samples, on-CPU and off-CPU times (each a number and a unit), %on and
 * switches: the samples are its seventh word from the end. Other threads of the process
 * may have a sample or two (ThreadSanitizer's background thread, under TSan). */
static int threads_sampled(const char *text, long least)
{
    const char *table = text ? strstr(text, "CPU per thread") : NULL;
    const char *row = table ? strchr(table, '\n') : NULL;
    row = row ? strchr(row + 1, '\n') : NULL; /* past the column names */
    int n = 0;
    while (row && row[1] == ' ') {
        char line[512], *words[32];
        const char *end = strchr(row + 1, '\n');
        size_t len = end ? (size_t)(end - row - 1) : strlen(row + 1);
        snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), row + 1);
        int count = 0;
        for (char *w = strtok(line, " "); w && count < 32; w = strtok(NULL, " "))
            words[count++] = w;
        n += count >= 8 && atol(words[count - 7]) >= least;
        row = end;
    }
    return n;
}

int main(void)
{
    if (!tt_sampling_expected()) {
        printf("test_sampling_early: perf events not allowed here: skipped\n");
        return 77;
    }
    char dir[PATH_MAX], output[PATH_MAX + 16];
    tt_temp_path(dir, sizeof dir, "tracyc-early-XXXXXX");
    if (!mkdtemp(dir))
        return 2;
    snprintf(output, sizeof output, "%s/summary.txt", dir);
    tt_use_free_port();

    pid_t pid = fork();
    if (pid == 0)
        exit(short_program(output));
    int status = 0;
    CHECK(tt_child_ended(pid, &status, 60));
    CHECK(WIFEXITED(status));
    CHECK_EQ_INT(WEXITSTATUS(status), 0); /* 3: no perf event open when the start returned */

    char *summary = tt_read_file(output);
    long samples = summary_samples(summary);
    /* 100 expected (20 ms of CPU at 5 kHz): a bound far from it, but far above none; and
     * for each of the two busy threads, a tenth of its 50. */
    long least = sampling_hz() * 2 * BURN_NS / 1000000000 / 5;
    least = least > 1 ? least : 1;
    long least_each = least / 4 > 1 ? least / 4 : 1;
    int busy = threads_sampled(summary, least_each);
    tt_check(busy == 2, "both busy threads sampled (%d threads with %ld samples or more)", busy, least_each);
    tt_check(samples >= least, "%ld samples (%ld at least)", samples, least);
    if (samples < least || busy != 2)
        fprintf(stderr, "summary:\n%s\n", summary ? summary : "(none)");
    free(summary);
    unlink(output);
    rmdir(dir);
    return tt_finish("test_sampling_early");
}

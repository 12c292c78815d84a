/* run_traced.c - runs a program and reports the CPU time of each of its threads when it
 * ends, for bench/process_cost.sh.
 *
 *   bench_process_cost_run OUT PROGRAM [ARGS...]
 *
 * The threads are followed with ptrace (new threads, and each thread's exit), which stops
 * the program only when a thread starts or ends: at each exit the thread's name and its
 * whole CPU time (sum_exec_runtime, /proc/PID/task/TID/schedstat, in nanoseconds) are read,
 * so the CPU of threads that end before the process (the profiler's, joined at exit) is
 * counted too. OUT gets one line per thread, "tid<TAB>ns<TAB>name", then
 * "rusage<TAB>ns" (the kernel's utime + stime of the whole process, as a check),
 * "maxrss<TAB>KiB" (its peak resident memory) and "wall<TAB>ns". The program's exit status is this program's. BENCH_PRELOAD, when set, is
 * the program's LD_PRELOAD (not this runner's). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The thread's name and CPU time, read while it is stopped at its exit. */
static void note_thread(FILE *out, pid_t pid, pid_t tid)
{
    char path[96], name[64] = "?";
    unsigned long long ns = 0;
    snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%llu", &ns) != 1)
            ns = 0;
        fclose(f);
    }
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    f = fopen(path, "r");
    if (f) {
        if (fgets(name, sizeof name, f))
            name[strcspn(name, "\n")] = 0;
        fclose(f);
    }
    fprintf(out, "%d\t%llu\t%s\n", (int)tid, ns, name);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out) {
        perror(argv[1]);
        return 2;
    }
    long long start = now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        const char *preload = getenv("BENCH_PRELOAD");
        if (preload)
            setenv("LD_PRELOAD", preload, 1);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) { /* stopped at exec */
        fprintf(stderr, "%s: %s did not start\n", argv[0], argv[2]);
        return 2;
    }
    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL));
    ptrace(PTRACE_CONT, pid, NULL, NULL);
    int code = 0;
    for (;;) {
        struct rusage ru;
        pid_t tid = wait4(-1, &status, __WALL, &ru);
        if (tid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (tid != pid)
                continue;
            code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            fprintf(out, "rusage\t%lld\n",
                    (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL +
                        (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
            fprintf(out, "maxrss\t%ld\n", ru.ru_maxrss);
            break;
        }
        if (!WIFSTOPPED(status))
            continue;
        int sig = WSTOPSIG(status), event = status >> 16, pass = 0;
        if (event == PTRACE_EVENT_EXIT)
            note_thread(out, pid, tid);
        else if (event == 0 && sig != SIGTRAP && sig != SIGSTOP)
            pass = sig; /* the program's own signal */
        ptrace(PTRACE_CONT, tid, NULL, (void *)(long)pass);
    }
    fprintf(out, "wall\t%lld\n", now_ns() - start);
    fclose(out);
    return code;
}

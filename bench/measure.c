/* measure.c - runs a command and reports its peak memory, wall time and temporary files
 * (bench/capture_scale.sh).
 *
 *   bench_measure [--rss-limit MIB] -- COMMAND [ARGS...]
 *
 * Prints one line of key=value pairs on stderr once the command has ended:
 *   peak_rss_kib  the kernel's high-water mark of the command's resident set, ru_maxrss
 *                 from wait4 (exact: the same figure as VmHWM, and /usr/bin/time's %M)
 *   wall_s        from fork to the command's exit
 *   cpu_s         the CPU time it used, user and system (ru_utime + ru_stime)
 *   temp_bytes    the most the command had at once in deleted files it held open (its
 *                 spills and tapes: util/tempfile.c unlinks them at once), sampled every
 *                 100 ms, so a short peak may be missed
 *   limited       1 when its resident set passed MIB and it was sent SIGINT to stop early
 *                 (SIGKILL 60 s later if it had not ended)
 *   status        its exit status, or 128 + the signal that ended it
 * and exits with the command's status.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

/* Bytes in the deleted regular files pid holds open. */
static unsigned long long deleted_bytes(pid_t pid)
{
    char dir[64], path[320], target[4096];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    unsigned long long total = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        struct stat st;
        if (strstr(target, " (deleted)") && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            total += (unsigned long long)st.st_size;
    }
    closedir(d);
    return total;
}

int main(int argc, char **argv)
{
    long limit_kib = 0;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "--rss-limit") == 0 && i + 1 < argc)
            limit_kib = atol(argv[++i]) * 1024;
        else
            break;
    }
    if (i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
        fprintf(stderr, "usage: bench_measure [--rss-limit MIB] -- COMMAND [ARGS...]\n");
        return 2;
    }
    char **cmd = argv + i + 1;
    /* SIGCHLD blocked, to wait for it with a timeout: the exit is seen at once. */
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_measure: fork");
        return 2;
    }
    if (pid == 0) {
        sigprocmask(SIG_UNBLOCK, &chld, NULL);
        execvp(cmd[0], cmd);
        fprintf(stderr, "bench_measure: %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    /* The command's own Ctrl-C handling decides; this process waits for it. */
    signal(SIGINT, SIG_IGN);
    int status = 0, limited = 0;
    unsigned long long temp = 0;
    double limited_at = 0;
    struct rusage ru;
    for (;;) {
        pid_t w = wait4(pid, &status, WNOHANG, &ru);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            perror("bench_measure: wait4");
            return 2;
        }
        unsigned long long bytes = deleted_bytes(pid);
        if (bytes > temp)
            temp = bytes;
        if (limit_kib && !limited && rss_kib(pid) > limit_kib) {
            limited = 1;
            limited_at = now_s();
            kill(pid, SIGINT);
        }
        if (limited && now_s() - limited_at > 60)
            kill(pid, SIGKILL);
        struct timespec tick = {0, 100000000};
        sigtimedwait(&chld, NULL, &tick);
    }
    double wall = now_s() - t0;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
                 (double)ru.ru_stime.tv_usec * 1e-6;
    fprintf(stderr, "bench_measure: peak_rss_kib=%ld wall_s=%.3f cpu_s=%.3f temp_bytes=%llu limited=%d status=%d\n",
            ru.ru_maxrss, wall, cpu, temp, limited, rc);
    return rc;
}

/* A program profiling itself into TRACYC_OUTPUT is ended by SIGINT or SIGTERM (Ctrl-C,
 * kill): its profile is written all the same, with the zone it was in ended at the
 * signal, and it still ends by that signal (the program runs on meanwhile: here, waiting).
 * A program with a SIGINT handler of its own keeps it: the handler runs, the program goes
 * on and writes the profile when it exits. One whose handler, set later, calls tracyc's
 * (the one it replaced) ends as with tracyc's alone, and so does one that exits right after
 * the signal, while the capture is being written.
 *
 *   test_exit_signal                        the test
 *   test_exit_signal --program SIG MODE     the profiled program: MODE "default", "chain",
 *                                           "exit" (it exits at once) or "own"
 */
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const struct ___tracy_source_location_data before_loc = {"before signal", "program", "exit_signal.c", 1, 0};
static const struct ___tracy_source_location_data open_loc = {"interrupted", "program", "exit_signal.c", 2, 0};

static volatile sig_atomic_t handled;

static void own_handler(int sig)
{
    handled = sig;
}

static struct sigaction before_chain;

/* A program's handler set after tracyc's, calling the one it replaced. */
static void chaining_handler(int sig)
{
    before_chain.sa_handler(sig);
}

static int run_program(int sig, const char *mode)
{
    int own = strcmp(mode, "own") == 0;
    if (own)
        signal(sig, own_handler);
    tt_zones(&before_loc, 10);
    /* Until the in-process capture is open: tracyc then catches the signal (or, in "own",
     * at once: the program's handler stays). */
    for (struct sigaction now; sigaction(sig, NULL, &now) == 0 && now.sa_handler == SIG_DFL;)
        usleep(1000);
    if (strcmp(mode, "chain") == 0) {
        struct sigaction chain = {.sa_handler = chaining_handler};
        sigemptyset(&chain.sa_mask);
        sigaction(sig, &chain, &before_chain);
    }
    TracyCZoneCtx zone = ___tracy_emit_zone_begin(&open_loc, 1);
    /* A zone's begin is published by the thread's next record (api_zone.c): this one. */
    ___tracy_emit_message("signalled", 9, 0);
    kill(getpid(), sig);
    if (strcmp(mode, "exit") == 0) {
        while (___tracy_profiler_started()) /* until the worker's shutdown has begun */
            usleep(1000);
        return 3; /* exits while the worker writes the capture */
    }
    while (!handled) /* until the capture is written and the signal ends the program */
        usleep(1000);
    ___tracy_emit_zone_end(zone);
    return 3;
}

/* Runs the program with TRACYC_OUTPUT; its wait status, and its profile (NULL if none). */
static int run(const char *dir, int sig, const char *mode, char **profile)
{
    char out[300], sigarg[8];
    snprintf(out, sizeof out, "%s/%s-%d.json", dir, mode, sig);
    snprintf(sigarg, sizeof sigarg, "%d", sig);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("TRACYC_OUTPUT", out, 1);
        execl("/proc/self/exe", "test_exit_signal", "--program", sigarg, mode, (char *)NULL);
        _exit(127);
    }
    int status = -1;
    tt_child_ended(pid, &status, 60);
    *profile = tt_read_file(out);
    unlink(out);
    return status;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--program") == 0)
        return run_program(atoi(argv[2]), argv[3]);

    char dir[PATH_MAX];

    tt_temp_path(dir, sizeof dir, "tracyc_exit_signal.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    const int sigs[] = {SIGINT, SIGTERM};
    for (int i = 0; i < 2; i++) {
        char *profile;
        int status = run(dir, sigs[i], "default", &profile);
        tt_check(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i], "signal %d: wait status %#x (ended by it)",
                 sigs[i], status);
        tt_check(profile && tt_occurrences(profile, "\"before signal\"") == 10 &&
                     tt_occurrences(profile, "\"interrupted\"") == 1,
                 "signal %d: profile %s with %d zones before (10) and %d interrupted (1)", sigs[i],
                 profile ? "written" : "missing", tt_occurrences(profile, "\"before signal\""),
                 tt_occurrences(profile, "\"interrupted\""));
        free(profile);
    }
    char *profile;
    int status = run(dir, SIGTERM, "chain", &profile);
    tt_check(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM, "chained: wait status %#x (ended by it)", status);
    tt_check(profile && tt_occurrences(profile, "\"before signal\"") == 10 &&
                 tt_occurrences(profile, "\"interrupted\"") == 1,
             "chained: profile %s", profile ? "without every zone" : "missing");
    free(profile);
    status = run(dir, SIGINT, "exit", &profile);
    tt_check(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "exiting meanwhile: wait status %#x (ended by it)",
             status);
    tt_check(profile && tt_occurrences(profile, "\"before signal\"") == 10, "exiting meanwhile: profile %s",
             profile ? "without every zone" : "missing");
    free(profile);
    status = run(dir, SIGINT, "own", &profile);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 3, "own handler: wait status %#x (exit 3)", status);
    tt_check(profile && tt_occurrences(profile, "\"before signal\"") == 10 &&
                 tt_occurrences(profile, "\"interrupted\"") == 1,
             "own handler: profile %s", profile ? "without every zone" : "missing");
    free(profile);
    rmdir(dir);
    return tt_finish("test_exit_signal");
}

/* A program writing TRACYC_OUTPUT=out.json forks and execs a child (this program again)
 * that inherits the variable and records zones too. The child outlives its parent, so
 * without care it would write out.json last and the parent's profile would be lost. The
 * parent's file must hold the parent's profile; the child's goes to out.<pid>.json, and
 * the child says so on stderr, once.
 *
 *   test_output_child                  the test: runs --parent, checks the files
 *   test_output_child --parent DIR     the profiled program
 *   test_output_child --child FD       its child: waits for FD's end (the parent's exit)
 */
#include "test_child.h"
#include "test_util.h"
#include "tracyc.h"

#include <limits.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define WAIT_S 60 /* (for each program: a hang fails here, not at ctest's timeout) */

static const struct ___tracy_source_location_data parent_loc = {"parent zone", "parent", "output_child.c", 1, 0};
static const struct ___tracy_source_location_data child_loc = {"child zone", "child", "output_child.c", 2, 0};

static int run_child(int parent_alive)
{
    tt_zones(&child_loc, 10);
    /* Until the parent has exited (and written its file): then this one writes last. */
    char c;
    while (read(parent_alive, &c, 1) > 0)
        ;
    tt_zones(&child_loc, 10);
    return 0;
}

static int run_parent(void)
{
    tt_zones(&parent_loc, 10);
    int alive[2];
    if (pipe(alive) != 0)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        close(alive[1]);
        char fd[16];
        snprintf(fd, sizeof fd, "%d", alive[0]);
        execl("/proc/self/exe", "test_output_child", "--child", fd, (char *)NULL);
        _exit(127);
    }
    close(alive[0]);
    tt_zones(&parent_loc, 10);
    return pid > 0 ? 0 : 2; /* exits without waiting: the child ends after */
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return run_child(atoi(argv[2]));
    if (argc == 2 && strcmp(argv[1], "--parent") == 0)
        return run_parent();

    char dir[PATH_MAX];

    tt_temp_path(dir, sizeof dir, "tracyc_output_child.XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char out[PATH_MAX + 16], err[PATH_MAX + 16];
    snprintf(out, sizeof out, "%s/out.json", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    /* Both processes hold `done` open: it ends when the last of them has exited. */
    int done[2];
    CHECK(pipe(done) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(done[0]);
        int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(fd);
        setenv("TRACYC_OUTPUT", out, 1);
        execl("/proc/self/exe", "test_output_child", "--parent", (char *)NULL);
        _exit(127);
    }
    close(done[1]);
    char c; /* nobody writes to it: the first thing to read is its end */
    int ended = tt_readable_within(done[0], WAIT_S) && read(done[0], &c, 1) <= 0;
    close(done[0]);
    tt_check(ended, "both programs ended within %d s", WAIT_S);
    int status = -1;
    int exited = tt_child_ended(pid, &status, WAIT_S);
    CHECK(exited && WIFEXITED(status) && WEXITSTATUS(status) == 0);

    /* The parent's file: the parent's 20 zones, none of the child's. */
    char *parent = tt_read_file(out);
    CHECK(parent != NULL);
    tt_check(tt_occurrences(parent, "\"parent zone\"") == 20 && tt_occurrences(parent, "child zone") == 0,
             "out.json: %d parent zones (20), %d child zones (0)", tt_occurrences(parent, "\"parent zone\""),
             tt_occurrences(parent, "child zone"));
    /* The child's: out.<its pid>.json, with its own 20. */
    DIR *d = opendir(dir);
    struct dirent *e;
    int child_files = 0;
    char *child = NULL;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "out.", 4) != 0 || strcmp(e->d_name, "out.json") == 0 || len < 10 ||
            strcmp(e->d_name + len - 5, ".json") != 0 || strspn(e->d_name + 4, "0123456789") != len - 9)
            continue;
        char path[PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        free(child);
        child = tt_read_file(path);
        child_files++;
        unlink(path);
    }
    if (d)
        closedir(d);
    tt_check(child_files == 1 && tt_occurrences(child, "\"child zone\"") == 20 &&
                 tt_occurrences(child, "parent zone") == 0,
             "%d out.<pid>.json files, with %d child zones (20) and %d parent zones (0)", child_files,
             tt_occurrences(child, "\"child zone\""), tt_occurrences(child, "parent zone"));
    /* Said once, by the child: whose file it leaves alone and where its own goes. */
    char *said = tt_read_file(err);
    tt_check(said && tt_occurrences(said, "tracyc: ") == 1 && strstr(said, "out.json") && strstr(said, ".json"),
             "stderr: %s", said ? said : "(none)");
    free(parent);
    free(child);
    free(said);
    unlink(out);
    unlink(err);
    rmdir(dir);
    return tt_finish("test_output_child");
}

/* Whether an output can be written is checked by making a file beside it. The in-process
 * capture checks on the profiler's thread while the program runs on, and a program that
 * ends itself meanwhile (os._exit, as a test of tracer's did) left the file behind when
 * it had a name: now it has none where the file system allows (O_TMPFILE), which the
 * directory's watch sees as no file made at all (inotify: no IN_CREATE). A directory that
 * takes no file, and one that is not there, are still refused, with the reason. */
#include "test_util.h"

#include "trace/export.h"

#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* Entries made in dir while path is checked. */
static int created_while_checking(const char *dir, const char *path, int *checked)
{
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    CHECK(in >= 0 && inotify_add_watch(in, dir, IN_CREATE) >= 0);
    char err[256] = "";
    *checked = tct_export_check_path(path, err, sizeof err);
    char events[4096];
    ssize_t n = read(in, events, sizeof events);
    close(in);
    return n > 0 ? (int)(n / (ssize_t)sizeof(struct inotify_event)) : 0;
}

int main(void)
{
    char dir[PATH_MAX];
    tt_temp_path(dir, sizeof dir, "tracyc_output_check_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/trace.json", dir);
    int checked = -1;
    int made = created_while_checking(dir, path, &checked);
    CHECK_EQ_INT(checked, 0);
    CHECK_EQ_INT(made, 0); /* (ext4, xfs, btrfs and tmpfs take O_TMPFILE) */
    struct stat st;
    CHECK(stat(path, &st) != 0);

    char err[256] = "";
    snprintf(path, sizeof path, "%s/missing/trace.json", dir);
    CHECK_EQ_INT(tct_export_check_path(path, err, sizeof err), -1);
    CHECK(strstr(err, "cannot write") && strstr(err, strerror(ENOENT)));
    err[0] = 0;
    CHECK_EQ_INT(tct_export_check_path("/proc/trace.json", err, sizeof err), -1);
    CHECK(strstr(err, "cannot write /proc/trace.json") != NULL);
    rmdir(dir);
    return tt_finish("test_output_check");
}

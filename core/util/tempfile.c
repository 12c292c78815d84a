/* tempfile.c - a temporary file that leaves nothing behind (tempfile.h). */
#include "util/tempfile.h"

#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *tcu_tempfile_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

int tcu_tempfile(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tracyc-XXXXXX", tcu_tempfile_dir());
    /* The in-process capture's spill files are the profiler's descriptors: out of the
     * program's way (util/fd.h). */
    tcu_fd_guard_begin();
    int made = mkostemp(path, O_CLOEXEC);
    if (made >= 0)
        unlink(path);
    int fd = tcu_fd_guard_end(made);
    if (fd >= 0 && fd <= 2) { /* (no other number free) */
        close(fd);
        errno = EMFILE;
        return -1;
    }
    return fd;
}

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
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0)
        return -1;
    unlink(path);
    /* The in-process capture's spill files are the profiler's descriptors: out of the
     * program's way (util/fd.h). Where they cannot go above the floor, at least not 0-2. */
    fd = tcu_fd_lift(fd);
    if (fd <= 2) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        int saved = errno;
        close(fd);
        errno = saved;
        fd = high;
    }
    return fd;
}

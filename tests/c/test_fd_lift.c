/* tcu_fd_lift leaves alone a descriptor the program puts on the number while the profiler
 * moves its own above the floor (core/util/fd.h): the program's dup2 lands between the
 * move's duplication and its close. The test puts it exactly there, from a wrapper of
 * fcntl that the library's calls reach (the test is linked with it statically). And the
 * in-process capture's spill files (tcu_tempfile) are lifted too. */
#include "test_util.h"
#include "util/fd.h"
#include "util/tempfile.h"

#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int programs_file = -1; /* dup2'd onto the number being lifted, once, when >= 0 */

int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    long arg = va_arg(ap, long);
    va_end(ap);
    long r = syscall(SYS_fcntl, fd, cmd, arg);
    if (cmd == F_DUPFD_CLOEXEC && arg == TCU_FD_FLOOR && r >= 0 && programs_file >= 0) {
        dup2(programs_file, fd); /* what a program's thread may do at this instant */
        programs_file = -1;
    }
    return (int)r;
}

static ino_t inode(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

int main(void)
{
    int ends[2];
    CHECK_EQ_INT(pipe(ends), 0);

    /* An ordinary lift: moved above the floor, the low number closed. */
    int low = dup(ends[0]);
    int high = tcu_fd_lift(low);
    CHECK(high >= TCU_FD_FLOOR);
    CHECK_EQ_INT(inode(high), inode(ends[0]));
    CHECK_EQ_INT(fcntl(low, F_GETFD), -1);
    close(high);

    /* The program's dup2 onto the number during the move: its descriptor stays. */
    int mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
    ino_t ours = inode(mine);
    programs_file = ends[1];
    high = tcu_fd_lift(mine);
    CHECK_EQ_INT(programs_file, -1); /* the wrapper ran */
    CHECK(high >= TCU_FD_FLOOR);
    CHECK_EQ_INT(inode(high), ours);
    tt_check(inode(mine) == inode(ends[1]), "the program's descriptor, put on the number meanwhile, is not closed");
    close(high);
    close(mine);

    /* A spill file, with 0 closed by the program meanwhile: not on 0, nor below the floor. */
    int saved = dup(0);
    close(0);
    int spill = tcu_tempfile();
    tt_check(spill >= TCU_FD_FLOOR, "a spill file's descriptor is at %d or above (%d)", TCU_FD_FLOOR, spill);
    close(spill);
    dup2(saved, 0);
    close(saved);
    close(ends[0]);
    close(ends[1]);
    return tt_finish("test_fd_lift");
}

/* tcu_fd_lift leaves alone a descriptor the program puts on the number while the profiler
 * moves its own above the floor (core/util/fd.h): the program's dup2 lands between the
 * move's duplication and its close. The test puts it exactly there, from a wrapper of
 * fcntl that the library's calls reach (the test is linked with it statically). A program
 * that closed 0 and puts its descriptor back while the profiler opens a file (between the
 * open and the move) keeps it, and the profiler keeps its file: the open did not take 0.
 * And the in-process capture's spill files (tcu_tempfile) are lifted too. */
#include "test_child.h"
#include "test_util.h"
#include "util/fd.h"
#include "util/tempfile.h"

#include <fcntl.h>
#include <stdarg.h>
#include <errno.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

static int programs_file = -1; /* dup2'd onto the number being lifted, once, when >= 0 */
static int put_back = -1;      /* dup2'd onto 0 just before a lift, once, when >= 0 */

int fcntl(int fd, int cmd, ...)
{
    va_list ap;
    va_start(ap, cmd);
    int arg = va_arg(ap, int); /* (the commands wrapped take an int) */
    va_end(ap);
    if (cmd == F_DUPFD_CLOEXEC && arg == TCU_FD_FLOOR && put_back >= 0) {
        dup2(put_back, 0); /* the program's, while the profiler's thread is held up */
        put_back = -1;
    }
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

/* A child forked while run_above_floor holds the low numbers: they are free in it. */
static int child_status = -1, held_in_parent;
static void init_forks(void *arg)
{
    (void)arg;
    held_in_parent = fcntl(100, F_GETFD) >= 0 && fcntl(200, F_GETFD) >= 0;
    pid_t child = fork();
    if (child == 0)
        _exit(fcntl(100, F_GETFD) < 0 && fcntl(200, F_GETFD) < 0 ? 0 : 1);
    tt_child_ended(child, &child_status, 30);
}

/* The guard's source: the pipe end above the floor that a stand-in is a copy of (found by
 * its inode, with 0 closed). */
static int find_source(void)
{
    int source = -1;
    tcu_fd_guard_begin();
    struct stat held;
    if (fstat(0, &held) == 0) {
        for (int fd = TCU_FD_FLOOR; fd < 4 * TCU_FD_FLOOR && source < 0; fd++) {
            struct stat st;
            if (fd != 0 && fstat(fd, &st) == 0 && st.st_dev == held.st_dev && st.st_ino == held.st_ino)
                source = fd;
        }
    }
    tcu_fd_guard_end(-1);
    return source;
}

static int open_count(void)
{
    int n = 0;
    for (int fd = 0; fd < 4 * TCU_FD_FLOOR; fd++)
        n += fcntl(fd, F_GETFD) >= 0;
    return n;
}

/* What run_above_floor's init does: as another thread of the profiler might meanwhile, a
 * guard begins (or ends) and a descriptor is made; it must land above the floor. */
static int made_in_init = -1;
static void init_with_guard_begun(void *arg)
{
    (void)arg;
    tcu_fd_guard_begin();
    made_in_init = open("/dev/null", O_RDONLY | O_CLOEXEC);
    tcu_fd_guard_end(-1);
}

static void init_with_guard_ended(void *arg)
{
    tcu_fd_guard_end(-1); /* the guard begun before run_above_floor, by "another thread" */
    int ends[2];
    made_in_init = pipe(ends) == 0 ? ends[0] : -1;
    if (made_in_init >= 0)
        close(ends[1]);
    (void)arg;
}

int main(void)
{
    /* Whatever the environment: 0-2 open to begin with, and numbers above the floor. */
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
            return tt_finish("test_fd_lift (cannot open 0-2)");
    }
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur <= 2 * TCU_FD_FLOOR) {
        lim.rlim_cur =
            lim.rlim_max == RLIM_INFINITY || lim.rlim_max > 4 * TCU_FD_FLOOR ? 4 * TCU_FD_FLOOR : lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
        if (lim.rlim_cur <= 2 * TCU_FD_FLOOR) {
            printf("skipped: RLIMIT_NOFILE's hard limit (%llu) leaves no room above the floor\n",
                   (unsigned long long)lim.rlim_max);
            return 77;
        }
    }
    int open_at_start = open_count();
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

    /* The program closed 0 and puts its descriptor back between the profiler's open and
     * its move: each keeps its own. Before the standard numbers were guarded, the open took
     * 0, the program's dup2 replaced the file, and the profiler moved (and then wrote to)
     * the program's descriptor, and closed it on 0. */
    struct stat null_st;
    CHECK_EQ_INT(stat("/dev/null", &null_st), 0);
    int saved = dup(0);
    close(0);
    tcu_fd_guard_begin(); /* (the guard's source made first: the dup2 below lands in the open's moment) */
    tcu_fd_guard_end(-1);
    put_back = ends[0];
    int opened = tcu_fd_open("/dev/null", O_RDONLY, 0);
    CHECK_EQ_INT(put_back, -1); /* the wrapper ran */
    CHECK(opened >= TCU_FD_FLOOR);
    tt_check(inode(opened) == null_st.st_ino, "the profiler's descriptor is its file");
    tt_check(inode(0) == inode(ends[0]), "the program's descriptor, put back on 0, stays");
    close(opened);

    /* The same, the program's dup2 landing while the guard holds 0: it replaces the
     * stand-in, which is left alone. */
    close(0);
    tcu_fd_guard_begin();
    CHECK(fcntl(0, F_GETFD) >= 0); /* the stand-in */
    dup2(ends[0], 0);
    int made = open("/dev/null", O_RDONLY | O_CLOEXEC);
    CHECK(made > 2);
    opened = tcu_fd_guard_end(made);
    CHECK(opened >= TCU_FD_FLOOR);
    tt_check(inode(opened) == null_st.st_ino, "the profiler's descriptor is its file");
    tt_check(inode(0) == inode(ends[0]), "the program's descriptor, put on the stand-in's number, stays");
    close(opened);

    /* With 0, 1 and 2 all closed, a made descriptor takes none of them; while held, the
     * program's write to 1 fails and its read of 0 meets the end (as on closed numbers: no
     * byte goes anywhere); and the guard gives all three back. */
    int saved_out = dup(1), saved_err = dup(2);
    close(0);
    close(1);
    close(2);
    tcu_fd_guard_begin();
    char byte = 'x';
    errno = 0;
    int write_fails = write(1, &byte, 1) == -1 && errno == EBADF;
    struct pollfd in = {0, POLLIN, 0}; /* (a writer left would make read wait) */
    int read_ends = poll(&in, 1, 0) == 1 && (in.revents & POLLHUP) && read(0, &byte, 1) == 0;
    made = open("/dev/null", O_RDONLY | O_CLOEXEC);
    opened = tcu_fd_guard_end(made);
    int standard_free = fcntl(0, F_GETFD) < 0 && fcntl(1, F_GETFD) < 0 && fcntl(2, F_GETFD) < 0;
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    tt_check(made > 2, "made on %d, none of 0, 1 and 2", made);
    CHECK(opened >= TCU_FD_FLOOR);
    tt_check(write_fails && read_ends, "a stand-in: writes fail (EBADF), reads meet the end");
    tt_check(standard_free, "0, 1 and 2 free again after the guard");
    close(opened);

    /* Two threads making descriptors at once: the stand-ins stay until the last is done
     * (one thread's end must not free a number the other's open counts on). */
    close(0);
    tcu_fd_guard_begin();
    tcu_fd_guard_begin();
    tcu_fd_guard_end(-1);
    int held_for_other = fcntl(0, F_GETFD) >= 0;
    tcu_fd_guard_end(-1);
    tt_check(held_for_other && fcntl(0, F_GETFD) < 0, "0 held until the last guard ends, then free");

    /* A child forked while a guard holds 0 does not keep the stand-in. */
    tcu_fd_guard_begin();
    pid_t child = fork();
    if (child == 0)
        _exit(fcntl(0, F_GETFD) < 0 ? 0 : 1);
    tcu_fd_guard_end(-1);
    int status = -1;
    tt_child_ended(child, &status, 30);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a forked child has 0 free");

    /* With descriptors so scarce that only 0 is free, nothing is made on 0: a spill file
     * fails (EMFILE) rather than take it. */
    child = fork();
    if (child == 0) {
        struct rlimit few = {3, 3};
        setrlimit(RLIMIT_NOFILE, &few);
        int fd = tcu_tempfile();
        _exit(fd == -1 && errno == EMFILE && fcntl(0, F_GETFD) < 0 ? 0 : 1);
    }
    tt_child_ended(child, &status, 30);
    tt_check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "only 0 free: no spill file, 0 left free");
    /* run_above_floor holds 0-2 with the guard: another thread's guard, begun or ended
     * while init runs, changes nothing below the floor. */
    close(0);
    tcu_fd_run_above_floor(init_with_guard_begun, NULL);
    tt_check(made_in_init >= TCU_FD_FLOOR, "a guard begun during init: made at %d", made_in_init);
    close(made_in_init);
    tcu_fd_guard_begin();
    tcu_fd_run_above_floor(init_with_guard_ended, NULL);
    tt_check(made_in_init >= TCU_FD_FLOOR, "a guard ended during init: made at %d", made_in_init);
    close(made_in_init);
    tt_check(fcntl(0, F_GETFD) < 0, "0 free after both");

    /* A child forked during run_above_floor's init: the numbers it held are free there. */
    CHECK(fcntl(100, F_GETFD) < 0 && fcntl(200, F_GETFD) < 0);
    tcu_fd_run_above_floor(init_forks, NULL);
    tt_check(held_in_parent && WIFEXITED(child_status) && WEXITSTATUS(child_status) == 0,
             "forked during run_above_floor: 3-255 held in the parent, free in the child");

    /* The program puts its own descriptor on the source's number: the guard makes another
     * source and copies nothing of the program's onto 0. */
    int source = find_source();
    CHECK(source >= TCU_FD_FLOOR);
    int programs = open("/dev/null", O_RDONLY); /* (not close-on-exec: as a dup2 leaves it) */
    dup2(programs, source);
    close(programs);
    close(0);
    tcu_fd_guard_begin();
    int stand_in_held = fcntl(0, F_GETFD) >= 0 && inode(0) != null_st.st_ino;
    tcu_fd_guard_end(-1);
    tt_check(stand_in_held && fcntl(0, F_GETFD) < 0, "a new source: a stand-in on 0, then 0 free");
    tt_check(inode(source) == null_st.st_ino, "the program's descriptor on the old source's number, untouched");
    close(source);

    /* The program opens a stand-in for writing (through /proc/self/fd): the source gets a
     * writer. The next guard makes another, whose stand-ins still meet the end of a file. */
    tcu_fd_guard_begin();
    int writer = open("/proc/self/fd/0", O_WRONLY | O_CLOEXEC);
    tcu_fd_guard_end(-1);
    CHECK(writer >= 0);
    tcu_fd_guard_begin();
    struct pollfd on0 = {0, POLLIN, 0};
    int ends_reads = poll(&on0, 1, 0) == 1 && on0.revents == POLLHUP;
    tcu_fd_guard_end(-1);
    close(writer);
    tt_check(ends_reads, "a source given a writer is replaced: a stand-in's reads meet the end");
    dup2(saved, 0);

    /* A spill file, with 0 closed by the program meanwhile: not on 0, nor below the floor. */
    close(0);
    int spill = tcu_tempfile();
    tt_check(spill >= TCU_FD_FLOOR, "a spill file's descriptor is at %d or above (%d)", TCU_FD_FLOOR, spill);
    close(spill);
    dup2(saved, 0);
    close(saved);
    close(ends[0]);
    close(ends[1]);
    /* Nothing left behind but the guard's source (one descriptor, above the floor). */
    tt_check(open_count() == open_at_start + 1, "descriptors open: %d at the start, %d now (the source added)",
             open_at_start, open_count());
    return tt_finish("test_fd_lift");
}

/* fd.c - see fd.h. */
#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether a and b are the same file (as far as fstat tells). */
static int same_file(int a, int b)
{
    struct stat x, y;
    return fstat(a, &x) == 0 && fstat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

int tcu_fd_lift(int fd)
{
    if (fd < 0 || fd >= TCU_FD_FLOOR)
        return fd;
    int saved = errno;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, TCU_FD_FLOOR);
    if (high < 0 && fd <= 2) /* (no number at or above the floor: at least not a standard one) */
        high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (high >= 0) {
        /* The program may have put a descriptor of its own on the number meanwhile (dup2
         * replaces ours silently): that one is not closed. */
        if (same_file(fd, high))
            close(fd);
    } else {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    errno = saved;
    return high >= 0 ? high : fd;
}

/* ---- the standard numbers, held while the profiler makes a descriptor ---------------------- */

/* One guard for the process: while any thread of the profiler makes a descriptor, each
 * standard number that was free is held by a stand-in, released when the last of them is
 * done (a guard of each thread's own would let one thread release a number another is
 * counting on). A stand-in is the read end of a pipe of its own whose write end is closed:
 * the program's read of the number meets the end of a file, its write fails (EBADF) as on a
 * closed number, and no byte goes anywhere. */
struct stand_in {
    int fd;
    dev_t dev;
    ino_t ino;
};
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int guard_users;
static struct stand_in stand_ins[3];
static int stand_in_count;

/* Whether the number still holds the stand-in: the program's dup2 onto it replaces it (and
 * clears close-on-exec, which the stand-ins have). */
static int still_stand_in(const struct stand_in *s)
{
    struct stat now;
    int flags = fcntl(s->fd, F_GETFD);
    return flags >= 0 && (flags & FD_CLOEXEC) && fstat(s->fd, &now) == 0 && now.st_dev == s->dev &&
           now.st_ino == s->ino;
}

static int standard_free(void)
{
    return fcntl(0, F_GETFD) < 0 || fcntl(1, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0;
}

/* A new descriptor takes the lowest free number: each pipe's read end takes a free standard
 * number until one lands at 3 or above. A pipe's two ends are told to be the guard's own
 * (the program may dup2 onto either as soon as they exist) by their shared inode. */
static void take_free_standard(void)
{
    while (stand_in_count < 3) {
        int ends[2];
        struct stat r, w;
        if (pipe2(ends, O_CLOEXEC) != 0)
            return;
        if (!(fstat(ends[0], &r) == 0 && fstat(ends[1], &w) == 0 && S_ISFIFO(r.st_mode) && r.st_dev == w.st_dev &&
              r.st_ino == w.st_ino)) {
            /* The program put a descriptor on a standard one: the ends there are left to
             * the program's dup2s, which are putting its standard descriptors back. */
            for (int i = 0; i < 2; i++) {
                if (ends[i] > 2)
                    close(ends[i]);
            }
            return;
        }
        close(ends[1]); /* (its number, when a standard one, goes to the next pipe's read end) */
        if (ends[0] > 2) {
            close(ends[0]);
            return;
        }
        stand_ins[stand_in_count++] = (struct stand_in){ends[0], r.st_dev, r.st_ino};
    }
}

static void release_stand_ins(void)
{
    for (int i = 0; i < stand_in_count; i++) {
        if (still_stand_in(&stand_ins[i]))
            close(stand_ins[i].fd);
    }
    stand_in_count = 0;
}

/* A forked child has none of the threads that were making descriptors. */
static void guard_after_fork(void)
{
    pthread_mutex_init(&guard_lock, NULL);
    guard_users = 0;
    release_stand_ins();
}

static void guard_register_fork(void)
{
    pthread_atfork(NULL, NULL, guard_after_fork);
}

void tcu_fd_guard_begin(void)
{
    int saved = errno;
    pthread_once(&guard_once, guard_register_fork);
    pthread_mutex_lock(&guard_lock);
    guard_users++;
    if (standard_free())
        take_free_standard();
    pthread_mutex_unlock(&guard_lock);
    errno = saved;
}

int tcu_fd_guard_end(int fd)
{
    int saved = errno;
    pthread_mutex_lock(&guard_lock);
    if (guard_users > 0 && --guard_users == 0)
        release_stand_ins();
    pthread_mutex_unlock(&guard_lock);
    errno = saved;
    return tcu_fd_lift(fd);
}

int tcu_fd_open(const char *path, int flags, int mode)
{
    tcu_fd_guard_begin();
    return tcu_fd_guard_end(open(path, flags | O_CLOEXEC, mode));
}

int tcu_fd_socket(int domain, int type)
{
    tcu_fd_guard_begin();
    return tcu_fd_guard_end(socket(domain, type | SOCK_CLOEXEC, 0));
}

int tcu_fd_eventfd(void)
{
    tcu_fd_guard_begin();
    return tcu_fd_guard_end(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
}

FILE *tcu_fd_fopen_read(const char *path)
{
    int fd = tcu_fd_open(path, O_RDONLY, 0);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f && fd >= 0)
        close(fd);
    return f;
}

void tcu_fd_run_above_floor(void (*init)(void *), void *arg)
{
    /* The stand-in taking the free low numbers: a pipe's read end, whose inode no other
     * descriptor shares, so that a number the program has taken over meanwhile (dup2 onto
     * it) is told apart and left alone. F_DUPFD takes only free numbers. */
    int ends[2];
    struct stat mine;
    tcu_fd_guard_begin();
    if (pipe2(ends, O_CLOEXEC) != 0) {
        tcu_fd_guard_end(-1);
        init(arg);
        return;
    }
    close(ends[1]);
    int stand_in = tcu_fd_guard_end(ends[0]);
    int *taken = fstat(stand_in, &mine) == 0 ? malloc(TCU_FD_FLOOR * sizeof *taken) : NULL;
    int n = 0;
    while (taken) {
        int fd = fcntl(stand_in, F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
            break;
        if (fd >= TCU_FD_FLOOR) {
            close(fd);
            break;
        }
        taken[n++] = fd;
    }
    init(arg);
    for (int i = 0; i < n; i++) {
        struct stat now;
        if (fstat(taken[i], &now) == 0 && now.st_ino == mine.st_ino && now.st_dev == mine.st_dev)
            close(taken[i]);
    }
    free(taken);
    close(stand_in);
}

int tcu_fd_accept_starved(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

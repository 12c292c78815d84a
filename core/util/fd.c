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

/* ---- stand-ins: numbers held for the profiler a while ------------------------------------- */

/* A stand-in is a copy of the source: the read end of a pipe whose write end is closed, kept
 * at or above the floor, made the first time a stand-in is needed. On a stand-in's number the
 * program's reads meet the end of a file and its writes fail (EBADF), as on a closed number.
 * F_DUPFD makes a copy on the lowest free number at once, so no descriptor of another kind is
 * ever on a number the guard takes. A copy is told apart from what the program may have put
 * on its number meanwhile (dup2 replaces it silently) by its inode and its close-on-exec,
 * which dup2 clears. Under guard_lock. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int source = -1;
static struct stat source_st;

/* The pipe is made like any descriptor, on the lowest free numbers, so each of its ends is
 * told to be the guard's by its inode before it is closed or used (the program may put a
 * descriptor of its own on either meanwhile: then a new pipe). */
static int same_inode(int fd, const struct stat *st)
{
    struct stat now;
    return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
}

static int close_on_exec(int fd)
{
    int flags = fcntl(fd, F_GETFD);
    return flags >= 0 && (flags & FD_CLOEXEC);
}

static int close_on_exec_fifo(int fd)
{
    struct stat now;
    return close_on_exec(fd) && fstat(fd, &now) == 0 && S_ISFIFO(now.st_mode);
}

static int make_source(void)
{
    for (int tries = 0; source < 0 && tries < 3; tries++) {
        int ends[2];
        struct stat st;
        if (pipe2(ends, O_CLOEXEC) != 0)
            return -1;
        int ours = close_on_exec_fifo(ends[0]) && close_on_exec_fifo(ends[1]) && fstat(ends[0], &st) == 0 &&
                   same_inode(ends[1], &st);
        int high = ours ? fcntl(ends[0], F_DUPFD_CLOEXEC, TCU_FD_FLOOR) : -1;
        if (high < 0 && ours)
            high = fcntl(ends[0], F_DUPFD_CLOEXEC, 3); /* (no number at or above the floor) */
        for (int i = 0; i < 2; i++) {                  /* (the program's dup2 clears close-on-exec) */
            if (ends[i] > 2 || close_on_exec_fifo(ends[i]))
                close(ends[i]);
        }
        if (high >= 0 && same_inode(high, &st)) {
            source = high;
            source_st = st;
        } else if (high >= 0) {
            close(high); /* (a copy of the program's descriptor, put on the end's number) */
        }
    }
    return source >= 0 ? 0 : -1;
}

/* Whether fd still holds a stand-in (not the program's own, put on its number). */
static int is_stand_in(int fd)
{
    return close_on_exec(fd) && same_inode(fd, &source_st);
}

/* Takes the free numbers below limit, lowest first, with stand-ins into held (at most cap);
 * returns how many. */
static int take_free_below(int limit, int *held, int cap)
{
    int n = 0;
    while (n < cap && make_source() == 0) {
        int copy = fcntl(source, F_DUPFD_CLOEXEC, 0);
        if (copy < 0)
            break;
        if (copy >= limit) {
            close(copy);
            break;
        }
        held[n++] = copy;
    }
    return n;
}

static void release(const int *held, int n)
{
    for (int i = 0; i < n; i++) {
        if (is_stand_in(held[i]))
            close(held[i]);
    }
}

/* ---- the standard numbers, held while the profiler makes a descriptor ---------------------- */

/* One guard for the process: while any thread of the profiler makes a descriptor, each
 * standard number that was free is held, released when the last of them is done (a guard
 * of each thread's own would let one thread release a number another is counting on). */
static int guard_users;
static int standard_held[3];
static int standard_count;

static int standard_free(void)
{
    return fcntl(0, F_GETFD) < 0 || fcntl(1, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0;
}

/* A fork never happens in the middle of a guard's bookkeeping; the child has none of the
 * threads that were making descriptors. */
static void guard_before_fork(void)
{
    pthread_mutex_lock(&guard_lock);
}

static void guard_after_fork_parent(void)
{
    pthread_mutex_unlock(&guard_lock);
}

static void guard_after_fork_child(void)
{
    guard_users = 0;
    release(standard_held, standard_count);
    standard_count = 0;
    pthread_mutex_unlock(&guard_lock);
}

static void guard_register_fork(void)
{
    pthread_atfork(guard_before_fork, guard_after_fork_parent, guard_after_fork_child);
}

void tcu_fd_guard_begin(void)
{
    int saved = errno;
    pthread_once(&guard_once, guard_register_fork);
    pthread_mutex_lock(&guard_lock);
    guard_users++;
    if (standard_count < 3 && standard_free())
        standard_count += take_free_below(3, standard_held + standard_count, 3 - standard_count);
    pthread_mutex_unlock(&guard_lock);
    errno = saved;
}

int tcu_fd_guard_end(int fd)
{
    int saved = errno;
    pthread_mutex_lock(&guard_lock);
    if (guard_users > 0 && --guard_users == 0) {
        release(standard_held, standard_count);
        standard_count = 0;
    }
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
    /* The guard holds the free standard numbers meanwhile: the others below the floor are
     * taken with stand-ins, and a guard another thread begins or ends meanwhile changes none
     * of them. */
    int saved = errno;
    tcu_fd_guard_begin();
    int *taken = malloc(TCU_FD_FLOOR * sizeof *taken);
    int n = 0;
    if (taken) {
        pthread_mutex_lock(&guard_lock);
        n = take_free_below(TCU_FD_FLOOR, taken, TCU_FD_FLOOR);
        pthread_mutex_unlock(&guard_lock);
    }
    errno = saved;
    init(arg);
    saved = errno;
    release(taken, n);
    free(taken);
    errno = saved;
    tcu_fd_guard_end(-1);
}

int tcu_fd_accept_starved(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

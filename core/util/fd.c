/* fd.c - see fd.h. */
#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether fd is the file st was taken of (as far as fstat tells). */
static int same_inode(int fd, const struct stat *st)
{
    struct stat now;
    return fstat(fd, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino;
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
        struct stat ours;
        if (fstat(high, &ours) == 0 && same_inode(fd, &ours))
            close(fd);
    } else {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    errno = saved;
    return high >= 0 ? high : fd;
}

static int close_on_exec(int fd)
{
    int flags = fcntl(fd, F_GETFD);
    return flags >= 0 && (flags & FD_CLOEXEC);
}

/* Whether fd is still the descriptor that st was taken of (fstat when it was made): a program
 * that closed the number and put a descriptor of its own there, or put one there with dup2 in
 * its place, is told apart by the file and by close-on-exec, which ours have and dup2 clears. */
static int still_ours(int fd, const struct stat *st)
{
    return fd >= 0 && close_on_exec(fd) && same_inode(fd, st);
}

/* ---- stand-ins: numbers held for the profiler a while ------------------------------------- */

/* A stand-in is a copy of the source: the read end of a pipe whose write end is closed, kept
 * at or above the floor, made the first time a stand-in is needed. On a stand-in's number the
 * program's reads meet the end of a file and its writes fail (EBADF), as on a closed number.
 * F_DUPFD makes a copy on the lowest free number at once, so no descriptor of another kind is
 * ever on a number the guard takes. A copy is told apart from what the program may have put
 * on its number meanwhile (dup2 replaces it silently) by its inode and its close-on-exec,
 * which dup2 clears. Under guard_lock. */
struct held {
    int fd;
    struct stat st; /* the source's when the copy was made */
};
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static int source = -1;
static struct stat source_st;

static int close_on_exec_fifo(int fd)
{
    struct stat now;
    return close_on_exec(fd) && fstat(fd, &now) == 0 && S_ISFIFO(now.st_mode);
}

/* Whether the source is still the guard's pipe end and has no writer: the program may
 * close its number or put a descriptor of its own there, or open the pipe for writing
 * through a stand-in's /proc/self/fd entry. Else it is let go (closed while it is ours). */
static int source_sound(void)
{
    if (source < 0)
        return 0;
    struct pollfd p = {source, POLLIN, 0};
    int ours = still_ours(source, &source_st);
    if (ours && poll(&p, 1, 0) == 1 && p.revents == POLLHUP)
        return 1;
    if (ours)
        close(source);
    source = -1;
    return 0;
}

/* The pipe is made like any descriptor, on the lowest free numbers, so each of its ends is
 * told to be the guard's (close-on-exec, one pipe's) before it is closed or used: the program
 * may put a descriptor of its own on either meanwhile, and then a new pipe is made. */
static int make_source(void)
{
    for (int tries = 0; !source_sound() && tries < 3; tries++) {
        int ends[2];
        struct stat st;
        if (pipe2(ends, O_CLOEXEC) != 0)
            return -1;
        int ours = close_on_exec_fifo(ends[0]) && close_on_exec_fifo(ends[1]) && fstat(ends[0], &st) == 0 &&
                   same_inode(ends[1], &st);
        int high = ours ? fcntl(ends[0], F_DUPFD_CLOEXEC, TCU_FD_FLOOR) : -1;
        if (high < 0 && ours)
            high = fcntl(ends[0], F_DUPFD_CLOEXEC, 3); /* (no number at or above the floor) */
        for (int i = 0; i < 2; i++) {
            if (close_on_exec_fifo(ends[i]))
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

/* Whether the number still holds the stand-in (not the program's own, put on it). */
static int is_stand_in(const struct held *h)
{
    return still_ours(h->fd, &h->st);
}

/* Takes the free numbers below limit, lowest first, with stand-ins into held (at most cap);
 * returns how many. */
static int take_free_below(int limit, struct held *held, int cap)
{
    int n = 0;
    /* The source is looked at once per call, not once per copy: each look is three system
     * calls, some microseconds on a VM, and run_above_floor takes up to 253 numbers at a
     * program's start. Each copy is still told to be of the source's pipe. */
    if (cap > 0 && make_source() != 0)
        return 0;
    while (n < cap) {
        int copy = fcntl(source, F_DUPFD_CLOEXEC, 0);
        if (copy < 0)
            break;
        if (copy >= limit || !same_inode(copy, &source_st)) {
            close(copy);
            break;
        }
        held[n++] = (struct held){copy, source_st};
    }
    return n;
}

static void release(const struct held *held, int n)
{
    for (int i = 0; i < n; i++) {
        if (is_stand_in(&held[i]))
            close(held[i].fd);
    }
}

/* ---- the standard numbers, held while the profiler makes a descriptor ---------------------- */

/* One guard for the process: while any thread of the profiler makes a descriptor, each
 * standard number that was free is held, released when the last of them is done (a guard
 * of each thread's own would let one thread release a number another is counting on). */
static int guard_users;
static struct held standard_held[3];
static int standard_count;
static struct held *floor_held; /* tcu_fd_run_above_floor's, while its init runs */
static int floor_count;
/* In a forked child: the floor_held of the parent's thread that was running an init (its only
 * owner, not in the child), kept for the child's leak check (client/lifecycle.c, after_fork_child). */
static struct held *parents_floor_held;

static int standard_free(void)
{
    return fcntl(0, F_GETFD) < 0 || fcntl(1, F_GETFD) < 0 || fcntl(2, F_GETFD) < 0;
}

/* A fork never happens in the middle of a guard's bookkeeping; the child has none of the
 * threads that were making descriptors. The forking thread holds guard_lock from the guard's
 * prepare handler on: the handlers that run after it (a program's, registered before the
 * profiler started) may still make descriptors, the first callstack walk's pipe among them,
 * without waiting for themselves. */
static _Thread_local int forking_holds_guard;

static void lock_guard(void)
{
    if (!forking_holds_guard)
        pthread_mutex_lock(&guard_lock);
}

static void unlock_guard(void)
{
    if (!forking_holds_guard)
        pthread_mutex_unlock(&guard_lock);
}

static void guard_before_fork(void)
{
    pthread_mutex_lock(&guard_lock);
    forking_holds_guard = 1;
}

static void guard_after_fork_parent(void)
{
    forking_holds_guard = 0;
    pthread_mutex_unlock(&guard_lock);
}

static void guard_after_fork_child(void)
{
    guard_users = 0;
    release(standard_held, standard_count);
    standard_count = 0;
    release(floor_held, floor_count);
    floor_count = 0;
    parents_floor_held = floor_held;
    floor_held = NULL;
    forking_holds_guard = 0;
    pthread_mutex_unlock(&guard_lock);
}

static void guard_register_fork(void)
{
    pthread_atfork(guard_before_fork, guard_after_fork_parent, guard_after_fork_child);
}

void tcu_fd_guard_register_fork(void)
{
    pthread_once(&guard_once, guard_register_fork);
}

void tcu_fd_guard_begin(void)
{
    int saved = errno;
    tcu_fd_guard_register_fork();
    lock_guard();
    guard_users++;
    if (standard_free()) {
        int kept = 0; /* (a number the program has put its own descriptor on is not held) */
        for (int i = 0; i < standard_count; i++) {
            if (is_stand_in(&standard_held[i]))
                standard_held[kept++] = standard_held[i];
        }
        standard_count = kept + take_free_below(3, standard_held + kept, 3 - kept);
    }
    unlock_guard();
    errno = saved;
}

int tcu_fd_guard_end(int fd)
{
    int saved = errno;
    lock_guard();
    if (guard_users > 0 && --guard_users == 0) {
        release(standard_held, standard_count);
        standard_count = 0;
    }
    unlock_guard();
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
     * of them. Only when there is room above the floor: else init would find none free. */
    int saved = errno;
    tcu_fd_guard_begin();
    struct held *taken = malloc(TCU_FD_FLOOR * sizeof *taken);
    lock_guard();
    int room = make_source() == 0 ? fcntl(source, F_DUPFD_CLOEXEC, TCU_FD_FLOOR) : -1;
    if (room >= 0)
        close(room);
    if (taken && room >= 0 && !floor_held) {
        floor_held = taken;
        floor_count = take_free_below(TCU_FD_FLOOR, taken, TCU_FD_FLOOR);
    }
    unlock_guard();
    errno = saved;
    init(arg);
    saved = errno;
    lock_guard();
    if (floor_held == taken) {
        release(floor_held, floor_count);
        floor_held = NULL;
        floor_count = 0;
    }
    unlock_guard();
    free(taken);
    errno = saved;
    tcu_fd_guard_end(-1);
}

int tcu_fd_accept_starved(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

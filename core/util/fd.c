/* fd.c - see fd.h. */
#include "util/fd.h"

#include <errno.h>
#include <fcntl.h>
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

void tcu_fd_guard_standard(struct tcu_fd_guard *g)
{
    g->count = 0;
    int saved = errno;
    if (fcntl(0, F_GETFD) >= 0 && fcntl(1, F_GETFD) >= 0 && fcntl(2, F_GETFD) >= 0)
        return; /* (the usual case) */
    /* New descriptors take the lowest free numbers: the pipe's ends and their copies take
     * the free standard ones, until one lands at 3 or above. */
    int ends[2];
    struct stat st;
    if (pipe2(ends, O_CLOEXEC) != 0 || fstat(ends[0], &st) != 0) {
        errno = saved;
        return;
    }
    g->dev = st.st_dev;
    g->ino = st.st_ino;
    int above = 0;
    for (int i = 0; i < 2; i++) {
        if (ends[i] <= 2) {
            g->held[g->count++] = ends[i];
        } else {
            close(ends[i]);
            above = 1;
        }
    }
    while (!above && g->count < 3) {
        int copy = fcntl(g->held[0], F_DUPFD_CLOEXEC, 0);
        if (copy < 0 || copy > 2) {
            if (copy >= 0)
                close(copy);
            break;
        }
        g->held[g->count++] = copy;
    }
    errno = saved;
}

int tcu_fd_lift_guarded(struct tcu_fd_guard *g, int fd)
{
    int saved = errno;
    for (int i = 0; i < g->count; i++) {
        struct stat now;
        if (fstat(g->held[i], &now) == 0 && now.st_dev == g->dev && now.st_ino == g->ino)
            close(g->held[i]);
    }
    g->count = 0;
    errno = saved;
    return tcu_fd_lift(fd);
}

int tcu_fd_open(const char *path, int flags, int mode)
{
    struct tcu_fd_guard g;
    tcu_fd_guard_standard(&g);
    return tcu_fd_lift_guarded(&g, open(path, flags | O_CLOEXEC, mode));
}

int tcu_fd_socket(int domain, int type)
{
    struct tcu_fd_guard g;
    tcu_fd_guard_standard(&g);
    return tcu_fd_lift_guarded(&g, socket(domain, type | SOCK_CLOEXEC, 0));
}

int tcu_fd_eventfd(void)
{
    struct tcu_fd_guard g;
    tcu_fd_guard_standard(&g);
    return tcu_fd_lift_guarded(&g, eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
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
    struct tcu_fd_guard g;
    tcu_fd_guard_standard(&g);
    if (pipe2(ends, O_CLOEXEC) != 0) {
        tcu_fd_lift_guarded(&g, -1);
        init(arg);
        return;
    }
    close(ends[1]);
    int stand_in = tcu_fd_lift_guarded(&g, ends[0]);
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

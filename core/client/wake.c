/* wake.c - see wake.h. The worker sets `waiting` then reads `pending`; a producer sets
 * `pending` then reads `waiting` (both sequentially consistent): one of them sees the
 * other's store, so a signal is never lost between the worker's last look and its wait. */
#include "client/wake.h"

#include "util/fd.h"

#include <pthread.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int made;
static _Atomic int fd = -1;
static _Atomic int waiting, pending;

int tc_wake_fd(void)
{
    if (!made) { /* made once, under the lock */
        pthread_mutex_lock(&lock);
        if (!made) {
            fd = tcu_fd_eventfd();
            made = 1;
        }
        pthread_mutex_unlock(&lock);
    }
    return fd;
}

int tc_wake_wait_begin(void)
{
    atomic_store(&waiting, 1);
    return !atomic_load(&pending);
}

void tc_wake_wait_end(void)
{
    atomic_store(&waiting, 0);
    atomic_store(&pending, 0);
    eventfd_t count;
    if (fd >= 0)
        eventfd_read(fd, &count);
}

void tc_wake_worker(void)
{
    if (!atomic_load(&pending))
        atomic_store(&pending, 1);
    if (atomic_load(&waiting) && atomic_exchange(&waiting, 0))
        tc_wake_worker_now();
}

void tc_wake_worker_now(void)
{
    int f = tc_wake_fd();
    if (f >= 0)
        eventfd_write(f, 1);
}

void tc_wake_forget_after_fork(void)
{
    /* The child's own worker, if it runs one (TRACYC_FOLLOW_FORK), makes its own. */
    if (fd >= 0)
        close(fd);
    fd = -1;
    made = 0;
    waiting = pending = 0;
    pthread_mutex_init(&lock, NULL);
}

/* threads.c - see threads.h. A thread's id is known only inside it (gettid), so
 * the creator waits for the thread to say it; the list's lock is held meanwhile, and a
 * caller of tcu_threads_own never sees a thread that exists but is not listed yet. */
#include "util/threads.h"

#include <semaphore.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t lock;
    size_t n;
    struct {
        pthread_t thread;
        uint32_t tid;
    } list[TCU_MAX_OWN_THREADS];
    uint64_t joins;                    /* joins so far: the latest one's number */
    uint32_t joined[TCU_RECENT_JOINS]; /* join number j's thread at j % TCU_RECENT_JOINS */
} own = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct start {
    void *(*main)(void *);
    void *arg;
    const char *name;
    uint32_t tid;
    sem_t listed;
};

static void *run(void *p)
{
    struct start *s = p;
    void *(*main)(void *) = s->main;
    void *arg = s->arg;
    pthread_setname_np(pthread_self(), s->name);
    s->tid = (uint32_t)syscall(SYS_gettid);
    sem_post(&s->listed); /* s lives on the creator's stack: not touched after this */
    return main(arg);
}

int tcu_thread_start(pthread_t *thread, const char *name, void *(*main)(void *), void *arg)
{
    struct start s = {main, arg, name, 0, {{0}}};
    if (sem_init(&s.listed, 0, 0) != 0)
        return -1;
    /* The thread takes none of the program's signals (it inherits this mask): they are the
     * program's threads' to handle (an exit signal's handler among them: the worker it wakes
     * ends the program by that signal when the capture is written). A fault of the thread's
     * own still reaches the program's crash handler. */
    sigset_t all, before;
    sigfillset(&all);
    const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT};
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    pthread_mutex_lock(&own.lock);
    int rc = own.n < TCU_MAX_OWN_THREADS ? pthread_create(thread, NULL, run, &s) : -1;
    if (rc == 0) {
        while (sem_wait(&s.listed) != 0) /* EINTR */
            ;
        own.list[own.n].thread = *thread;
        own.list[own.n].tid = s.tid;
        own.n++;
    }
    pthread_mutex_unlock(&own.lock);
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    sem_destroy(&s.listed);
    return rc;
}

/* pthread_join returns once the kernel has cleared the thread's id, before it takes the
 * thread's perf events away: a switch or a sample of it may still be written meanwhile. The
 * kernel no longer knows the id once it has (a traced thread is released only when its
 * tracer has waited for it: hence the bound, a second). */
static void wait_released(uint32_t tid)
{
    pid_t pid = getpid();
    for (int i = 0; i < 10000 && syscall(SYS_tgkill, pid, (pid_t)tid, 0) == 0; i++)
        nanosleep(&(struct timespec){0, 100000}, NULL);
}

void tcu_thread_join(pthread_t thread)
{
    uint32_t tid = 0;
    pthread_mutex_lock(&own.lock);
    for (size_t i = 0; i < own.n; i++)
        if (pthread_equal(own.list[i].thread, thread))
            tid = own.list[i].tid;
    pthread_mutex_unlock(&own.lock);
    pthread_join(thread, NULL);
    if (tid)
        wait_released(tid);
    pthread_mutex_lock(&own.lock);
    for (size_t i = 0; i < own.n; i++)
        if (pthread_equal(own.list[i].thread, thread)) {
            own.joined[++own.joins % TCU_RECENT_JOINS] = own.list[i].tid;
            own.list[i] = own.list[--own.n];
            break;
        }
    pthread_mutex_unlock(&own.lock);
}

size_t tcu_threads_joined(uint64_t since, uint32_t *tids, size_t cap, uint64_t *latest)
{
    pthread_mutex_lock(&own.lock);
    uint64_t first = own.joins > TCU_RECENT_JOINS ? own.joins - TCU_RECENT_JOINS + 1 : 1;
    if (first <= since)
        first = since + 1;
    size_t n = 0;
    for (uint64_t j = first; j <= own.joins && n < cap; j++)
        tids[n++] = own.joined[j % TCU_RECENT_JOINS];
    *latest = own.joins;
    pthread_mutex_unlock(&own.lock);
    return n;
}

void tcu_threads_forget_after_fork(void)
{
    pthread_mutex_init(&own.lock, NULL);
    own.n = 0;
    own.joins = 0;
}

size_t tcu_threads_own(uint32_t *tids, size_t cap)
{
    pthread_mutex_lock(&own.lock);
    size_t n = own.n;
    for (size_t i = 0; tids && i < n && i < cap; i++)
        tids[i] = own.list[i].tid;
    pthread_mutex_unlock(&own.lock);
    return n;
}

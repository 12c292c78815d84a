/* resolver.c - the resolver thread (see resolver.h). Queries and answers pass through two
 * lists under one mutex; neither is on the hot path. */
#include "native/resolver.h"

#include "native/libdw.h"
#include "util/monotonic.h"
#include "util/threads.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t idle; /* broadcast when a query's resolving ends; on CLOCK_MONOTONIC */
    int idle_ready;      /* idle is initialised */
    pthread_t thread;
    int started, stopping; /* started: the lists are set up */
    int has_thread, threadless;
    struct tcn_resolved *todo, **todo_tail; /* in query order */
    struct tcn_resolved *current;           /* being resolved (by the thread or a helper) */
    struct tcn_resolved *done;              /* answered, in order */
    struct tcn_resolved **done_tail;
    struct tcn_resolved *handed; /* taken by the worker, not released yet */
    size_t waiting;              /* in todo */
    int forks_waiting;           /* forks between their prepare and parent handlers: no query starts */
    struct tcn_symbols *symbols; /* of whoever resolves (the thread or a helper) */
    void (*answered)(void);
} r = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static const struct tcn_symbol_location unknown_location = {"[unknown]", 1, {{"[unknown]", "[unknown]", 0, 0, 0}}};

/* The fork's wait for the lock and the query being resolved (tcn_resolver_before_fork): a
 * query takes milliseconds, the first in a large module's DWARF up to a second or so. The
 * bound only keeps a fork from waiting forever for a lock its holder keeps (lock_by). */
#define FORK_WAIT_NS 2000000000LL
#define FORK_LOCK_POLL_NS 50000L
static _Thread_local int holds_for_fork; /* this thread holds r.lock across its fork */

/* What a server can make the client hold: answers kept for addresses (a program has far
 * fewer distinct frames), and queries waiting. Past the first, new addresses are answered
 * "[unknown]"; past the second, queries are refused (the caller answers "[unknown]"). */
#define MAX_CACHE_BYTES ((size_t)64 << 20)
#define MAX_WAITING 100000

static void append(struct tcn_resolved ***tail, struct tcn_resolved *job)
{
    job->next = NULL;
    **tail = job;
    *tail = &job->next;
}

static void resolve(struct tcn_resolved *job)
{
    if (!r.symbols)
        r.symbols = tcn_symbols_new();
    int full = r.symbols && tcn_symbols_memory(r.symbols) > MAX_CACHE_BYTES;
    if (job->kind == TCN_RESOLVE_FRAMES) {
        job->location = r.symbols && !full ? tcn_symbols_location(r.symbols, job->ptr) : &unknown_location;
    } else if (r.symbols && !full) {
        tcn_symbols_symbol(r.symbols, job->ptr, &job->file, &job->line);
    } else {
        job->file = "[unknown]";
        job->line = 0;
    }
}

/* Initialises r.idle on CLOCK_MONOTONIC, the clock of the fork's deadline (a static
 * initialiser's is CLOCK_REALTIME, which jumps). */
static void init_idle(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&r.idle, &attr);
    pthread_condattr_destroy(&attr);
    r.idle_ready = 1;
}

/* Resolves the oldest waiting query, outside the lock (it is current meanwhile, so nobody
 * else resolves), and files its answer. Called, and returns, under r.lock. */
static void resolve_next(void)
{
    struct tcn_resolved *job = r.todo;
    r.todo = job->next;
    if (!r.todo)
        r.todo_tail = &r.todo;
    r.waiting--;
    r.current = job;
    pthread_mutex_unlock(&r.lock);
    resolve(job);
    pthread_mutex_lock(&r.lock);
    r.current = NULL;
    append(&r.done_tail, job);
    pthread_cond_broadcast(&r.idle); /* a fork may be waiting for this one */
}

static void *resolver_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&r.lock);
    for (;;) {
        while ((!r.todo || r.current || r.forks_waiting) && !r.stopping)
            pthread_cond_wait(&r.wake, &r.lock);
        if (r.stopping)
            break;
        resolve_next();
        if (r.answered) {
            pthread_mutex_unlock(&r.lock);
            r.answered();
            pthread_mutex_lock(&r.lock);
        }
    }
    pthread_mutex_unlock(&r.lock);
    return NULL;
}

#define HELP_NS 2000000LL

/* Bytes of stack below the caller's frame; 0 when the caller runs on a stack that is not
 * its thread's (a fiber's, a signal's alternate stack), whose size nothing tells. */
static size_t stack_room(void)
{
    pthread_attr_t attr;
    void *low;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    int got = pthread_attr_getstack(&attr, &low, &size);
    pthread_attr_destroy(&attr);
    uintptr_t here = (uintptr_t)__builtin_frame_address(0), bottom = (uintptr_t)low;
    return got == 0 && here > bottom && here - bottom <= size ? here - bottom : 0;
}

int tcn_resolver_help(void)
{
    int64_t until = tcu_monotonic_ns() + HELP_NS;
    int resolved = 0;
    pthread_mutex_lock(&r.lock);
    while (r.threadless && r.started && !r.current && !r.forks_waiting && !r.stopping && r.todo &&
           (resolved == 0 || tcu_monotonic_ns() < until)) {
        resolve_next();
        pthread_cond_signal(&r.wake); /* the thread waits while a helper resolves */
        resolved++;
    }
    pthread_mutex_unlock(&r.lock);
    return resolved;
}

void tcn_resolver_go_threadless(void)
{
    if (stack_room() < ((size_t)1 << 20))
        return;
    pthread_mutex_lock(&r.lock);
    r.threadless = 1;
    pthread_mutex_unlock(&r.lock);
}

void tcn_resolver_set_notify(void (*answered)(void))
{
    r.answered = answered;
}

int tcn_resolver_submit(uint64_t conn, enum tcn_resolve_kind kind, uint64_t ptr)
{
    pthread_mutex_lock(&r.lock);
    /* Made under the lock, which a fork holds: a child never finds the query on this
     * thread's stack only. */
    struct tcn_resolved *job = calloc(1, sizeof *job);
    if (!job) {
        pthread_mutex_unlock(&r.lock);
        return -1;
    }
    job->conn = conn;
    job->kind = kind;
    job->ptr = ptr;
    if (!r.idle_ready)
        init_idle();
    if (!r.started) {
        r.todo = r.done = r.current = NULL;
        r.todo_tail = &r.todo;
        r.done_tail = &r.done;
        r.waiting = 0;
        r.stopping = 0;
        r.started = 1;
    }
    if (!r.has_thread && !r.threadless) {
        if (tcu_thread_start(&r.thread, "tracyc symbols", resolver_main, NULL) != 0) {
            pthread_mutex_unlock(&r.lock);
            free(job);
            return -1;
        }
        r.has_thread = 1;
    }
    if (r.waiting >= MAX_WAITING) {
        pthread_mutex_unlock(&r.lock);
        free(job);
        return -1;
    }
    append(&r.todo_tail, job);
    r.waiting++;
    pthread_cond_signal(&r.wake);
    pthread_mutex_unlock(&r.lock);
    return 0;
}

/* Moves the jobs of conn from *list to *out (kept in order); the list's tail is returned. */
static struct tcn_resolved **take_from(struct tcn_resolved **list, uint64_t conn, struct tcn_resolved ***out,
                                       size_t *count)
{
    struct tcn_resolved **p = list;
    while (*p) {
        struct tcn_resolved *job = *p;
        if (job->conn == conn) {
            *p = job->next;
            if (count)
                --*count;
            if (out)
                append(out, job);
            else
                free(job);
        } else {
            p = &job->next;
        }
    }
    return p;
}

struct tcn_resolved *tcn_resolver_take(uint64_t conn)
{
    struct tcn_resolved *mine = NULL, **mine_tail = &mine;
    pthread_mutex_lock(&r.lock);
    if (r.started)
        r.done_tail = take_from(&r.done, conn, &mine_tail, NULL);
    r.handed = mine;
    pthread_mutex_unlock(&r.lock);
    return mine;
}

static void free_list(struct tcn_resolved *jobs)
{
    while (jobs) {
        struct tcn_resolved *next = jobs->next;
        free(jobs);
        jobs = next;
    }
}

void tcn_resolver_release(struct tcn_resolved *answers)
{
    pthread_mutex_lock(&r.lock);
    if (r.handed == answers) /* before the free: a freed pointer's value is indeterminate */
        r.handed = NULL;
    free_list(answers);
    pthread_mutex_unlock(&r.lock);
}

void tcn_resolver_forget(uint64_t conn)
{
    pthread_mutex_lock(&r.lock);
    if (r.started) {
        r.todo_tail = take_from(&r.todo, conn, NULL, &r.waiting);
        r.done_tail = take_from(&r.done, conn, NULL, NULL);
        /* The one being resolved lands in `done` and is freed with the rest at stop. */
    }
    pthread_mutex_unlock(&r.lock);
}

void tcn_resolver_stop(void)
{
    pthread_mutex_lock(&r.lock);
    if (!r.started) {
        pthread_mutex_unlock(&r.lock);
        return;
    }
    r.stopping = 1;
    pthread_cond_signal(&r.wake);
    pthread_mutex_unlock(&r.lock);
    if (r.has_thread)
        tcu_thread_join(r.thread);
    r.has_thread = r.threadless = 0;
    free_list(r.todo);
    free_list(r.done);
    r.todo = r.done = NULL;
    tcn_symbols_free(r.symbols);
    r.symbols = NULL;
    r.started = 0;
}

/* Takes r.lock by the deadline (1), or not (0): its holder may never let it go before the
 * fork, being this very thread (a fork from a signal handler that interrupted it) or one
 * that waits for this thread (tests/c/test_fork_resolver.c makes one). */
static int lock_by(int64_t deadline)
{
    while (pthread_mutex_trylock(&r.lock) != 0) {
        if (tcu_monotonic_ns() >= deadline)
            return 0;
        nanosleep(&(struct timespec){0, FORK_LOCK_POLL_NS}, NULL);
    }
    return 1;
}

void tcn_resolver_before_fork(void)
{
    int64_t deadline = tcu_monotonic_ns() + FORK_WAIT_NS;
    if (!lock_by(deadline))
        return;
    holds_for_fork = 1;
    r.forks_waiting++; /* no query starts meanwhile: the wait is for the current one alone */
    struct timespec until = {(time_t)(deadline / 1000000000), (long)(deadline % 1000000000)};
    while (r.current) /* set by a query: idle is initialised */
        if (pthread_cond_timedwait(&r.idle, &r.lock, &until) != 0)
            break; /* past the deadline: forked with the query half-resolved, as before the wait */
}

void tcn_resolver_after_fork_parent(void)
{
    if (holds_for_fork) {
        holds_for_fork = 0;
        r.forks_waiting--;
        pthread_cond_signal(&r.wake); /* the queries the fork held back */
        pthread_mutex_unlock(&r.lock);
    }
}

/* The parent's lists and caches, as they were at the fork: kept in the child for its leak
 * check (client/lifecycle.c, after_fork_child). */
static struct {
    struct tcn_resolved *todo, *current, *done, *handed;
    struct tcn_symbols *symbols;
} parents;

void tcn_resolver_forget_after_fork(void)
{
    /* The thread did not survive fork; its lists and caches are left as they are rather
     * than freed with a lock it may have held (a followed child starts a resolver of its
     * own). */
    pthread_mutex_init(&r.lock, NULL);
    pthread_cond_init(&r.wake, NULL);
    init_idle();
    holds_for_fork = 0;
    r.forks_waiting = 0;
    r.started = r.has_thread = r.threadless = 0;
    parents.todo = r.todo;
    parents.current = r.current;
    parents.done = r.done;
    parents.handed = r.handed;
    parents.symbols = r.symbols;
    r.todo = r.done = r.current = r.handed = NULL;
    r.symbols = NULL;
    tcn_libdw_forget_after_fork();
}

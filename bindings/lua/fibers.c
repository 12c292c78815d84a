/* fibers.c - every coroutine is a Tracy fiber, so its zones nest on their own timeline.
 *
 * Tracy identifies a fiber by the address of its name, which must stay valid for the
 * process lifetime. Names are therefore never freed but recycled: a dead coroutine's
 * name goes back to a pool and the next coroutine reuses it (and its timeline, which it
 * left with no open zone). Memory stays bounded by the most coroutines alive at once. */
#include "binding.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

_Thread_local const char *tl_fiber_now TL_FAST_TLS;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static char **pool; /* free names */
static size_t pool_len, pool_cap;
static unsigned long made;

void tl_fiber_set(const char *fiber)
{
    if (fiber)
        ___tracy_fiber_enter(fiber);
    else
        ___tracy_fiber_leave();
    tl_fiber_now = fiber;
}

const char *tl_fiber_acquire(void)
{
    char *name = NULL;
    pthread_mutex_lock(&pool_lock);
    if (pool_len) {
        name = pool[--pool_len];
    } else {
        name = malloc(32);
        if (name)
            snprintf(name, 32, "Lua coroutine %lu", ++made);
    }
    pthread_mutex_unlock(&pool_lock);
    return name; /* NULL (out of memory) leaves the coroutine on its OS thread's timeline */
}

void tl_fiber_release(const char *fiber)
{
    pthread_mutex_lock(&pool_lock);
    if (pool_len == pool_cap) {
        size_t cap = pool_cap ? pool_cap * 2 : 16;
        char **grown = realloc(pool, cap * sizeof *grown);
        if (!grown) { /* keep it out of the pool: lost for reuse, still valid */
            pthread_mutex_unlock(&pool_lock);
            return;
        }
        pool = grown;
        pool_cap = cap;
    }
    pool[pool_len++] = (char *)fiber;
    pthread_mutex_unlock(&pool_lock);
}

/* lifecycle.h - starting the profiler (lazily, at the first call), registering threads,
 * shutdown and fork. The top of the client's core: it drives the worker. */
#ifndef TRACYC_CLIENT_LIFECYCLE_H
#define TRACYC_CLIENT_LIFECYCLE_H

#include "client/state.h"

/* Ensures the profiler is started; 0 when running. */
int tc_profiler_ensure(void);

/* Starts the profiler on first use. Returns the calling thread's state, or NULL when
 * the library is disabled or shut down. */
struct tc_thread *tc_thread_attach(void);

static inline struct tc_thread *tc_thread_get(void)
{
    struct tc_thread *t = tc_self;
    if (__builtin_expect(t != NULL, 1))
        return t;
    return tc_thread_attach();
}

#endif

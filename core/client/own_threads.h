/* own_threads.h - the profiler's own threads (the worker, the sampler, the symbol
 * resolver): started named, and known by id from before tc_own_thread_start returns until
 * tc_own_thread_join, so that whatever counts a process's threads can leave them out
 * (tracyc_own_threads: the fork warning of CPython 3.12+, a sampler looking for threads). */
#ifndef TRACYC_CLIENT_OWN_THREADS_H
#define TRACYC_CLIENT_OWN_THREADS_H

#include <pthread.h>

/* pthread_create for a thread of the profiler's, named name (at most 15 bytes). Returns
 * once the thread is listed: 0, or pthread_create's error. */
int tc_own_thread_start(pthread_t *thread, const char *name, void *(*main)(void *), void *arg);
/* pthread_join, then the thread is no longer listed. */
void tc_own_thread_join(pthread_t thread);
/* In a forked child: none of the parent's threads exists. */
void tc_own_threads_forget_after_fork(void);

#endif

/* threads.h - the profiler's own threads (the worker, the sampler, the symbol resolver):
 * started named, and known by id from before tcu_thread_start returns until
 * tcu_thread_join, so that whatever counts a process's threads can leave them out
 * (tracyc_own_threads: the fork warning of CPython 3.12+, a sampler looking for threads). */
#ifndef TRACYC_UTIL_THREADS_H
#define TRACYC_UTIL_THREADS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* pthread_create for a thread of the profiler's, named name (at most 15 bytes). Returns
 * once the thread is listed: 0, or pthread_create's error (-1: the list is full). */
int tcu_thread_start(pthread_t *thread, const char *name, void *(*main)(void *), void *arg);
/* pthread_join, then the thread is no longer listed. */
void tcu_thread_join(pthread_t thread);
/* The OS ids of the threads listed now: up to cap into tids (which may be NULL); returns
 * how many there are. */
size_t tcu_threads_own(uint32_t *tids, size_t cap);
/* In a forked child: none of the parent's threads exists. */
void tcu_threads_forget_after_fork(void);

#endif

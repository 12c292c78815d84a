/* threads.h - the profiler's own threads (the worker, the sampler, the symbol resolver):
 * started named, and known by id from before tcu_thread_start returns until
 * tcu_thread_join, so that whatever counts a process's threads can leave them out
 * (tracyc_own_threads: the fork warning of CPython 3.12+, a sampler looking for threads). */
#ifndef TRACYC_UTIL_THREADS_H
#define TRACYC_UTIL_THREADS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The worker, the sampler, the resolver, a binding's (Python's sampling thread), and room. */
#define TCU_MAX_OWN_THREADS 8

/* pthread_create for a thread of the profiler's, named name (at most 15 bytes). Returns
 * once the thread is listed: 0, or pthread_create's error (-1: the list is full). */
int tcu_thread_start(pthread_t *thread, const char *name, void *(*main)(void *), void *arg);
/* pthread_join, and once the kernel has released the thread (its perf events with it), it is
 * no longer listed but among the recently joined. */
void tcu_thread_join(pthread_t thread);
/* The OS ids of the threads listed now: up to cap into tids (which may be NULL); returns
 * how many there are. */
size_t tcu_threads_own(uint32_t *tids, size_t cap);
/* The threads joined after the join numbered `since` (0: the first): up to cap of the last
 * TCU_RECENT_JOINS into tids; returns how many were found, and the number of the latest
 * join in *latest (tids may be NULL with cap 0). A reader of records written by threads
 * that may have been joined since it last looked (a sampler) needs these beside
 * tcu_threads_own. */
#define TCU_RECENT_JOINS 64
size_t tcu_threads_joined(uint64_t since, uint32_t *tids, size_t cap, uint64_t *latest);
/* In a forked child: none of the parent's threads exists. */
void tcu_threads_forget_after_fork(void);

#endif

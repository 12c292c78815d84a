/* workers.c - four named worker threads sharing a lock, each running 100 jobs.
 * Shows per-thread zones, lock contention, thread names and named memory pools. */
#define _POSIX_C_SOURCE 200809L
#include <tracy/TracyC.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORKERS 4
#define JOBS 100

static pthread_mutex_t queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static TracyCLockCtx queue_lock;
static int jobs_done;

static void spin_us(long us)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do
        clock_gettime(CLOCK_MONOTONIC, &now);
    while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 < us);
}

static void *worker(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "worker %d", (int)(intptr_t)arg);
    TracyCSetThreadName(name);
    for (int i = 0; i < JOBS; i++) {
        TracyCZoneN(job, "job", 1);
        void *scratch = malloc(4096);
        TracyCAllocN(scratch, 4096, "scratch");
        spin_us(50);
        TracyCFreeN(scratch, "scratch");
        free(scratch);
        TracyCLockBeforeLock(queue_lock);
        pthread_mutex_lock(&queue_mutex);
        TracyCLockAfterLock(queue_lock);
        jobs_done++;
        pthread_mutex_unlock(&queue_mutex);
        TracyCLockAfterUnlock(queue_lock);
        TracyCZoneEnd(job);
    }
    return NULL;
}

int main(void)
{
    TracyCLockAnnounce(queue_lock);
    TracyCLockCustomName(queue_lock, "job queue", 9);
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&threads[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < WORKERS; i++)
        pthread_join(threads[i], NULL);
    TracyCLockTerminate(queue_lock);
    printf("workers: %d jobs\n", jobs_done);
    return 0;
}

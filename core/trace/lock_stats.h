/* lock_stats.h - an aggregator (sink.h): each lock's obtains, contention and waiting time.
 * Memory: one entry per lock, and the threads waiting for it at the moment. */
#ifndef TRACYC_TRACE_LOCK_STATS_H
#define TRACYC_TRACE_LOCK_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "trace/trace.h"

struct tct_lock {
    uint32_t source, id;
    uint32_t srcloc;               /* where it was announced */
    uint8_t shared;                /* a shared (read/write) lock */
    char *name;                    /* from LockName, NULL when none */
    int64_t announced, terminated; /* TCT_TIME_NONE when not seen */
    uint64_t waits, obtains, releases, marks;
    uint64_t contended;           /* waits that began while another holder had the lock */
    int64_t wait_total, wait_max; /* from each wait to its obtain */
    /* internal */
    uint32_t held; /* obtains not yet released */
    struct tct_lock_wait {
        uint32_t thread;
        int64_t since;
    } * waiting; /* threads waiting now (wait seen, obtain not yet) */
    size_t waiting_count, waiting_cap;
};

struct tct_lock_stats;

/* The trace's lock statistics, added to it on first use; NULL when out of memory. */
struct tct_lock_stats *tct_lock_stats_of(struct tct_trace *tr);
/* The locks, in the order they first appeared. */
size_t tct_lock_count(const struct tct_lock_stats *ls);
const struct tct_lock *tct_lock_at(const struct tct_lock_stats *ls, size_t index);
/* Its name as the outputs show it: its LockName, else the label of where it was announced,
 * else "lock N" written into buf. */
const char *tct_lock_label(const struct tct_trace *tr, const struct tct_lock *l, char *buf, size_t size);
/* Events the statistics could not keep (memory ran out). */
uint64_t tct_lock_stats_lost(const struct tct_lock_stats *ls);

#endif

/* fiber.h - fibers, found by the address of their name as Tracy identifies them.
 *
 * A fiber has its own zone stack, which moves with it from thread to thread: a zone
 * begun in a fiber on one thread may end in it on another. Fibers are created at their
 * first enter and live as long as the process (a program has as many as it has names;
 * the Lua binding recycles its names), so the hot path never frees one.
 *
 * The worker keeps the fibers in order across threads: a thread's records that enter a
 * fiber are drained only after the records of the thread that ran it before have left
 * it, so that the fiber's zones reach the server in the order they happened.
 */
#ifndef TRACYC_CLIENT_FIBER_H
#define TRACYC_CLIENT_FIBER_H

#include "client/state.h"

#include <stdatomic.h>
#include <stdint.h>

struct tc_fiber {
    const char *name;
    struct tc_fiber *next;      /* in its bucket of the table; set before it is published */
    struct tc_zone_stack zones; /* saved here while no thread runs it (state.h) */
    _Atomic uint32_t enters;    /* enters recorded: numbers them */
    /* worker side */
    _Alignas(64) uint32_t drained;     /* the number of the last enter drained */
    struct tc_thread *holder;          /* the thread whose drained records are inside it */
    uint32_t conn_depth[TC_MAX_CONNS]; /* zones open in it, on each connection */
    int64_t last_time;                 /* the latest time of its records encoded */
};

/* The fiber called name, created at its first use; NULL when out of memory. Lock-free. */
struct tc_fiber *tc_fiber_get(const char *name);

/* The calling thread t now runs fiber f (NULL: none): saves the zone stack of the context
 * it ran and loads f's (or the thread's own). */
void tc_fiber_switch(struct tc_thread *t, struct tc_fiber *f);

/* The number of an enter just reserved, in the order enters happen. */
static inline uint32_t tc_fiber_number_enter(struct tc_fiber *f)
{
    return atomic_fetch_add_explicit(&f->enters, 1, memory_order_relaxed) + 1;
}

/* Worker: calls fn on every fiber. */
void tc_fiber_each(void (*fn)(struct tc_fiber *f, void *user), void *user);

/* Worker, before encoding t's records in [begin, end): the first record that must wait,
 * or end. An enter waits until the fiber's previous enter has been drained, and the
 * records of that thread up to where it left the fiber. Tracks which thread holds each
 * fiber through the records before it. */
const uint8_t *tc_fiber_drain_limit(struct tc_thread *t, const uint8_t *begin, const uint8_t *end);

/* Worker: counts the passes that ended with t waiting. */
void tc_fiber_pass_end(struct tc_thread *t);

/* Worker: t is being freed; a fiber it held is free. */
void tc_fiber_thread_gone(struct tc_thread *t);

#endif

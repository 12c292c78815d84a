/* fiber.c - the fiber table (insert-only, lock-free) and the worker's order of fibers
 * across threads. */
#include "client/fiber.h"

#include "client/record.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define BUCKET_BITS 10

static _Atomic(struct tc_fiber *) buckets[1u << BUCKET_BITS];
/* Whether any fiber exists: until one does, no record can be a fiber's enter and the
 * worker need not look for them. Set before the fiber is published, so a thread that
 * enters it publishes its records after this store. */
static _Atomic int any_fiber;

static _Atomic(struct tc_fiber *) *bucket_of(const char *name)
{
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull;
    return &buckets[h >> (64 - BUCKET_BITS)];
}

static struct tc_fiber *find(struct tc_fiber *f, const char *name)
{
    while (f && f->name != name)
        f = f->next;
    return f;
}

struct tc_fiber *tc_fiber_get(const char *name)
{
    _Atomic(struct tc_fiber *) *b = bucket_of(name);
    struct tc_fiber *head = atomic_load_explicit(b, memory_order_acquire);
    struct tc_fiber *f = find(head, name);
    if (f)
        return f;
    struct tc_fiber *created = aligned_alloc(_Alignof(struct tc_fiber), sizeof *created);
    if (!created)
        return NULL;
    memset(created, 0, sizeof *created);
    created->name = name;
    created->zones.key = tc_zone_key_next();
    atomic_store_explicit(&any_fiber, 1, memory_order_relaxed);
    do {
        /* Another thread may have created it meanwhile. */
        if ((f = find(head, name))) {
            free(created);
            return f;
        }
        created->next = head;
    } while (!atomic_compare_exchange_weak_explicit(b, &head, created, memory_order_release, memory_order_acquire));
    return created;
}

void tc_fiber_switch(struct tc_thread *t, struct tc_fiber *f)
{
    if (t->running == f)
        return;
    if (t->running)
        t->running->zones = t->zones;
    else
        t->own = t->zones;
    t->zones = f ? f->zones : t->own;
    t->running = f;
}

void tc_fiber_each(void (*fn)(struct tc_fiber *f, void *user), void *user)
{
    for (size_t i = 0; i < sizeof buckets / sizeof *buckets; i++)
        for (struct tc_fiber *f = atomic_load_explicit(&buckets[i], memory_order_acquire); f; f = f->next)
            fn(f, user);
}

static void leave(struct tc_thread *t)
{
    if (t->fiber && t->fiber->holder == t)
        t->fiber->holder = NULL;
    t->fiber = NULL;
}

/* A thread that has waited through this many worker passes in a row goes on anyway:
 * only a program that misuses fibers (or loses an enter past the buffer limit) gets
 * there. */
#define MAX_WAITS 1000

/* Whether t may enter f with enter number seq now: once the enter before it has been
 * drained, and the thread that made it has been drained out of f. That thread need not
 * be waited for when it has nothing left to drain (it never left f: misuse) or itself
 * waits (two threads that each entered the other's fiber). */
static int may_enter(const struct tc_thread *t, const struct tc_fiber *f, uint32_t seq)
{
    struct tc_thread *h = f->holder;
    if (seq != f->drained + 1)
        return 0;
    return !h || h == t || h->stalled || tc_stream_empty(&h->stream);
}

const uint8_t *tc_fiber_drain_limit(struct tc_thread *t, const uint8_t *begin, const uint8_t *end)
{
    if (!atomic_load_explicit(&any_fiber, memory_order_relaxed))
        return end; /* t->stalled stays 0: no fiber, no wait */
    for (const uint8_t *p = begin; p < end;) {
        const union tc_rec *r = (const union tc_rec *)p;
        if (r->any.type == TC_REC_FIBER_ENTER) {
            struct tc_fiber *f = r->fiber_enter.fiber;
            if (!may_enter(t, f, r->fiber_enter.seq) && t->stalled_passes < MAX_WAITS) {
                t->stalled = 1;
                return p;
            }
            leave(t);
            f->holder = t;
            f->drained = r->fiber_enter.seq;
            t->fiber = f;
        } else if (r->any.type == TC_REC_FIBER_LEAVE) {
            leave(t);
        }
        p += tc_rec_size(r->any.type, r->any.len);
    }
    t->stalled = 0;
    return end;
}

void tc_fiber_pass_end(struct tc_thread *t)
{
    t->stalled_passes = t->stalled ? t->stalled_passes + 1 : 0;
}

void tc_fiber_thread_gone(struct tc_thread *t)
{
    leave(t);
}

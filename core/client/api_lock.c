/* api_lock.c - lockable and shared-lockable contexts. Lock events are global and
 * ordered, so they use the serial stream. */
#include "client/api.h"

#include <stdlib.h>

struct __tracy_lockable_context_data {
    uint32_t id;
};
struct __tracy_shared_lockable_context_data {
    uint32_t id;
};

static uint32_t announce(const struct ___tracy_source_location_data *srcloc, uint8_t shared)
{
    if (tc_profiler_ensure() != 0)
        return UINT32_MAX;
    uint32_t id = atomic_fetch_add(&tc_prof.next_lock_id, 1);
    union tc_rec *r = tc_serial_reserve(TC_REC_LOCK_ANNOUNCE, 0, 1);
    if (!r)
        return UINT32_MAX;
    r->lock_announce.shared = shared;
    r->lock_announce.lock = id;
    r->lock_announce.time = tc_clock_now();
    r->lock_announce.srcloc = (uint64_t)(uintptr_t)srcloc;
    tc_serial_commit();
    return id;
}

static void lock_event(uint32_t id, unsigned type, uint8_t shared)
{
    struct tc_thread *t = tc_thread_get();
    if (!t || id == UINT32_MAX)
        return;
    union tc_rec *r = tc_serial_reserve(type, 0, 0);
    if (!r)
        return;
    r->lock_event.shared = shared;
    r->lock_event.lock = id;
    r->lock_event.time = tc_clock_now();
    r->lock_event.thread = t->tid;
    tc_serial_commit();
}

/* The server expects every obtain to follow a wait on the same thread (it asserts so);
 * upstream's try-lock sends the obtain alone, which trips assertion-enabled servers. */
static void try_lock_obtained(uint32_t id, uint8_t shared)
{
    lock_event(id, TC_REC_LOCK_WAIT, shared);
    lock_event(id, TC_REC_LOCK_OBTAIN, shared);
}

static void terminate(uint32_t id)
{
    if (id == UINT32_MAX)
        return;
    union tc_rec *r = tc_serial_reserve(TC_REC_LOCK_TERMINATE, 0, 1);
    if (!r)
        return;
    r->lock_terminate.lock = id;
    r->lock_terminate.time = tc_clock_now();
    tc_serial_commit();
}

static void mark(uint32_t id, const struct ___tracy_source_location_data *srcloc)
{
    struct tc_thread *t = tc_thread_get();
    if (!t || !srcloc || id == UINT32_MAX)
        return;
    union tc_rec *r = tc_serial_reserve(TC_REC_LOCK_MARK, 0, 0);
    if (!r)
        return;
    r->lock_mark.lock = id;
    r->lock_mark.thread = t->tid;
    r->lock_mark.srcloc = (uint64_t)(uintptr_t)srcloc;
    tc_serial_commit();
}

static void custom_name(uint32_t id, const char *name, size_t len)
{
    if (!name || id == UINT32_MAX)
        return;
    union tc_rec *r = tc_serial_reserve_text(TC_REC_LOCK_NAME, name, len, 0);
    if (!r)
        return;
    r->lock_name.lock = id;
    tc_serial_commit();
}

struct __tracy_lockable_context_data *___tracy_announce_lockable_ctx(const struct ___tracy_source_location_data *srcloc)
{
    struct __tracy_lockable_context_data *l = malloc(sizeof *l);
    if (l)
        l->id = srcloc ? announce(srcloc, 0) : UINT32_MAX;
    return l;
}

void ___tracy_terminate_lockable_ctx(struct __tracy_lockable_context_data *l)
{
    if (!l)
        return;
    terminate(l->id);
    free(l);
}

int32_t ___tracy_before_lock_lockable_ctx(struct __tracy_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_WAIT, 0);
    return 1;
}

void ___tracy_after_lock_lockable_ctx(struct __tracy_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_OBTAIN, 0);
}

void ___tracy_after_unlock_lockable_ctx(struct __tracy_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_RELEASE, 0);
}

void ___tracy_after_try_lock_lockable_ctx(struct __tracy_lockable_context_data *l, int32_t acquired)
{
    if (l && acquired)
        try_lock_obtained(l->id, 0);
}

void ___tracy_mark_lockable_ctx(struct __tracy_lockable_context_data *l,
                                const struct ___tracy_source_location_data *srcloc)
{
    if (l)
        mark(l->id, srcloc);
}

void ___tracy_custom_name_lockable_ctx(struct __tracy_lockable_context_data *l, const char *name, size_t len)
{
    if (l)
        custom_name(l->id, name, len);
}

struct __tracy_shared_lockable_context_data *
___tracy_announce_shared_lockable_ctx(const struct ___tracy_source_location_data *srcloc)
{
    struct __tracy_shared_lockable_context_data *l = malloc(sizeof *l);
    if (l)
        l->id = srcloc ? announce(srcloc, 1) : UINT32_MAX;
    return l;
}

void ___tracy_terminate_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (!l)
        return;
    terminate(l->id);
    free(l);
}

int32_t ___tracy_before_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_WAIT, 0);
    return 1;
}

void ___tracy_after_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_OBTAIN, 0);
}

void ___tracy_after_unlock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_RELEASE, 0);
}

void ___tracy_after_try_lock_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l, int32_t acquired)
{
    if (l && acquired)
        try_lock_obtained(l->id, 0);
}

int32_t ___tracy_before_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_WAIT, 1);
    return 1;
}

void ___tracy_after_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_OBTAIN, 1);
}

void ___tracy_after_unlock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l)
{
    if (l)
        lock_event(l->id, TC_REC_LOCK_RELEASE, 1);
}

void ___tracy_after_try_lock_shared_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l,
                                                        int32_t acquired)
{
    if (l && acquired)
        try_lock_obtained(l->id, 1);
}

void ___tracy_mark_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l,
                                       const struct ___tracy_source_location_data *srcloc)
{
    if (l)
        mark(l->id, srcloc);
}

void ___tracy_custom_name_shared_lockable_ctx(struct __tracy_shared_lockable_context_data *l, const char *name,
                                              size_t len)
{
    if (l)
        custom_name(l->id, name, len);
}

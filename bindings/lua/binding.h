/* binding.h - what the files of the Lua binding share (not installed).
 *
 * The pieces:
 *   state.c       one tl_state per Lua state, one tl_co per Lua thread (main or coroutine)
 *   fibers.c      each coroutine is a Tracy fiber: names, and switching on this OS thread
 *   zones.c       the open zones of a Lua thread, and the core contexts that end them
 *   srclocs.c     source locations interned per call site, kept for the process lifetime
 *   interned.c    permanent copies of plot and frame names
 *   table.c       growing the open-addressing tables of srclocs.c and interned.c
 *   api_zones.c, api_events.c, hook.c, coroutines.c, loader.c, remove.c: the functions
 *   module.c      the module table
 */
#ifndef TRACYC_LUA_BINDING_H
#define TRACYC_LUA_BINDING_H

#include "tracyc.h"

#include <lauxlib.h>
#include <lua.h>

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One open zone of a Lua thread. */
struct tl_zone {
    const void *func; /* hook zones: the function whose call opened it; NULL for ZoneBegin* */
    uint8_t active;   /* the core recorded the begin, so an end must be recorded */
};

/* A Lua thread: the main thread of a state or a coroutine. */
struct tl_co {
    lua_State *L;
    struct tl_state *S;
    int is_main;
    const char *fiber;     /* coroutines: the Tracy fiber, assigned on first use */
    struct tl_zone *zones; /* open zones, innermost last */
    size_t nzones, cap;
    size_t nhook; /* how many of them the hook opened */
};

struct tl_loc_slot;  /* srclocs.c */
struct tl_site_slot; /* srclocs.c */
struct tl_name_slot; /* interned.c */

/* Per Lua state; a full userdata in the registry, upvalue 1 of every tracy.* function. */
struct tl_state {
    struct tl_co main;
    struct tl_co *last; /* the thread seen last: most calls come from the same one */
    int off;            /* the library is inert (TRACYC_DISABLE=1): record nothing */
    int hook_on;        /* HookEnable is in effect */
    struct tl_loc_slot *locs;
    struct tl_site_slot *sites; /* call sites, keyed by calling function */
    unsigned epoch;             /* bumped when a function of the call-site cache is collected */
    struct tl_name_slot *names;
};

/* Thread-locals read on every zone: the initial-exec model makes them one load even in
 * the dlopen'ed module (a few bytes of glibc's static TLS surplus). */
#if defined(__GNUC__)
#define TL_FAST_TLS __attribute__((tls_model("initial-exec")))
#else
#define TL_FAST_TLS
#endif

/* state.c */
struct tl_state *tl_state_new(lua_State *L); /* pushes it */
struct tl_state *tl_state_get(lua_State *L); /* from the registry; NULL if none */
void tl_push_state(lua_State *L);            /* pushes its userdata */
#define tl_upstate(L) ((struct tl_state *)lua_touserdata((L), lua_upvalueindex(1)))
/* The record of thread T (created on first use); L is the running thread. */
struct tl_co *tl_co_get(struct tl_state *S, lua_State *L, lua_State *T);
static inline struct tl_co *tl_co_self(struct tl_state *S, lua_State *L)
{
    return S->last->L == L ? S->last : tl_co_get(S, L, L);
}
/* The record of thread T if it has one, else NULL. */
struct tl_co *tl_co_find(struct tl_state *S, lua_State *L, lua_State *T);
/* The thread is dead or being closed: ends its zones in its fiber, gives the fiber back. */
void tl_co_finish(struct tl_co *co);

/* The record of the Lua thread that called a tracy.* function last on this OS thread, so
 * the hot path needs neither the upvalue nor the state: valid while tl_co_epoch has not
 * moved since (every record freed, and every state closed, moves it). */
struct tl_co_cache {
    lua_State *L;
    struct tl_co *co;
    unsigned epoch;
};
extern _Thread_local struct tl_co_cache tl_co_last TL_FAST_TLS;
extern _Atomic unsigned tl_co_epoch;
struct tl_co *tl_self_slow(lua_State *L);
/* The calling thread's record, from a tracy.* function (its upvalue 1 is the state). */
static inline struct tl_co *tl_self(lua_State *L)
{
    if (tl_co_last.L == L && tl_co_last.epoch == atomic_load_explicit(&tl_co_epoch, memory_order_relaxed))
        return tl_co_last.co;
    return tl_self_slow(L);
}

/* fibers.c */
extern _Thread_local const char *tl_fiber_now TL_FAST_TLS; /* current fiber of this OS thread, NULL none */
void tl_fiber_set(const char *fiber);
const char *tl_fiber_acquire(void);
void tl_fiber_release(const char *fiber);
/* Makes co's timeline the current one, so its events nest in its own fiber. */
static inline void tl_enter(struct tl_co *co)
{
    if (!co->is_main && !co->fiber)
        co->fiber = tl_fiber_acquire();
    if (co->fiber != tl_fiber_now)
        tl_fiber_set(co->fiber);
}

/* zones.c */
/* Where a zone comes from: an interned static source location, or (past the intern
 * limit) an allocated one as upstream makes, consumed by the begin. */
struct tl_where {
    const struct ___tracy_source_location_data *loc;
    uint64_t alloc;
};
/* The active contexts of this OS thread, newest last (see zones.c). */
struct tl_ctx_stack {
    TracyCZoneCtx *v;
    size_t n, cap;
};
extern _Thread_local struct tl_ctx_stack tl_ctxs TL_FAST_TLS;
void tl_zone_grow(lua_State *L, struct tl_co *co);
/* Makes room for one more zone in co and on this OS thread; raises a Lua error if out of
 * memory. Call before computing the source location, which may allocate. */
static inline void tl_zone_reserve(lua_State *L, struct tl_co *co)
{
    if (co->nzones == co->cap || tl_ctxs.n == tl_ctxs.cap)
        tl_zone_grow(L, co);
}
/* Begins a zone in co's fiber; func marks a hook zone; depth > 0 asks for a callstack. */
void tl_zone_begin_any(struct tl_co *co, struct tl_where w, const void *func, int depth);
static inline void tl_zone_begin(struct tl_co *co, struct tl_where w, const void *func, int depth)
{
    if (!w.loc || depth) {
        tl_zone_begin_any(co, w, func, depth);
        return;
    }
    tl_enter(co);
    TracyCZoneCtx ctx = ___tracy_emit_zone_begin(w.loc, 1);
    co->zones[co->nzones++] = (struct tl_zone){func, ctx.active != 0};
    co->nhook += func != NULL;
    if (ctx.active)
        tl_ctxs.v[tl_ctxs.n++] = ctx;
}
/* Ends co's innermost zone. */
static inline void tl_zone_end(struct tl_co *co)
{
    tl_enter(co);
    struct tl_zone z = co->zones[--co->nzones];
    co->nhook -= z.func != NULL;
    if (z.active && tl_ctxs.n)
        ___tracy_emit_zone_end(tl_ctxs.v[--tl_ctxs.n]);
}
void tl_zones_end_to(struct tl_co *co, size_t n); /* ends zones until n remain */
/* The context of co's innermost zone for text, name, colour, value, with co's fiber
 * made current; inactive if the begin was not recorded. */
TracyCZoneCtx tl_zone_ctx(struct tl_co *co);

/* srclocs.c */
/* The zone location of the call site of the running tracy function: the calling Lua
 * function's source, current line and name, the zone named `name` (may be NULL). May leave
 * one value on L's stack (popping costs a call; a tracy function's return drops it). */
struct tl_where tl_srcloc_callsite(struct tl_state *S, lua_State *L, const char *name, size_t namelen);
/* The zone location of the function described by ar (after lua_getinfo "Sn"). */
struct tl_where tl_srcloc_function(struct tl_state *S, lua_Debug *ar);
void tl_srcloc_cache_free(struct tl_state *S);

/* table.c: doubles *table (first_cap entries when empty), re-placing each entry by its
 * hash. 0, or -1 out of memory (the table is unchanged). */
int tl_table_grow(void ***table, size_t *cap, size_t first_cap, uint64_t (*hash)(const void *entry));

/* interned.c: a copy of the string at idx that lives as long as the process. */
const char *tl_intern(struct tl_state *S, lua_State *L, int idx);
void tl_intern_cache_free(struct tl_state *S);

/* The function groups, each adding its functions to the table on the top of the stack
 * (all with the state as upvalue 1, which marks them as ours for the hook). */
void tl_open_zones(lua_State *L);
void tl_open_events(lua_State *L);
void tl_open_hook(lua_State *L);
void tl_open_loader(lua_State *L);
void tl_open_remove(lua_State *L);
/* Replaces coroutine.resume, wrap and close in the state's coroutine library. */
void tl_install_coroutines(lua_State *L);

#endif

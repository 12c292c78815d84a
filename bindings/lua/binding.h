/* binding.h - what the files of the Lua binding share (not installed).
 *
 * The pieces:
 *   compat.h      one C API on Lua 5.1, 5.3, 5.4 and LuaJIT
 *   state.c       one tl_state per Lua state, one tl_co per Lua thread (main or coroutine)
 *   generation.c  the epochs of the caches of addresses, and keeping the values they trust
 *                 alive until the epochs move
 *   fibers.c      each coroutine is a Tracy fiber: names, and switching on this OS thread
 *   zones.c       the open zones of a Lua thread, and the core contexts that end them
 *   srclocs.c     source locations interned per call site, kept for the process lifetime
 *   interned.c    permanent copies of plot and frame names
 *   cnames.c      names for the C functions hook mode sees
 *   api_zones.c, api_events.c, hook.c, coroutines.c, loader.c, remove.c: the functions
 *   remove_lex.c  the pieces of Lua's lexer remove.c reads scripts with (remove_lex.h)
 *   module.c      the module table
 * The files call each other in no loop (tests/layout/check_includes.py): module.c calls the
 * function groups, they call state.c and the pieces below it (zones.c, srclocs.c), and
 * generation.c, fibers.c, interned.c, cnames.c and remove_lex.c call no other file.
 */
#ifndef TRACYC_LUA_BINDING_H
#define TRACYC_LUA_BINDING_H

#include "compat.h"
#include "tracyc.h"
#include "util/map.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* One open zone of a Lua thread. */
struct tl_zone {
    const void *func; /* hook zones: the function whose call opened it; NULL for ZoneBegin* */
    const struct ___tracy_source_location_data *loc; /* to begin it again (zones.c); NULL if allocated */
    int frame;         /* hook zones on 5.1 and LuaJIT: the stack position of the call's frame */
    uint8_t active;    /* the core recorded the begin, so an end must be recorded */
    TracyCZoneCtx ctx; /* its context in the core, while active */
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
struct tl_cname;     /* cnames.c */

/* Per Lua state; a full userdata in the registry, upvalue 1 of every tracy.* function. */
struct tl_state {
    struct tl_co main; /* main.L is NULL on 5.1 until the main thread shows itself */
    int off;           /* the library is inert (TRACYC_DISABLE=1): record nothing */
    int hook_on;       /* HookEnable is in effect */
    int host_hook;     /* the host's own hook calls tracyc_lua_hook */
    size_t hook_zones; /* open hook zones in every thread of the state */
    struct tl_loc_slot *locs;
    struct tl_site_slot *sites; /* call sites, keyed by calling function */
    unsigned epoch;             /* moved by every collection (generation.c): call sites are stale */
    struct tl_name_slot *names;
    struct tl_cname *cnames; /* names found for C functions Lua cannot name */
    size_t ncnames, cnames_cap;
};

/* Thread-locals read on every zone: the initial-exec model makes them one load even in
 * the dlopen'ed module (a few bytes of glibc's static TLS surplus). */
#if defined(__GNUC__)
#define TL_FAST_TLS __attribute__((tls_model("initial-exec")))
#else
#define TL_FAST_TLS
#endif

/* generation.c: the epoch of the cached thread records, moved by every collection, by a
 * thread's record being finalized, and by a state closing. */
extern _Atomic unsigned tl_co_epoch;
static inline unsigned tl_threads_epoch(void)
{
    return atomic_load_explicit(&tl_co_epoch, memory_order_relaxed);
}
/* Every cached thread record is stale from now on. */
void tl_forget_threads(void);
/* Keeps the value on the top of L's stack (popped) from being freed before S->epoch and
 * tl_co_epoch have moved. May run finalizers: read an epoch before calling. */
void tl_gen_keep(struct tl_state *S, lua_State *L);

/* state.c */
struct tl_state *tl_state_new(lua_State *L); /* pushes it */
struct tl_state *tl_state_get(lua_State *L); /* from the registry; NULL if none */
void tl_push_state(lua_State *L);            /* pushes its userdata */
#define tl_upstate(L) ((struct tl_state *)lua_touserdata((L), lua_upvalueindex(1)))
/* The record of thread T (created on first use); L is the running thread. */
struct tl_co *tl_co_get(struct tl_state *S, lua_State *L, lua_State *T);
/* The record of thread T if it has one, else NULL. */
struct tl_co *tl_co_find(struct tl_state *S, lua_State *L, lua_State *T);
/* The thread is dead or being closed: ends its zones in its fiber, gives the fiber back. */
void tl_co_finish(struct tl_co *co);
/* Calls f on the record of every thread of the state that has one. */
void tl_co_each(struct tl_state *S, lua_State *L, void (*f)(struct tl_co *co));

/* The record of the Lua thread that called a tracy.* function last on this OS thread, so
 * the hot path needs neither the upvalue nor the state. Valid while tl_co_epoch has not
 * moved since: its thread is the main thread, or is kept alive until then (generation.c),
 * or is being resumed by our coroutine.resume. */
struct tl_co_cache {
    lua_State *L;
    struct tl_co *co;
    unsigned epoch;
};
extern _Thread_local struct tl_co_cache tl_co_last TL_FAST_TLS;
struct tl_co *tl_self_slow(struct tl_state *S, lua_State *L);
/* The running thread's record, in state S. */
static inline struct tl_co *tl_self_in(struct tl_state *S, lua_State *L)
{
    if (tl_co_last.L == L && tl_co_last.epoch == tl_threads_epoch())
        return tl_co_last.co;
    return tl_self_slow(S, L);
}
/* The calling thread's record, from a tracy.* function (its upvalue 1 is the state). */
static inline struct tl_co *tl_self(lua_State *L)
{
    if (tl_co_last.L == L && tl_co_last.epoch == tl_threads_epoch())
        return tl_co_last.co;
    return tl_self_slow(tl_upstate(L), L);
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
void tl_zone_grow(lua_State *L, struct tl_co *co);
/* Makes room for one more zone in co; raises a Lua error if out of memory. Call before
 * computing the source location, which may allocate. */
static inline void tl_zone_reserve(lua_State *L, struct tl_co *co)
{
    if (co->nzones == co->cap)
        tl_zone_grow(L, co);
}
void tl_zone_begin_any(struct tl_co *co, struct tl_where w, int depth);
/* Begins a ZoneBegin* zone in co's fiber; depth > 0 asks for a callstack. */
static inline void tl_zone_begin(struct tl_co *co, struct tl_where w, int depth)
{
    if (!w.loc || depth) {
        tl_zone_begin_any(co, w, depth);
        return;
    }
    tl_enter(co);
    TracyCZoneCtx ctx = ___tracy_emit_zone_begin(w.loc, 1);
    co->zones[co->nzones++] = (struct tl_zone){NULL, w.loc, 0, ctx.active != 0, ctx};
}
/* Begins a hook zone for a call of func, whose frame is at stack position frame. */
void tl_hook_zone_begin(struct tl_co *co, struct tl_where w, const void *func, int frame);
int tl_zone_end_below(struct tl_co *co);
/* Ends co's innermost ZoneBegin* zone; 0 if it has none. */
static inline int tl_zone_end(struct tl_co *co)
{
    size_t n = co->nzones;
    if (!n || co->zones[n - 1].func)
        return tl_zone_end_below(co); /* none, or hook zones above it */
    tl_enter(co);
    co->nzones = n - 1;
    if (co->zones[n - 1].active)
        ___tracy_emit_zone_end(co->zones[n - 1].ctx);
    return 1;
}
/* The hook zone at index i has returned (or its frame is gone): ends it and the hook
 * zones above it; ZoneBegin* zones above it stay open. */
void tl_zones_unwind(struct tl_co *co, size_t i);
/* Ends every hook zone of co; ZoneBegin* zones stay open. */
void tl_hook_zones_end(struct tl_co *co);
void tl_zones_end_to(struct tl_co *co, size_t n); /* ends zones until n remain */
/* Calls op on the context of co's innermost ZoneBegin* zone, in co's fiber, for its text,
 * name, colour or value; 0 if co has none. Nothing is recorded if its begin was not. */
int tl_zone_edit(struct tl_co *co, void (*op)(TracyCZoneCtx ctx, const void *arg), const void *arg);

/* srclocs.c */
/* The zone location of the call site of the running tracy function: the calling Lua
 * function's source, current line and name, the zone named `name` (may be NULL). May leave
 * one value on L's stack (popping costs a call; a tracy function's return drops it). */
struct tl_where tl_srcloc_callsite(struct tl_state *S, lua_State *L, const char *name, size_t namelen);
/* The zone location of the function described by ar (after lua_getinfo "Sn"). */
struct tl_where tl_srcloc_function(struct tl_state *S, lua_Debug *ar);
void tl_srcloc_cache_free(struct tl_state *S);

/* interned.c: a copy of the string at idx that lives as long as the process. */
const char *tl_intern(struct tl_state *S, lua_State *L, int idx);
/* Marks the discontinuous frame set named by an interned name open or not; returns
 * whether it was open. */
int tl_frame_set_open(const char *name, int open);
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
/* Replaces debug.sethook, so a program's own hook ends hook mode cleanly. */
void tl_install_sethook(lua_State *L);
/* hook.c: hook mode was on for co but another hook replaced ours: ends its hook zones. */
void tl_hook_check(lua_State *L, struct tl_co *co);

/* cnames.c: a name for the C function on the top of L's stack, which Lua could not name
 * (ar: its call, in a hook): its name in a loaded module ("string.rep"), its place among
 * package.searchers, the module a loader called by require loads (written to buf), or
 * NULL. */
const char *tl_cfunction_name(struct tl_state *S, lua_State *L, lua_Debug *ar, char *buf, size_t size);
void tl_cnames_free(struct tl_state *S);

#endif

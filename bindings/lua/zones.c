/* zones.c - the open zones of each Lua thread.
 *
 * Tracy nests zones per fiber, and so does the core: each coroutine's zones live in its
 * fiber, so a coroutine's zone stays open across a yield while the code that resumed it
 * opens and closes zones of its own. The binding decides which zone ends -- the innermost
 * one of the calling Lua thread -- and ends it with its own context, inside that thread's
 * fiber.
 *
 * Hook zones (a function call each) and ZoneBegin* zones share a thread's stack, but
 * they need not nest: a helper may begin a zone that outlives it (`function pb(n)
 * tracy.ZoneBeginN(n) end`), and ZoneEnd ends the innermost ZoneBegin* zone even when
 * calls are open above it. A trace must nest, so where the two cross the crossing zones
 * are ended in the trace and begun again at once, with the same location: the function
 * that returns ends, the ZoneBegin* zone above it continues as a second zone of the
 * same name; ZoneEnd ends its zone, and the calls above it continue likewise. Text,
 * name, colour and value are not carried over to the continuation. */
#include "binding.h"

#include "util/array.h"

void tl_zone_grow(lua_State *L, struct tl_co *co)
{
    struct tl_zone *grown = tcu_grow(NULL, co->zones, &co->cap, co->nzones + 1, sizeof *grown);
    if (!grown)
        luaL_error(L, "tracy: not enough memory for another zone");
    co->zones = grown;
}

static TracyCZoneCtx begin(struct tl_where w, int depth)
{
    if (w.loc)
        return depth ? ___tracy_emit_zone_begin_callstack(w.loc, depth, 1) : ___tracy_emit_zone_begin(w.loc, 1);
    return depth ? ___tracy_emit_zone_begin_alloc_callstack(w.alloc, depth, 1)
                 : ___tracy_emit_zone_begin_alloc(w.alloc, 1);
}

static void push(struct tl_co *co, struct tl_zone z, TracyCZoneCtx ctx)
{
    z.active = ctx.active != 0;
    z.ctx = ctx;
    co->zones[co->nzones++] = z;
}

void tl_zone_begin_any(struct tl_co *co, struct tl_where w, int depth)
{
    tl_enter(co);
    push(co, (struct tl_zone){.loc = w.loc}, begin(w, depth));
}

void tl_hook_zone_begin(struct tl_co *co, struct tl_where w, const void *func, int frame)
{
    tl_enter(co);
    push(co, (struct tl_zone){.func = func, .loc = w.loc, .frame = frame},
         w.loc || w.alloc ? begin(w, 0) : (TracyCZoneCtx){0, 0});
    co->nhook++;
    co->S->hook_zones++;
}

#define ENDED 2 /* tl_zone.active: recorded, ended in the trace for a moment, to begin again */

/* Ends in the trace the zones from index i up, innermost first; they stay in co. */
static void trace_end_from(struct tl_co *co, size_t i)
{
    for (size_t j = co->nzones; j-- > i;) {
        if (co->zones[j].active) {
            ___tracy_emit_zone_end(co->zones[j].ctx);
            co->zones[j].active = ENDED;
        }
    }
}

/* Begins again in the trace the zones from index i up that trace_end_from ended. A zone
 * whose location was allocated (consumed by its first begin) stays unrecorded. */
static void trace_begin_from(struct tl_co *co, size_t i)
{
    for (size_t j = i; j < co->nzones; j++) {
        if (co->zones[j].active != ENDED || !co->zones[j].loc) {
            co->zones[j].active = 0;
            continue;
        }
        TracyCZoneCtx ctx = ___tracy_emit_zone_begin(co->zones[j].loc, 1);
        co->zones[j].active = ctx.active != 0;
        co->zones[j].ctx = ctx;
    }
}

/* Which zones from index i up are removed rather than continued. */
enum removal { REMOVE_ONE, REMOVE_HOOK_ZONES, REMOVE_ALL };

static void remove_from(struct tl_co *co, size_t i, enum removal which)
{
    tl_enter(co);
    trace_end_from(co, i);
    size_t kept = i;
    for (size_t j = i; j < co->nzones; j++) {
        struct tl_zone z = co->zones[j];
        int removed = which == REMOVE_ALL || j == i || (which == REMOVE_HOOK_ZONES && z.func);
        if (!removed) {
            co->zones[kept++] = z;
        } else if (z.func) {
            co->nhook--;
            co->S->hook_zones--;
        }
    }
    co->nzones = kept;
    trace_begin_from(co, i);
}

/* The index of co's innermost ZoneBegin* zone, or -1. */
static long innermost_manual(const struct tl_co *co)
{
    long i = (long)co->nzones - 1;
    while (i >= 0 && co->zones[i].func)
        i--;
    return i;
}

int tl_zone_end_below(struct tl_co *co)
{
    long i = innermost_manual(co);
    if (i < 0)
        return 0;
    remove_from(co, (size_t)i, REMOVE_ONE);
    return 1;
}

void tl_zones_unwind(struct tl_co *co, size_t i)
{
    remove_from(co, i, REMOVE_HOOK_ZONES);
}

void tl_hook_zones_end(struct tl_co *co)
{
    size_t i = 0;
    while (i < co->nzones && !co->zones[i].func)
        i++;
    if (i < co->nzones)
        remove_from(co, i, REMOVE_HOOK_ZONES);
}

void tl_zones_end_to(struct tl_co *co, size_t n)
{
    if (co->nzones > n)
        remove_from(co, n, REMOVE_ALL);
}

int tl_zone_edit(struct tl_co *co, void (*op)(TracyCZoneCtx ctx, const void *arg), const void *arg)
{
    long i = innermost_manual(co);
    if (i < 0)
        return 0;
    if (co->zones[i].active != 1)
        return 1;
    tl_enter(co);
    size_t above = (size_t)i + 1;
    int lifted = above < co->nzones; /* calls open above it: the edit goes to the innermost zone */
    if (lifted)
        trace_end_from(co, above);
    op(co->zones[i].ctx, arg);
    if (lifted)
        trace_begin_from(co, above);
    return 1;
}

/* zones.c - the open zones of each Lua thread.
 *
 * Tracy nests zones per fiber, while the core checks that a zone ends as the innermost
 * open zone of its OS thread (a context carries that thread's depth). With coroutines
 * the two orders differ: a coroutine's zone stays open across a yield while the code
 * that resumed it opens and closes zones of its own. So the binding decides which zone
 * ends -- the innermost one of the calling Lua thread, recorded inside that thread's
 * fiber, which is how the server nests -- and hands the core the context it expects:
 * the newest still-open context begun on this OS thread. The ZoneEnd record carries only
 * a time, so any of them ends the right zone. */
#include "binding.h"

#include <pthread.h>
#include <stdlib.h>

_Thread_local struct tl_ctx_stack tl_ctxs TL_FAST_TLS;
static pthread_key_t ctxs_key;
static pthread_once_t ctxs_once = PTHREAD_ONCE_INIT;

static void ctxs_free(void *p)
{
    struct tl_ctx_stack *s = p;
    free(s->v);
    *s = (struct tl_ctx_stack){0};
}

static void ctxs_init(void)
{
    pthread_key_create(&ctxs_key, ctxs_free);
}

static int grow(void **v, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 16;
    void *p = realloc(*v, n * size);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

void tl_zone_grow(lua_State *L, struct tl_co *co)
{
    if (co->nzones == co->cap && grow((void **)&co->zones, &co->cap, sizeof *co->zones))
        luaL_error(L, "tracy: not enough memory for another zone");
    if (tl_ctxs.n == tl_ctxs.cap) {
        if (!tl_ctxs.v) { /* first zone of this OS thread: free the stack when it exits */
            pthread_once(&ctxs_once, ctxs_init);
            pthread_setspecific(ctxs_key, &tl_ctxs);
        }
        if (grow((void **)&tl_ctxs.v, &tl_ctxs.cap, sizeof *tl_ctxs.v))
            luaL_error(L, "tracy: not enough memory for another zone");
    }
}

void tl_zone_begin_any(struct tl_co *co, struct tl_where w, const void *func, int depth)
{
    tl_enter(co);
    TracyCZoneCtx ctx;
    if (w.loc)
        ctx = depth ? ___tracy_emit_zone_begin_callstack(w.loc, depth, 1) : ___tracy_emit_zone_begin(w.loc, 1);
    else
        ctx = depth ? ___tracy_emit_zone_begin_alloc_callstack(w.alloc, depth, 1)
                    : ___tracy_emit_zone_begin_alloc(w.alloc, 1);
    co->zones[co->nzones++] = (struct tl_zone){func, ctx.active != 0};
    co->nhook += func != NULL;
    if (ctx.active)
        tl_ctxs.v[tl_ctxs.n++] = ctx;
}

static void end_innermost(struct tl_co *co)
{
    struct tl_zone z = co->zones[--co->nzones];
    co->nhook -= z.func != NULL;
    if (z.active && tl_ctxs.n)
        ___tracy_emit_zone_end(tl_ctxs.v[--tl_ctxs.n]);
}

void tl_zones_end_to(struct tl_co *co, size_t n)
{
    tl_enter(co);
    while (co->nzones > n)
        end_innermost(co);
}

TracyCZoneCtx tl_zone_ctx(struct tl_co *co)
{
    if (co->nzones && co->zones[co->nzones - 1].active && tl_ctxs.n) {
        tl_enter(co);
        return tl_ctxs.v[tl_ctxs.n - 1];
    }
    return (TracyCZoneCtx){0, 0};
}

/* api_zones.c - tracy.ZoneBegin* and the functions that act on the innermost zone.
 *
 * Zones belong to the Lua thread (main thread or coroutine) that began them: ZoneEnd
 * ends the innermost ZoneBegin* zone of the calling thread and raises an error when there
 * is none, where upstream would end whatever zone the OS thread had open. Hook zones
 * (hook mode) never count: ZoneEnd, ZoneText and the others behave as without the hook. */
#include "binding.h"

static int begin(lua_State *L, const char *name, size_t len, int depth)
{
    struct tl_co *co = tl_self(L);
    struct tl_state *S = co->S;
    if (co->nhook)
        tl_hook_check(L, co);
    tl_zone_reserve(L, co);
    /* Inert library: an unrecorded zone, so ZoneEnd still pairs as with profiling on. */
    struct tl_where w = S->off ? (struct tl_where){0} : tl_srcloc_callsite(S, L, name, len);
    tl_zone_begin(co, w, depth);
    return 0;
}

static int check_depth(lua_State *L, int arg)
{
    lua_Integer depth = luaL_checkinteger(L, arg);
    luaL_argcheck(L, depth >= 1 && depth <= 64, arg, "callstack depth must be 1 to 64");
    return (int)depth;
}

static int zone_begin(lua_State *L)
{
    return begin(L, NULL, 0, 0);
}

/* luaL_checklstring, one call shorter when the argument is a string (the hot path). */
static const char *check_name(lua_State *L, size_t *len)
{
    const char *name = lua_tolstring(L, 1, len);
    return name ? name : luaL_checklstring(L, 1, len);
}

static int zone_begin_n(lua_State *L)
{
    size_t len;
    const char *name = check_name(L, &len);
    return begin(L, name, len, 0);
}

static int zone_begin_s(lua_State *L)
{
    return begin(L, NULL, 0, check_depth(L, 1));
}

static int zone_begin_ns(lua_State *L)
{
    size_t len;
    const char *name = check_name(L, &len);
    return begin(L, name, len, check_depth(L, 2));
}

static int no_zone(lua_State *L, const char *fn)
{
    return luaL_error(L, "tracy.%s: no open zone", fn);
}

static int zone_end(lua_State *L)
{
    struct tl_co *co = tl_self(L);
    if (co->nhook)
        tl_hook_check(L, co);
    if (!tl_zone_end(co))
        return no_zone(L, "ZoneEnd");
    return 0;
}

struct text {
    const char *s;
    size_t len;
};

static void set_text(TracyCZoneCtx ctx, const void *arg)
{
    const struct text *t = arg;
    ___tracy_emit_zone_text(ctx, t->s, t->len);
}

static void set_name(TracyCZoneCtx ctx, const void *arg)
{
    const struct text *t = arg;
    ___tracy_emit_zone_name(ctx, t->s, t->len);
}

static void set_color(TracyCZoneCtx ctx, const void *arg)
{
    ___tracy_emit_zone_color(ctx, *(const uint32_t *)arg);
}

static void set_value(TracyCZoneCtx ctx, const void *arg)
{
    ___tracy_emit_zone_value(ctx, *(const uint64_t *)arg);
}

static int zone_text(lua_State *L)
{
    struct text t;
    t.s = luaL_checklstring(L, 1, &t.len);
    return tl_zone_edit(tl_self(L), set_text, &t) ? 0 : no_zone(L, "ZoneText");
}

static int zone_name(lua_State *L)
{
    struct text t;
    t.s = luaL_checklstring(L, 1, &t.len);
    return tl_zone_edit(tl_self(L), set_name, &t) ? 0 : no_zone(L, "ZoneName");
}

static int zone_color(lua_State *L)
{
    uint32_t color = (uint32_t)luaL_checkinteger(L, 1) & 0xffffff;
    return tl_zone_edit(tl_self(L), set_color, &color) ? 0 : no_zone(L, "ZoneColor");
}

static int zone_value(lua_State *L)
{
    uint64_t value = (uint64_t)luaL_checkinteger(L, 1);
    return tl_zone_edit(tl_self(L), set_value, &value) ? 0 : no_zone(L, "ZoneValue");
}

void tl_open_zones(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"ZoneBegin", zone_begin},    {"ZoneBeginN", zone_begin_n},
        {"ZoneBeginS", zone_begin_s}, {"ZoneBeginNS", zone_begin_ns},
        {"ZoneEnd", zone_end},        {"ZoneText", zone_text},
        {"ZoneName", zone_name},      {"ZoneColor", zone_color},
        {"ZoneValue", zone_value},    {NULL, NULL},
    };
    tl_push_state(L);
    tl_setfuncs(L, fns, 1);
}

/* api_events.c - messages, plots, frames, sections, thread name, connection, app info. */
#include "binding.h"

#include <stdio.h>

/* Thread-bound events go to the calling coroutine's fiber, as its zones do. */
static void enter_self(lua_State *L)
{
    tl_enter(tl_self(L));
}

static int message(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    enter_self(L);
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, len, text);
    return 0;
}

static int message_c(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    int32_t color = (int32_t)(luaL_checkinteger(L, 2) & 0xffffff);
    enter_self(L);
    ___tracy_emit_logString(TracyMessageSeverityInfo, color, 0, len, text);
    return 0;
}

static int plot(lua_State *L)
{
    const char *name = tl_intern(tl_upstate(L), L, 1);
    if (tl_isinteger(L, 2))
        ___tracy_emit_plot_int(name, (int64_t)lua_tointeger(L, 2));
    else
        ___tracy_emit_plot(name, (double)luaL_checknumber(L, 2));
    return 0;
}

static int plot_config(lua_State *L)
{
    static const char *const formats[] = {"number", "memory", "percentage", "watt", NULL};
    const char *name = tl_intern(tl_upstate(L), L, 1);
    int format = luaL_checkoption(L, 2, "number", formats);
    int step = lua_toboolean(L, 3);
    int fill = lua_isnoneornil(L, 4) ? 1 : lua_toboolean(L, 4);
    uint32_t color = (uint32_t)luaL_optinteger(L, 5, 0) & 0xffffff;
    ___tracy_emit_plot_config(name, format, step, fill, color);
    return 0;
}

static int frame_mark(lua_State *L)
{
    ___tracy_emit_frame_mark(lua_isnoneornil(L, 1) ? NULL : tl_intern(tl_upstate(L), L, 1));
    return 0;
}

static int frame_mark_start(lua_State *L)
{
    const char *name = tl_intern(tl_upstate(L), L, 1);
    tl_frame_set_open(name, 1);
    ___tracy_emit_frame_mark_start(name);
    return 0;
}

/* An end without its start would make a server fail the capture: refused, as the C API
 * refuses it (which it also does, in case the state was left some other way). */
static int frame_mark_end(lua_State *L)
{
    const char *name = tl_intern(tl_upstate(L), L, 1);
    if (!tl_frame_set_open(name, 0))
        return luaL_error(L, "tracy.FrameMarkEnd: frame set \"%s\" has no FrameMarkStart open", name);
    ___tracy_emit_frame_mark_end(name);
    return 0;
}

/* Sections (Tracy 0.14): SectionEnter(text [, category]) returns the id SectionLeave takes. */
static int section_enter(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    lua_Integer category = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, category >= 0 && category <= UINT16_MAX, 2, "category must be 0 to 65535");
    lua_pushinteger(L, (lua_Integer)tracyc_section_enter((uint16_t)category, text, len));
    return 1;
}

/* A section left twice or never entered is refused, as the C API refuses it. */
static int section_leave(lua_State *L)
{
    lua_Integer id = luaL_checkinteger(L, 1);
    luaL_argcheck(L, id >= 0 && id <= UINT32_MAX, 1, "not a section id");
    if (tracyc_section_leave((uint32_t)id) != 0) {
        char n[16]; /* 5.1's lua_pushfstring has no unsigned format */
        snprintf(n, sizeof n, "%lu", (unsigned long)id);
        return luaL_error(L, "tracy.SectionLeave: section %s is not open", n);
    }
    return 0;
}

static int set_thread_name(lua_State *L)
{
    ___tracy_set_thread_name(luaL_checkstring(L, 1));
    return 0;
}

static int is_connected(lua_State *L)
{
    lua_pushboolean(L, ___tracy_connected());
    return 1;
}

static int app_info(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    ___tracy_emit_message_appinfo(text, len);
    return 0;
}

void tl_open_events(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"Message", message},
        {"MessageC", message_c},
        {"Plot", plot},
        {"PlotConfig", plot_config},
        {"FrameMark", frame_mark},
        {"FrameMarkStart", frame_mark_start},
        {"FrameMarkEnd", frame_mark_end},
        {"SectionEnter", section_enter},
        {"SectionLeave", section_leave},
        {"SetThreadName", set_thread_name},
        {"IsConnected", is_connected},
        {"AppInfo", app_info},
        {NULL, NULL},
    };
    tl_push_state(L);
    tl_setfuncs(L, fns, 1);
}

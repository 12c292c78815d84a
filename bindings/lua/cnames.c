/* cnames.c - names for the C functions Lua cannot name, for hook mode.
 *
 * Lua names a function by how its caller refers to it; a C function called from C (the
 * searchers and loaders require calls, a function pcall calls) has no name, and would
 * show as "?" -- all of them one zone. A name is looked for as debuggers and Lua's own
 * traceback look (luaL_traceback's pushglobalfuncname): the field of a loaded module that
 * holds the function ("string.rep"; a global is just its name), then its place among
 * package.searchers (package.loaders on 5.1). What is found is kept per C function, so
 * the search runs once per function. A loader that require calls gets the name of the
 * module it loads. Anything else keeps Lua's short_src, "[C]", as upstream's hook does. */
#include "binding.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tl_cname {
    lua_CFunction fn;
    char *name; /* NULL: none found */
};

/* Is the value at idx the function at fidx? Then names it "prefix.key" (prefix may be NULL). */
static int names(lua_State *L, int fidx, const char *prefix, char *buf, size_t size)
{
    if (!lua_rawequal(L, -1, fidx) || lua_type(L, -2) != LUA_TSTRING)
        return 0;
    const char *key = lua_tostring(L, -2);
    if (prefix && strcmp(prefix, "_G") != 0)
        snprintf(buf, size, "%s.%s", prefix, key);
    else
        snprintf(buf, size, "%s", key);
    return 1;
}

/* Searches package.loaded for the function at fidx. */
static int find_in_modules(lua_State *L, int fidx, char *buf, size_t size)
{
    int found = 0;
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    lua_pushnil(L);
    while (!found && lua_next(L, -2)) { /* loaded, modname, module */
        if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
            const char *modname = lua_tostring(L, -2);
            lua_pushnil(L);
            while (!found && lua_next(L, -2)) {
                found = names(L, fidx, modname, buf, size);
                lua_pop(L, 1);
            }
            if (found)
                lua_pop(L, 1); /* the key lua_next left */
        }
        lua_pop(L, 1);
    }
    if (found)
        lua_pop(L, 1); /* the module name */
    lua_pop(L, 1);
    return found;
}

/* Searches package.searchers (package.loaders) for the function at fidx. */
static int find_in_searchers(lua_State *L, int fidx, char *buf, size_t size)
{
    static const char *const lists[] = {"searchers", "loaders"};
    int found = 0;
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    if (tl_getfield(L, -1, "package") == LUA_TTABLE) {
        for (size_t k = 0; k < 2 && !found; k++) {
            if (tl_getfield(L, -1, lists[k]) == LUA_TTABLE) {
                for (int i = 1; !found && tl_rawgeti(L, -1, i) == LUA_TFUNCTION; i++) {
                    if (lua_rawequal(L, -1, fidx)) {
                        snprintf(buf, size, "package.%s[%d]", lists[k], i);
                        found = 1;
                    }
                    lua_pop(L, 1);
                }
                if (!found)
                    lua_pop(L, 1); /* the value that ended the loop */
            }
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2);
    return found;
}

/* The name kept for fn, made on first sight; NULL if none is found. */
static const char *kept_name(struct tl_state *S, lua_State *L, lua_CFunction fn)
{
    for (size_t i = 0; i < S->ncnames; i++)
        if (S->cnames[i].fn == fn)
            return S->cnames[i].name;
    if (S->ncnames == S->cnames_cap) {
        size_t cap = S->cnames_cap ? S->cnames_cap * 2 : 16;
        struct tl_cname *grown = realloc(S->cnames, cap * sizeof *grown);
        if (!grown)
            return NULL;
        S->cnames = grown;
        S->cnames_cap = cap;
    }
    char buf[128];
    int fidx = lua_gettop(L);
    luaL_checkstack(L, 8, NULL);
    int found = find_in_modules(L, fidx, buf, sizeof buf) || find_in_searchers(L, fidx, buf, sizeof buf);
    char *name = found ? malloc(strlen(buf) + 1) : NULL;
    if (name)
        strcpy(name, buf);
    S->cnames[S->ncnames++] = (struct tl_cname){fn, name};
    return name;
}

/* When require called the function: the name of the module (its first argument). */
static const char *loader_name(lua_State *L, lua_Debug *ar, char *buf, size_t size)
{
    lua_Debug caller;
    if (!lua_getstack(L, 1, &caller))
        return NULL;
    lua_getinfo(L, "f", &caller);
    /* loaded._G.require, read raw: no __index of a strict-mode _G may run in a hook */
    tl_getsubtable(L, LUA_REGISTRYINDEX, TL_LOADED_TABLE);
    lua_pushliteral(L, "_G");
    if (tl_rawget(L, -2) == LUA_TTABLE) {
        lua_pushliteral(L, "require");
        lua_rawget(L, -2);
    } else {
        lua_pushnil(L);
    }
    int by_require = lua_rawequal(L, -1, -4);
    lua_pop(L, 4);
    if (!by_require || !lua_getlocal(L, ar, 1))
        return NULL;
    const char *module = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    if (module)
        snprintf(buf, size, "%s", module);
    lua_pop(L, 1);
    return module ? buf : NULL;
}

const char *tl_cfunction_name(struct tl_state *S, lua_State *L, lua_Debug *ar, char *buf, size_t size)
{
    lua_CFunction fn = lua_tocfunction(L, -1);
    const char *name = fn ? kept_name(S, L, fn) : NULL;
    return name ? name : loader_name(L, ar, buf, size);
}

void tl_cnames_free(struct tl_state *S)
{
    for (size_t i = 0; i < S->ncnames; i++)
        free(S->cnames[i].name);
    free(S->cnames);
    S->cnames = NULL;
    S->ncnames = S->cnames_cap = 0;
}

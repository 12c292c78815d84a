/* Hook mode, functions the host calls from C (lua_pcall): each one's zone ends when it
 * returns, before whatever the host does next. A chunk is a vararg function, as is
 * `function(...)`: LuaJIT reports their call at one stack slot and their return at
 * another (the varargs sit between), which once left their zones open until the
 * host's next Lua call. The host emits a message right after each lua_pcall; the zone
 * of the function it called must end before it. */
#include "lua_host.h"

#include <string.h>

static const char *setup = "function vararg(...) local n = select('#', ...) return n end\n"
                           "function fixed(a, b) return a end\n"
                           "function mixed(a, ...) return a end\n"
                           "tracy.HookEnable()\n";

/* Calls the global fn with nargs integer arguments, then emits message "after fn(nargs)". */
static void call_global(lua_State *L, const char *fn, int nargs)
{
    char after[64];
    lua_getglobal(L, fn);
    for (int i = 0; i < nargs; i++)
        lua_pushinteger(L, i);
    CHECK_EQ_INT(lua_pcall(L, nargs, 0, 0), 0);
    snprintf(after, sizeof after, "after %s(%d)", fn, nargs);
    ___tracy_emit_message(after, strlen(after), 0);
}

/* Runs a chunk, then emits message "after <chunkname>". */
static void run_chunk(lua_State *L, const char *chunkname, const char *code)
{
    char after[64];
    CHECK(lh_run(L, chunkname, code));
    snprintf(after, sizeof after, "after %s", chunkname);
    ___tracy_emit_message(after, strlen(after), 0);
}

/* The one zone of the function defined at line in file. */
static const struct lh_zone *zone_at(const struct lh_trace *t, const char *file, uint32_t line)
{
    const struct lh_zone *found = NULL;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->zones[i].loc->line == line && !strcmp(t->zones[i].loc->file, file))
            found = &t->zones[i], n++;
    CHECK_EQ_INT(n, 1);
    return found;
}

/* The zone ended, and before the host's message `after`. */
static void check_ended_before(const struct tt_capture *cap, const struct lh_zone *z, const char *after)
{
    const struct tcd_event *msg = tt_find_text(cap, TCD_MESSAGE, after);
    CHECK(z && msg);
    if (!z || !msg)
        return;
    tt_check(z->end >= 0 && z->end <= msg->time, "%s: the zone ended at %lld, the host's message came at %lld", after,
             (long long)z->end, (long long)msg->time);
}

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@setup.lua", setup));
    run_chunk(L, "@chunk.lua", "local x = 1\n");
    run_chunk(L, "@chunk_calls.lua", "fixed(1, 2) vararg(1, 2, 3)\n");
    call_global(L, "vararg", 0);
    call_global(L, "vararg", 3);
    call_global(L, "mixed", 0);
    call_global(L, "mixed", 4);
    call_global(L, "fixed", 1);
    CHECK(lh_run(L, "@teardown.lua", "tracy.HookDisable()\n"));
    lua_close(L);
    lh_capture_finish(cap);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);
    check_ended_before(cap, zone_at(&t, "chunk.lua", 0), "after @chunk.lua");
    check_ended_before(cap, zone_at(&t, "chunk_calls.lua", 0), "after @chunk_calls.lua");
    /* The functions the host called, in call order (chunk_calls.lua's calls are inside
     * its zone, not at depth 0). */
    static const char *const after[] = {"after vararg(0)", "after vararg(3)", "after mixed(0)", "after mixed(4)",
                                        "after fixed(1)"};
    size_t called = 0;
    for (size_t i = 0; i < t.n; i++) {
        const struct lh_zone *z = &t.zones[i];
        if (strcmp(z->loc->file, "setup.lua") || z->depth != 0)
            continue;
        if (called < sizeof after / sizeof after[0])
            check_ended_before(cap, z, after[called]);
        called++;
    }
    CHECK_EQ_INT(called, sizeof after / sizeof after[0]);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_hook_from_c");
}

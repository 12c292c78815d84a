/* Hook mode: every call a zone, balanced through tail calls, errors, C functions and
 * coroutines; the tracy.* functions themselves are not zoned. */
#include "lua_host.h"

#include <stdlib.h>
#include <string.h>

static const char *script = "local function leaf() return 1 end\n"                                             /* 1 */
                            "local function middle() return leaf() + leaf() end\n"                             /* 2 */
                            "function tail_target() return leaf() end\n"                                       /* 3 */
                            "function tail_caller() return tail_target() end\n"                                /* 4 */
                            "local function thrower() local t = nil; return t.x end\n"                         /* 5 */
                            "local function via() thrower() end\n"                                             /* 6 */
                            "local function manual() tracy.ZoneBeginN('by hand') leaf() tracy.ZoneEnd() end\n" /* 7 */
                            "function top()\n"                                                                 /* 8 */
                            "  middle()\n"                                                                     /* 9 */
                            "  tail_caller()\n"                                                                /* 10 */
                            "  assert(not pcall(via))\n"                                                       /* 11 */
                            "  manual()\n"                                                                     /* 12 */
                            "  string.rep('x', 3)\n"                                                           /* 13 */
                            "  local co = coroutine.wrap(function() leaf() coroutine.yield() leaf() end)\n"    /* 14 */
                            "  co() leaf() co()\n"                                                             /* 15 */
                            "end\n"                                                                            /* 16 */
                            "tracy.HookEnable()\n"                                                             /* 17 */
                            "top()\n"                                                                          /* 18 */
                            "tracy.HookDisable()\n"                                                            /* 19 */
                            "leaf()\n";                                                                        /* 20 */

/* The first zone of a function defined at line in file (Lua cannot name tail-called
 * functions, nor functions called from C). */
static const struct lh_zone *at_line(const struct lh_trace *t, const char *file, uint32_t line)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->zones[i].loc->line == line && !strcmp(t->zones[i].loc->file, file) &&
            strcmp(t->zones[i].name, "by hand"))
            return &t->zones[i];
    return NULL;
}

static long index_of(const struct lh_trace *t, const struct lh_zone *z)
{
    return z ? z - t->zones : -2;
}

/* Manual zones begun in one function and ended in another, with the hook on. */
static const char *split = "local function pb(n) tracy.ZoneBeginN(n) end\n"
                           "local function pe() tracy.ZoneEnd() end\n"
                           "local function text(t) tracy.ZoneText(t) end\n"
                           "local function work() local s = 0 for i = 1, 100 do s = s + i end return s end\n"
                           "tracy.HookEnable()\n"
                           "pb('x') work() text('t') pe()\n"
                           "local ok, err = pcall(tracy.ZoneEnd) -- only hook zones are open\n"
                           "assert(not ok and err == 'tracy.ZoneEnd: no open zone', err)\n"
                           "tracy.HookDisable()\n";

/* The program's own hook replaces ours while calls are open. */
static const char *sethook = "local function inner() debug.sethook(function() end, 'c') debug.sethook() end\n"
                             "local function outer() inner() end\n"
                             "local function later() end\n"
                             "tracy.HookEnable()\n"
                             "outer()\n"
                             "tracy.ZoneBeginN('after sethook') tracy.ZoneEnd()\n"
                             "later()\n";

static void counting_hook(lua_State *L, lua_Debug *ar)
{
    (void)L, (void)ar;
}

/* A C function that sets another hook, as a host may. */
static int replace_hook(lua_State *L)
{
    lua_sethook(L, counting_hook, LUA_MASKLINE, 0);
    return 0;
}

static const char *c_hook = "local function f() replace_hook() end\n"
                            "tracy.HookEnable()\n"
                            "f()\n"
                            "tracy.ZoneBeginN('after C hook') tracy.ZoneEnd()\n";

static int luaopen_cmod(lua_State *L)
{
    lua_newtable(L);
    return 1;
}

/* C functions Lua cannot name: require's searchers and loaders, one called by pcall. */
static const char *unnamed = "tracy.HookEnable()\n"
                             "local m = require 'cmod'\n"
                             "assert(pcall(string.rep, 'x', 2))\n"
                             "tracy.HookDisable()\n";

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    int version = lh_lua_version(); /* 1: LuaJIT */
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@hook.lua", script));
    /* Disabled inside a hooked function: its zone still ends when it returns. */
    CHECK(lh_run(L, "@drain.lua",
                 "local function f() tracy.HookDisable() end\n"
                 "local function g() f() end\n"
                 "tracy.HookEnable() g() g()"));
    lua_close(L);

    L = lh_state();
    CHECK(lh_run(L, "@split.lua", split));
    CHECK(lh_run(L, "@sethook.lua", sethook));
    lua_register(L, "replace_hook", replace_hook);
    CHECK(lh_run(L, "@chook.lua", c_hook));
    lua_sethook(L, NULL, 0, 0);
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "preload");
    lua_pushcfunction(L, luaopen_cmod);
    lua_setfield(L, -2, "cmod");
    lua_pop(L, 2);
    CHECK(lh_run(L, "@unnamed.lua", unnamed));
    lua_close(L);
    lh_capture_finish(cap);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);
    if (getenv("DUMP")) /* DUMP=1 prints the rebuilt zones */
        for (size_t i = 0; i < t.n; i++)
            fprintf(stderr, "%3zu %*s%s %s:%u parent %ld thread %x\n", i, t.zones[i].depth * 2, "", t.zones[i].name,
                    t.zones[i].loc->file, t.zones[i].loc->line, t.zones[i].parent, t.zones[i].thread);

    const struct lh_zone *top = lh_find(&t, "top");
    CHECK(top != NULL);
    if (top) {
        CHECK_STR(top->loc->file, "hook.lua");
        CHECK_EQ_INT(top->loc->line, 8);
        CHECK_EQ_INT(top->depth, 0);
    }
    long top_i = index_of(&t, top);
    /* middle -> leaf, leaf */
    const struct lh_zone *middle = lh_find(&t, "middle");
    CHECK(middle && middle->parent == top_i && middle->loc->line == 2);
    size_t leaves_in_middle = 0;
    for (size_t i = 0; i < t.n; i++)
        leaves_in_middle += middle && t.zones[i].parent == middle - t.zones && !strcmp(t.zones[i].name, "leaf");
    CHECK_EQ_INT(leaves_in_middle, 2);
    /* A tail call replaces its caller: both are children of top (5.1: the callee shows
     * inside the caller, which ends with it). */
    const struct lh_zone *tc = lh_find(&t, "tail_caller"), *tt = at_line(&t, "hook.lua", 3);
    CHECK(tc && tt && tc->parent == top_i);
    if (version == 501)
        CHECK(tc && tt && tt->parent == index_of(&t, tc) && tt->end <= tc->end);
    else
        CHECK(tc && tt && tt->parent == top_i && tt->begin >= tc->end);
    /* The error unwound via and thrower; pcall's return ended their zones (LuaJIT zones
     * no C function: the next call ended them). */
    const struct lh_zone *pc = lh_find(&t, "pcall"), *via = at_line(&t, "hook.lua", 6), *thr = lh_find(&t, "thrower");
    if (version == 1) {
        CHECK(!pc && via && thr && via->parent == top_i && thr->parent == index_of(&t, via));
    } else {
        CHECK(pc && via && thr && pc->parent == top_i && via->parent == pc - t.zones && thr->parent == via - t.zones);
        CHECK(pc && thr && thr->end <= pc->end);
    }
    /* The next call after the pcall sits beside it, not inside the unwound frames. */
    const struct lh_zone *manual = lh_find(&t, "by hand"), *m_fn = NULL;
    for (size_t i = 0; i < t.n; i++)
        if (manual && (long)i == manual->parent)
            m_fn = &t.zones[i];
    CHECK(m_fn && m_fn->loc->line == 7 && m_fn->parent == top_i && !strcmp(m_fn->name, "manual"));
    CHECK(manual && manual->loc->line == 7);
    CHECK(thr && manual && thr->end <= manual->begin);
    /* C functions are zones too, named as called (not on LuaJIT). */
    const struct lh_zone *rep = lh_find(&t, "rep");
    if (version == 1)
        CHECK(rep == NULL);
    else
        CHECK(rep && rep->parent == top_i && strcmp(rep->loc->file, "[C]") == 0);
    /* The tracy.* functions are not. */
    CHECK_EQ_INT(lh_count(&t, "ZoneBeginN") + lh_count(&t, "ZoneEnd") + lh_count(&t, "HookDisable"), 0);
    /* The coroutine's zones are in its fiber, the resumer's leaf in between is not. */
    size_t fiber_leaves = 0, main_leaves_after_top = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (strcmp(t.zones[i].name, "leaf"))
            continue;
        fiber_leaves += lh_is_fiber(t.zones[i].thread);
        main_leaves_after_top += !lh_is_fiber(t.zones[i].thread) && top && t.zones[i].begin > top->end;
    }
    CHECK_EQ_INT(fiber_leaves, 2);
    CHECK_EQ_INT(main_leaves_after_top, 0); /* line 20 ran with the hook off */
    /* drain.lua: g and f of the first call, nothing of the second. */
    CHECK_EQ_INT(lh_count(&t, "g"), 1);
    CHECK_EQ_INT(lh_count(&t, "f"), 2); /* and chook.lua's */

    /* split.lua: x begins in pb and ends in pe. It shows as two zones: the one pb's
     * return ended, and its continuation, which holds work, text's call and pe's. */
    CHECK_EQ_INT(lh_count(&t, "x"), 2);
    const struct lh_zone *pb = lh_find(&t, "pb"), *x1 = lh_find(&t, "x"), *work = lh_find(&t, "work");
    const struct lh_zone *x2 = NULL;
    for (size_t i = x1 ? (size_t)(x1 - t.zones) + 1 : t.n; i < t.n && !x2; i++)
        if (!strcmp(t.zones[i].name, "x"))
            x2 = &t.zones[i];
    CHECK(pb && x1 && x1->parent == index_of(&t, pb) && x1->end <= pb->end);
    CHECK(x2 && work && x2->depth == 0 && work->parent == index_of(&t, x2));
    CHECK(x2 && x2->text && !strcmp(x2->text, "t"));
    const struct lh_zone *pe = lh_find(&t, "pe"), *text = lh_find(&t, "text");
    CHECK(pe && text && x2 && text->parent == index_of(&t, x2) && pe->begin < x2->end);

    /* sethook.lua: outer and inner ended when the program set its own hook; later zones
     * are at the top level, and calls after it are not zoned. */
    const struct lh_zone *outer = lh_find(&t, "outer"), *inner = lh_find(&t, "inner");
    const struct lh_zone *after = lh_find(&t, "after sethook");
    CHECK(outer && inner && after && inner->parent == index_of(&t, outer));
    CHECK(after && after->depth == 0 && outer && outer->end <= after->begin);
    CHECK_EQ_INT(lh_count(&t, "later") + lh_count(&t, "sethook"), 0);
    /* chook.lua: the same for a hook set from C, noticed at the next ZoneBegin. */
    const struct lh_zone *after_c = lh_find(&t, "after C hook");
    CHECK(after_c && after_c->depth == 0);

    /* unnamed.lua: no zone is "?" */
    CHECK_EQ_INT(lh_count(&t, "?"), 0);
    if (version != 1) {
        const struct lh_zone *loader = lh_find(&t, "cmod"), *req = lh_find(&t, "require");
        const char *searcher = version == 501 ? "package.loaders[1]" : "package.searchers[1]";
        CHECK(loader && req && loader->parent == index_of(&t, req) && !strcmp(loader->loc->file, "[C]"));
        CHECK(lh_find(&t, searcher) != NULL);
        const struct lh_zone *by_pcall = lh_find(&t, "string.rep");
        CHECK(by_pcall && by_pcall->parent >= 0 && !strcmp(t.zones[by_pcall->parent].name, "pcall"));
    }

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_hook");
}

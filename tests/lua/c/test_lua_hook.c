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

/* The first zone of a function defined at line (Lua cannot name tail-called functions,
 * nor functions called from C). */
static const struct lh_zone *at_line(const struct lh_trace *t, uint32_t line)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->zones[i].loc->line == line && strcmp(t->zones[i].name, "by hand"))
            return &t->zones[i];
    return NULL;
}

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@hook.lua", script));
    /* Disabled inside a hooked function: its zone still ends when it returns. */
    CHECK(lh_run(L, "@drain.lua",
                 "local function f() tracy.HookDisable() end\n"
                 "local function g() f() end\n"
                 "tracy.HookEnable() g() g()"));
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
    long top_i = top ? top - t.zones : -1;
    /* middle -> leaf, leaf */
    const struct lh_zone *middle = lh_find(&t, "middle");
    CHECK(middle && middle->parent == top_i && middle->loc->line == 2);
    size_t leaves_in_middle = 0;
    for (size_t i = 0; i < t.n; i++)
        leaves_in_middle += middle && t.zones[i].parent == middle - t.zones && !strcmp(t.zones[i].name, "leaf");
    CHECK_EQ_INT(leaves_in_middle, 2);
    /* A tail call replaces its caller: both are children of top. */
    const struct lh_zone *tc = lh_find(&t, "tail_caller"), *tt = at_line(&t, 3);
    CHECK(tc && tt && tc->parent == top_i && tt->parent == top_i && tt->begin >= tc->end);
    /* The error unwound via and thrower; pcall's return ended their zones. */
    const struct lh_zone *pc = lh_find(&t, "pcall"), *via = at_line(&t, 6), *thr = lh_find(&t, "thrower");
    CHECK(pc && via && thr && pc->parent == top_i && via->parent == pc - t.zones && thr->parent == via - t.zones);
    CHECK(pc && thr && thr->end <= pc->end);
    /* The next call after the pcall sits beside it, not inside the unwound frames. */
    const struct lh_zone *manual = lh_find(&t, "by hand"), *m_fn = NULL;
    for (size_t i = 0; i < t.n; i++)
        if (manual && (long)i == manual->parent)
            m_fn = &t.zones[i];
    CHECK(m_fn && m_fn->loc->line == 7 && m_fn->parent == top_i && !strcmp(m_fn->name, "manual"));
    CHECK(manual && manual->loc->line == 7);
    /* C functions are zones too, named as called. */
    const struct lh_zone *rep = lh_find(&t, "rep");
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
    CHECK_EQ_INT(lh_count(&t, "f"), 1);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_hook");
}

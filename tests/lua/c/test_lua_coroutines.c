/* Coroutines are fibers: their zones nest on their own timeline, survive yields, and
 * never close a zone of the code that resumed them. */
#include "lua_host.h"

#include <string.h>

static const char *script =
    "local co = coroutine.create(function()\n"
    "  tracy.ZoneBeginN('co zone')\n"
    "  coroutine.yield()\n"
    "  tracy.ZoneBeginN('co inner')\n"
    "  tracy.ZoneEnd()\n"
    "  tracy.ZoneEnd()\n"
    "  return 'done'\n"
    "end)\n"
    "tracy.ZoneBeginN('outer')\n"
    "assert(coroutine.resume(co))\n"
    "tracy.ZoneBeginN('between') tracy.ZoneEnd()\n"
    "tracy.ZoneEnd() -- ends 'outer', not 'co zone'\n"
    "local ok, res = coroutine.resume(co)\n"
    "assert(ok and res == 'done' and coroutine.status(co) == 'dead')\n"
    "-- ZoneEnd in a coroutine never ends its resumer's zone\n"
    "tracy.ZoneBeginN('main open')\n"
    "local ok2, err = coroutine.resume(coroutine.create(function() tracy.ZoneEnd() end))\n"
    "assert(not ok2 and err:find('tracy.ZoneEnd: no open zone', 1, true), err)\n"
    "tracy.ZoneEnd()\n"
    "-- dies with an error: its zone is ended\n"
    "local ok3 = coroutine.resume(coroutine.create(function() tracy.ZoneBeginN('dies') error('boom') end))\n"
    "assert(not ok3)\n"
    "-- wrap: results, and errors with position\n"
    "local gen = coroutine.wrap(function(a) tracy.ZoneBeginN('wrapped') local b = coroutine.yield(a + 1)\n"
    "  tracy.ZoneEnd() return b * 2 end)\n"
    "assert(gen(1) == 2 and gen(5) == 10)\n"
    "local bad = coroutine.wrap(function() error('oops') end)\n"
    "local okw, errw = pcall(bad)\n"
    "assert(not okw and errw:find('oops'), errw)\n"
    "-- closed while suspended (5.4)\n"
    "local c2 = coroutine.create(function() tracy.ZoneBeginN('closed') coroutine.yield() end)\n"
    "coroutine.resume(c2)\n"
    "if coroutine.close then assert(coroutine.close(c2)) end\n"
    "-- left suspended, then collected\n"
    "do local c3 = coroutine.create(function() tracy.ZoneBeginN('collected') coroutine.yield() end)\n"
    "  coroutine.resume(c3) end\n"
    "collectgarbage() collectgarbage()\n"
    "-- nested coroutines\n"
    "local outerco = coroutine.wrap(function()\n"
    "  tracy.ZoneBeginN('level1')\n"
    "  local innerco = coroutine.wrap(function() tracy.ZoneBeginN('level2') coroutine.yield() tracy.ZoneEnd() end)\n"
    "  innerco()\n"
    "  tracy.ZoneEnd()\n"
    "  innerco()\n"
    "end)\n"
    "outerco()\n"
    "-- many short-lived coroutines reuse a few fibers, those that return values too\n"
    "for i = 1, 200 do coroutine.wrap(function() tracy.ZoneBeginN('short') tracy.ZoneEnd() end)() end\n"
    "for i = 1, 2000 do\n"
    "  assert(coroutine.wrap(function() tracy.ZoneBeginN('returns') tracy.ZoneEnd() return i end)() == i)\n"
    "end\n"
    "-- a coroutine that returns values is dead: the zones it left open end then\n"
    "local r = coroutine.create(function() tracy.ZoneBeginN('left open, returns') return 1, 2 end)\n"
    "assert(select('#', coroutine.resume(r)) == 3)\n"
    "tracy.ZoneBeginN('after the return') tracy.ZoneEnd()\n"
    "-- a coroutine resumed from C (no wrapper) still records in its own fiber\n"
    "raw = coroutine.create(function() tracy.ZoneBeginN('raw') coroutine.yield() tracy.ZoneEnd() end)\n";

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    int ran = lh_run(L, "@co.lua", script);
    CHECK(ran);
    if (!ran)
        return tt_finish("test_lua_coroutines");
    lua_getglobal(L, "raw");
    lua_State *raw = lua_tothread(L, -1);
    CHECK_EQ_INT(lh_resume(raw, L, 0), LUA_YIELD);
    CHECK(lh_run(L, "=main", "tracy.ZoneBeginN('after raw') tracy.ZoneEnd()"));
    CHECK_EQ_INT(lh_resume(raw, L, 0), 0);
    lua_pop(L, 1);
    lua_close(L);
    lh_capture_finish(cap);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);

    const struct lh_zone *outer = lh_find(&t, "outer"), *co = lh_find(&t, "co zone"), *inner = lh_find(&t, "co inner"),
                         *between = lh_find(&t, "between");
    CHECK(outer && co && inner && between);
    if (outer && co && inner && between) {
        CHECK(!lh_is_fiber(outer->thread));
        CHECK(lh_is_fiber(co->thread));
        CHECK_EQ_INT(co->depth, 0);
        CHECK(inner->thread == co->thread && inner->parent == co - t.zones);
        CHECK(between->thread == outer->thread && between->parent == outer - t.zones);
        CHECK(co->end > outer->end); /* outer ended first: the coroutine's zone stayed open */
    }
    /* Both ended when their ZoneEnd ran (a refused end would leave one open until exit). */
    const struct lh_zone *main_open = lh_find(&t, "main open");
    CHECK(outer && co && main_open && outer->end <= main_open->begin && co->end <= main_open->begin);
    const struct lh_zone *dies = lh_find(&t, "dies");
    CHECK(dies && lh_is_fiber(dies->thread) && dies->end >= dies->begin);
    CHECK(lh_find(&t, "wrapped") != NULL);
    const struct lh_zone *closed = lh_find(&t, "closed"), *collected = lh_find(&t, "collected");
    CHECK(closed && closed->end >= 0);
    if (closed && collected && lh_lua_version() == 504) /* coroutine.close ended it, before collection */
        CHECK(closed->end < collected->begin);
    CHECK(collected && collected->end >= 0);
    const struct lh_zone *l1 = lh_find(&t, "level1"), *l2 = lh_find(&t, "level2");
    CHECK(l1 && l2 && l1->thread != l2->thread && lh_is_fiber(l1->thread) && lh_is_fiber(l2->thread));
    CHECK(l2 && l2->depth == 0);

    CHECK_EQ_INT(lh_count(&t, "short"), 200);
    CHECK_EQ_INT(lh_count(&t, "returns"), 2000);
    const struct lh_zone *returned = lh_find(&t, "left open, returns"), *after = lh_find(&t, "after the return");
    CHECK(returned && after && returned->end >= 0 && returned->end <= after->begin);
    uint32_t fibers[256];
    size_t nf = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (!lh_is_fiber(t.zones[i].thread))
            continue;
        size_t k = 0;
        while (k < nf && fibers[k] != t.zones[i].thread)
            k++;
        if (k == nf && nf < 256)
            fibers[nf++] = t.zones[i].thread;
    }
    CHECK(nf <= 8); /* fiber names are recycled */

    const struct lh_zone *r = lh_find(&t, "raw"), *after_raw = lh_find(&t, "after raw");
    CHECK(r && after_raw && lh_is_fiber(r->thread) && !lh_is_fiber(after_raw->thread));
    CHECK(r && after_raw && r->begin < after_raw->begin && r->end > after_raw->end);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_coroutines");
}

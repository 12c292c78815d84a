/* Zones, events and errors from Lua, checked end to end through the decoder. */
#include "lua_host.h"

#include <string.h>

static const char *script = "local function work()\n"                                                     /* 1 */
                            "  tracy.ZoneBegin()\n"                                                       /* 2 */
                            "  tracy.ZoneBeginN('inner')\n"                                               /* 3 */
                            "  tracy.ZoneText('some text')\n"                                             /* 4 */
                            "  tracy.ZoneColor(0x123456)\n"                                               /* 5 */
                            "  tracy.ZoneValue(42)\n"                                                     /* 6 */
                            "  tracy.ZoneEnd()\n"                                                         /* 7 */
                            "  tracy.ZoneEnd()\n"                                                         /* 8 */
                            "end\n"                                                                       /* 9 */
                            "work()\n"                                                                    /* 10 */
                            "for i = 1, 100 do tracy.ZoneBeginN('hot') tracy.ZoneEnd() end\n"             /* 11 */
                            "tracy.ZoneBeginS(4) tracy.ZoneName('renamed') tracy.ZoneEnd()\n"             /* 12 */
                            "tracy.ZoneBeginNS('with depth', 2) tracy.ZoneEnd()\n"                        /* 13 */
                            "tracy.Message('hello')\n"                                                    /* 14 */
                            "tracy.MessageC('red', 0xff0000)\n"                                           /* 15 */
                            "tracy.Plot('fps', 60) tracy.Plot('load', 0.5)\n"                             /* 16 */
                            "tracy.PlotConfig('load', 'percentage', true, false, 0xff)\n"                 /* 17 */
                            "tracy.FrameMark() tracy.FrameMarkStart('load') tracy.FrameMarkEnd('load')\n" /* 18 */
                            "tracy.AppInfo('lua host test')\n"                                            /* 19 */
                            "tracy.ZoneBeginN('long') tracy.ZoneText(('x'):rep(70000)) tracy.ZoneEnd()\n" /* 20 */
                            "tracy.Message(('m'):rep(70000))\n"                                           /* 21 */
                            "local limit = 65523 - #'zones.lua' - #'main chunk'\n"                        /* 22 */
                            "tracy.ZoneBeginN(('a'):rep(limit)) tracy.ZoneEnd()\n"                        /* 23 */
                            "tracy.ZoneBeginN(('b'):rep(limit + 1)) tracy.ZoneEnd()\n"                    /* 24 */
                            "tracy.ZoneBeginN(('c'):rep(limit - 1) .. '\\195\\169') tracy.ZoneEnd()\n"    /* 25 */
                            "tracy.ZoneBeginN('left open')\n"; /* 26: ended by lua_close */

static const char *errors = "local ok, err = pcall(function() tracy.ZoneEnd() end)\n"
                            "assert(not ok and err == 'errors.lua:1: tracy.ZoneEnd: no open zone', err)\n"
                            "ok, err = pcall(tracy.ZoneText, 'x')\n"
                            "assert(not ok and err:find('tracy.ZoneText: no open zone', 1, true), err)\n"
                            "ok, err = pcall(tracy.ZoneBeginN)\n"
                            "assert(not ok and err:find('bad argument #1', 1, true), err)\n"
                            "ok, err = pcall(tracy.ZoneBeginN, {})\n"
                            "assert(not ok and err:find('string expected, got table', 1, true), err)\n"
                            "ok, err = pcall(tracy.ZoneBeginS, 0)\n"
                            "assert(not ok and err:find('bad argument #1', 1, true), err)\n"
                            "ok, err = pcall(tracy.Plot, 'p', 'x')\n"
                            "assert(not ok and err:find('bad argument #2', 1, true), err)\n"
                            "ok, err = pcall(tracy.PlotConfig, 'p', 'bogus')\n"
                            "assert(not ok and err:find('invalid option', 1, true), err)\n"
                            "ok, err = pcall(tracy.MessageC, 'm')\n"
                            "assert(not ok and err:find('bad argument #2', 1, true), err)\n"
                            "local section = tracy.SectionEnter('loading', 3)\n"
                            "assert(section == math.floor(section) and section > 0)\n"
                            "tracy.SectionLeave(section)\n"
                            "assert(type(tracy.IsConnected()) == 'boolean')\n"
                            "assert(require 'tracy' == tracy)\n";

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(lh_run(L, "=errors.lua", errors));
    CHECK(lh_run(L, "@zones.lua", script));
    /* A call with no Lua function below it. */
    lua_getglobal(L, "tracy");
    lua_getfield(L, -1, "ZoneBeginN");
    lua_pushstring(L, "from C");
    lua_call(L, 1, 0);
    lua_getfield(L, -1, "ZoneEnd");
    lua_call(L, 0, 0);
    lua_pop(L, 1);
    lua_close(L);
    lh_capture_finish(cap);

    struct lh_trace t;
    lh_build(cap, &t);
    lh_check_balanced(&t);

    const struct lh_zone *work = lh_find(&t, "work");
    CHECK(work != NULL);
    if (work) {
        CHECK_STR(work->loc->file, "zones.lua");
        CHECK_EQ_INT(work->loc->line, 2);
        CHECK_STR(work->loc->function, "work");
        CHECK_EQ_INT(work->depth, 0);
    }
    const struct lh_zone *inner = lh_find(&t, "inner");
    CHECK(inner != NULL);
    if (inner && work) {
        CHECK_EQ_INT(inner->loc->line, 3);
        CHECK_STR(inner->loc->function, "work");
        CHECK(inner->parent == work - t.zones);
        CHECK_STR(inner->text, "some text");
        CHECK_EQ_INT(inner->color, 0x123456);
        CHECK_EQ_INT(inner->value, 42);
        CHECK(inner->end <= work->end);
    }
    /* Interned: every "hot" zone has the same source location. */
    CHECK_EQ_INT(lh_count(&t, "hot"), 100);
    const struct lh_zone *hot = lh_find(&t, "hot");
    size_t same = 0;
    for (size_t i = 0; i < t.n; i++)
        same += hot && t.zones[i].loc == hot->loc;
    CHECK_EQ_INT(same, 100);
    if (hot) {
        CHECK_EQ_INT(hot->loc->line, 11);
        CHECK_STR(hot->loc->function, "main chunk");
    }
    CHECK(tcd_srcloc_count(cap->dec) < 20);

    CHECK(lh_find(&t, "renamed") != NULL);
    CHECK(lh_find(&t, "with depth") != NULL);
    const struct lh_zone *open = lh_find(&t, "left open");
    CHECK(open && open->end >= open->begin);
    const struct lh_zone *from_c = lh_find(&t, "from C");
    CHECK(from_c != NULL);
    if (from_c)
        CHECK_STR(from_c->loc->file, "[C]");

    /* Strings over 65,534 bytes are truncated, as documented. */
    const struct lh_zone *longz = lh_find(&t, "long");
    CHECK(longz && longz->text && strlen(longz->text) == 65534);
    size_t longest = 0;
    for (size_t i = 0; i < tt_count(cap, TCD_MESSAGE); i++) {
        size_t n = strlen(tt_text(cap, tt_nth(cap, TCD_MESSAGE, i)));
        longest = n > longest ? n : longest;
    }
    CHECK_EQ_INT(longest, 65534);
    /* A ZoneBeginN name too long to intern shares one record of 65,535 bytes with its
     * file and function (as upstream's allocated locations do): it keeps 65,523 bytes
     * less their lengths, and never half a character. */
    for (char c = 'a'; c <= 'c'; c++) {
        const struct lh_zone *z = NULL;
        for (size_t i = 0; i < t.n && !z; i++)
            if (t.zones[i].name[0] == c && t.zones[i].name[1] == c)
                z = &t.zones[i];
        CHECK(z != NULL);
        if (!z)
            continue;
        CHECK_STR(z->loc->file, "zones.lua");
        CHECK_STR(z->loc->function, "main chunk");
        size_t limit = 65523 - strlen("zones.lua") - strlen("main chunk"), n = strlen(z->name);
        tt_check(n == (c == 'c' ? limit - 1 : limit) && strspn(z->name, (char[]){c, 0}) == n,
                 "ZoneBeginN name %c: %zu bytes of %c (limit %zu)", c, n, c, limit);
    }
    CHECK(tt_find_text(cap, TCD_MESSAGE, "hello") != NULL);
    const struct tcd_event *red = tt_find_text(cap, TCD_MESSAGE, "red");
    CHECK(red && red->color == 0xff0000);
    CHECK(tt_find_text(cap, TCD_APP_INFO, "lua host test") != NULL);
    const struct tcd_event *enter = tt_find_text(cap, TCD_SECTION_ENTER, "loading");
    CHECK(enter && enter->query == 3 && tt_count(cap, TCD_SECTION_LEAVE) == 1);
    CHECK_EQ_INT(tt_count(cap, TCD_PLOT), 2);
    const struct tcd_event *cfg = tt_nth(cap, TCD_PLOT_CONFIG, 0);
    CHECK(cfg != NULL);
    if (cfg) {
        CHECK_STR(tcd_plot_name(cap->dec, cfg->id), "load");
        CHECK_EQ_INT(cfg->format, 2);
        CHECK_EQ_INT(cfg->flags, 1);
        CHECK_EQ_INT(cfg->color, 0xff);
    }
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_MARK), 1);
    const struct tcd_event *fs = tt_nth(cap, TCD_FRAME_START, 0);
    CHECK(fs && strcmp(tcd_frame_name(cap->dec, fs->id), "load") == 0);
    CHECK_EQ_INT(tt_count(cap, TCD_FRAME_END), 1);

    lh_trace_free(&t);
    tt_capture_free(cap);
    return tt_finish("test_lua_zones");
}

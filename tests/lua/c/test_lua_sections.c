/* Sections from Lua reach the outputs: the Chrome trace as async slices ("b"/"e", category
 * "section") with their category and its description, the summary as a table grouped by
 * category and name. A section may cross zones and be left in a coroutine; one never
 * left is marked unfinished. Lua -> wire -> decoder -> trace -> each exporter. */
#include "lua_host.h"
#include "trace/export.h"

#include <stdlib.h>

static const char *script = "local loading = tracy.SectionEnter('loading', 2)\n"
                            "tracy.ZoneBeginN('zone')\n"
                            "local crossing = tracy.SectionEnter('crossing\\0zone', 2)\n"
                            "tracy.ZoneEnd()\n"
                            "tracy.SectionLeave(loading)\n"
                            "coroutine.wrap(function() tracy.SectionLeave(crossing) end)()\n"
                            "for i = 1, 3 do tracy.SectionLeave(tracy.SectionEnter('step', 7)) end\n"
                            "tracy.SectionEnter('never left')\n";

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    tracyc_section_setup(2, "phases", 6);
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@sections.lua", script));
    lua_close(L);
    lh_capture_finish(cap);

    uint64_t entered, unfinished;
    lh_sections(cap, &entered, &unfinished);
    CHECK_EQ_INT(entered, 6);
    CHECK_EQ_INT(unfinished, 1);
    char *json = lh_output(cap, TCT_FORMAT_CHROME, NULL);
    lh_expect_in("the Chrome trace", json, "{\"ph\":\"b\",\"name\":\"loading\",");
    lh_expect_in("the Chrome trace", json, "\"cat\":\"section\"");
    lh_expect_in("the Chrome trace", json, "\"args\":{\"category\":2,\"description\":\"phases\"}}");
    lh_expect_in("the Chrome trace", json, "{\"ph\":\"e\",\"name\":\"loading\",");
    lh_expect_in("the Chrome trace", json, "{\"ph\":\"b\",\"name\":\"crossing\\u0000zone\",");
    lh_expect_in("the Chrome trace", json, "{\"ph\":\"e\",\"name\":\"crossing\\u0000zone\",");
    lh_expect_in("the Chrome trace", json, "\"args\":{\"category\":7}}");
    lh_expect_in("the Chrome trace", json, "\"args\":{\"unfinished\":true}}");
    lh_expect_in("the Chrome trace", json, "\"unfinished_sections\":1");
    free(json);

    char *summary = lh_output(cap, TCT_FORMAT_SUMMARY, NULL);
    lh_expect_in("the summary", summary, "\nSections (6 entered, 1 still open at the end)\n");
    lh_expect_in("the summary", summary, "\n  loading                          2 phases            1 ");
    lh_expect_in("the summary", summary, "\n  crossing\\0zone                   2 phases            1 ");
    lh_expect_in("the summary", summary, "\n  step                             7                   3 ");
    lh_expect_in("the summary", summary, "\n  never left                       0                   1 ");
    free(summary);

    tt_capture_free(cap);
    return tt_finish("test_lua_sections");
}

/* Texts from Lua reach every output whole: a NUL byte in a message, a zone's text or a
 * zone's name is no end of string but a character, written \u0000 in the Chrome trace
 * and \0 in the CSV and the summary. Lua -> wire -> decoder -> trace -> each
 * exporter, as the in-process capture and tracyc-capture write them. */
#include "lua_host.h"
#include "trace/export.h"

#include <stdlib.h>

static const char *script = "tracy.Message('message a\\0b')\n"
                            "tracy.ZoneBeginN('zone') tracy.ZoneText('text c\\0d') tracy.ZoneName('name e\\0f')\n"
                            "tracy.ZoneEnd()\n"
                            "tracy.Message('\\0 at the start')\n";

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@texts.lua", script));
    /* The summary shows the text of warnings, which Lua does not send: one from C. */
    ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, 11, "warning g\0h");
    lua_close(L);
    lh_capture_finish(cap);

    char *json = lh_output(cap, TCT_FORMAT_CHROME, NULL);
    lh_expect_in("the Chrome trace", json, "\"name\":\"message a\\u0000b\"");
    lh_expect_in("the Chrome trace", json, "\"name\":\"\\u0000 at the start\"");
    lh_expect_in("the Chrome trace", json, "\"name\":\"name e\\u0000f\"");
    lh_expect_in("the Chrome trace", json, "\"text\":\"text c\\u0000d\"");
    free(json);

    char *messages = lh_output(cap, TCT_FORMAT_CSV, &(struct tct_export_options){.messages = 1});
    lh_expect_in("the messages CSV", messages, "\nmessage a\\0b,");
    lh_expect_in("the messages CSV", messages, "\n\\0 at the start,");
    lh_expect_in("the messages CSV", messages, "\nwarning g\\0h,");
    free(messages);
    char *unwrap = lh_output(cap, TCT_FORMAT_CSV, &(struct tct_export_options){.unwrap = 1});
    lh_expect_in("the zones CSV", unwrap, ",text c\\0d\n");
    free(unwrap);

    char *summary = lh_output(cap, TCT_FORMAT_SUMMARY, NULL);
    lh_expect_in("the summary", summary, "warning g\\0h\n");
    free(summary);

    tt_capture_free(cap);
    return tt_finish("test_lua_output_texts");
}

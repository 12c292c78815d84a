/* Texts from Lua reach every output whole: a NUL byte in a message, a zone's text or a
 * zone's name is no end of string but a character, written \u0000 in the Chrome trace
 * and \0 in the CSV and the summary. Lua -> wire -> decoder -> trace model -> each
 * exporter, as the in-process capture and tracyc-capture write them. */
#include "lua_host.h"
#include "trace/export.h"
#include "trace/model.h"

#include <stdlib.h>
#include <string.h>

static const char *script = "tracy.Message('message a\\0b')\n"
                            "tracy.ZoneBeginN('zone') tracy.ZoneText('text c\\0d') tracy.ZoneName('name e\\0f')\n"
                            "tracy.ZoneEnd()\n"
                            "tracy.Message('\\0 at the start')\n";

/* One output of the capture, as a string (the bytes up to its first NUL: outputs have none). */
static char *output(const struct tt_capture *cap, const struct tct_trace *tr, enum tct_format format,
                    const struct tct_export_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    struct tct_names names;
    tct_names_from_decoder(&names, cap->dec);
    CHECK_EQ_INT(tct_export_to(out, format, tr, &names, o), 0);
    fclose(out);
    CHECK_EQ_INT(strlen(buf), len); /* no raw NUL in any output */
    return buf;
}

static void expect_in(const char *what, const char *text, const char *want)
{
    tt_check(strstr(text, want) != NULL, "%s has %s", what, want);
}

int main(void)
{
    struct tt_capture *cap = lh_capture_start();
    lua_State *L = lh_state();
    CHECK(lh_run(L, "@texts.lua", script));
    /* The summary shows the text of warnings, which Lua does not send: one from C. */
    ___tracy_emit_logString(TracyMessageSeverityWarning, 0, 0, 11, "warning g\0h");
    lua_close(L);
    lh_capture_finish(cap);

    struct tct_trace *tr = tct_trace_new();
    for (size_t i = 0; i < cap->len; i++)
        tct_trace_on_event(tr, &cap->events[i].ev);
    tct_trace_finish(tr);

    char *json = output(cap, tr, TCT_FORMAT_CHROME, NULL);
    expect_in("the Chrome trace", json, "\"name\":\"message a\\u0000b\"");
    expect_in("the Chrome trace", json, "\"name\":\"\\u0000 at the start\"");
    expect_in("the Chrome trace", json, "\"name\":\"name e\\u0000f\"");
    expect_in("the Chrome trace", json, "\"text\":\"text c\\u0000d\"");
    free(json);

    char *messages = output(cap, tr, TCT_FORMAT_CSV, &(struct tct_export_options){.messages = 1});
    expect_in("the messages CSV", messages, "\nmessage a\\0b,");
    expect_in("the messages CSV", messages, "\n\\0 at the start,");
    expect_in("the messages CSV", messages, "\nwarning g\\0h,");
    free(messages);
    char *unwrap = output(cap, tr, TCT_FORMAT_CSV, &(struct tct_export_options){.unwrap = 1});
    expect_in("the zones CSV", unwrap, ",text c\\0d\n");
    free(unwrap);

    char *summary = output(cap, tr, TCT_FORMAT_SUMMARY, NULL);
    expect_in("the summary", summary, "warning g\\0h\n");
    free(summary);

    tct_trace_free(tr);
    tt_capture_free(cap);
    return tt_finish("test_lua_output_texts");
}

/* export_chrome_event.c - what every part of the Chrome output writes an event with: its
 * head, and the pid of its source. */
#include "trace/export_chrome.h"
#include "trace/json.h"

uint64_t tct_chrome_pid(const struct tct_chrome *c, uint32_t source)
{
    const struct tcd_welcome *w = tct_trace_source(c->trace, source)->names.welcome;
    return w ? w->pid : 0;
}

void tct_chrome_begin_event(struct tct_chrome *c, const char *ph, const char *name, size_t name_len, uint64_t pid)
{
    tct_write_str(c->w, c->first ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
    c->first = 0;
    tct_write_str(c->w, ph);
    tct_write_str(c->w, "\",\"name\":\"");
    tct_json_chars(c->w, name, name_len);
    tct_write_str(c->w, "\",\"pid\":");
    tct_write_u64(c->w, pid);
}

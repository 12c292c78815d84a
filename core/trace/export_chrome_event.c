/* export_chrome_event.c - what every part of the Chrome output writes an event with: its
 * head, and the pid of its source; and what the zones of a source location repeat. */
#include "trace/export_chrome.h"
#include "trace/json.h"
#include "trace/names.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

uint64_t tct_chrome_pid(const struct tct_chrome *c, uint32_t source)
{
    return tct_source_pid(c->trace, source);
}

void tct_chrome_separator(struct tct_chrome *c)
{
    tct_write_str(c->w, c->first ? "\n" : ",\n");
    c->first = 0;
}

void tct_chrome_begin_event(struct tct_chrome *c, const char *ph, const char *name, size_t name_len, uint64_t pid)
{
    tct_chrome_separator(c);
    tct_write_str(c->w, "{\"ph\":\"");
    tct_write_str(c->w, ph);
    tct_write_str(c->w, "\",\"name\":\"");
    tct_json_chars(c->w, name, name_len);
    tct_write_str(c->w, "\",\"pid\":");
    tct_write_u64(c->w, pid);
}

/* Writes the place's head and tail into memory (a stream of its own): 0, or -1. */
static int place_write(struct tct_chrome *c, uint32_t source, uint32_t srcloc, struct tct_chrome_place *place)
{
    const struct tct_names *names = &tct_trace_source(c->trace, source)->names;
    const struct tcd_srcloc *sl = names->srcloc(names->ctx, srcloc);
    const char *name = tct_srcloc_label(names, srcloc), *file = sl && sl->file ? sl->file : "";
    uint32_t line = sl ? sl->line : 0;
    size_t len = 0;
    char *text = NULL;
    FILE *f = open_memstream(&text, &len);
    struct tct_writer w;
    if (!f || tct_writer_init(&w, f) != 0) {
        if (f)
            fclose(f);
        free(text);
        return -1;
    }
    tct_write_str(&w, "{\"ph\":\"X\",\"name\":\"");
    tct_json_chars(&w, name, strlen(name));
    tct_write_str(&w, "\",\"pid\":");
    tct_write_u64(&w, tct_chrome_pid(c, source));
    int failed = tct_writer_flush(&w) | fflush(f);
    size_t head_len = len;
    tct_write_str(&w, ",\"loc\":\"");
    tct_json_chars(&w, file, strlen(file));
    tct_write_char(&w, ':');
    tct_write_u64(&w, line);
    tct_write_str(&w, "\",\"args\":{\"file\":");
    tct_json_string(&w, file);
    tct_write_str(&w, ",\"line\":");
    tct_write_u64(&w, line);
    failed |= tct_writer_finish(&w);
    if (fclose(f) != 0 || failed) {
        free(text);
        return -1;
    }
    *place = (struct tct_chrome_place){text, head_len, len - head_len};
    return 0;
}

const struct tct_chrome_place *tct_chrome_place(struct tct_chrome *c, uint32_t source, uint32_t srcloc)
{
    if (source >= c->place_sources) {
        size_t old = c->place_sources;
        struct tct_chrome_places *grown =
            tcu_grow(NULL, c->places, &c->place_sources, (size_t)source + 1, sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + old, 0, (c->place_sources - old) * sizeof *grown);
        c->places = grown;
    }
    struct tct_chrome_places *ps = &c->places[source];
    if (srcloc >= ps->cap) {
        size_t old = ps->cap;
        struct tct_chrome_place *grown = tcu_grow(NULL, ps->at, &ps->cap, (size_t)srcloc + 1, sizeof *grown);
        if (!grown)
            return NULL;
        memset(grown + old, 0, (ps->cap - old) * sizeof *grown);
        ps->at = grown;
    }
    struct tct_chrome_place *place = &ps->at[srcloc];
    return place->text || place_write(c, source, srcloc, place) == 0 ? place : NULL;
}

void tct_chrome_places_free(struct tct_chrome *c)
{
    for (size_t s = 0; s < c->place_sources; s++) {
        for (size_t i = 0; i < c->places[s].cap; i++)
            free(c->places[s].at[i].text);
        free(c->places[s].at);
    }
    free(c->places);
    c->places = NULL;
    c->place_sources = 0;
}

/* trace_sections.c - sections (Tracy 0.14): spans of a category, entered and left by id.
 *
 * A section may be left on another thread than the one that entered it, so its leave can
 * arrive first (the worker drains thread by thread); as Tracy's server does, such a leave
 * waits for its enter. One that never finds it is counted as ignored. */
#include "trace/trace_internal.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

static char *copy(const struct tcd_event *ev, size_t *len)
{
    *len = ev->text ? ev->text_len : 0;
    char *s = malloc(*len + 1);
    if (s) {
        if (*len)
            memcpy(s, ev->text, *len);
        s[*len] = '\0';
    }
    return s;
}

static void section_out(struct tct_trace *tr, struct tct_source_state *src, const struct tct_open_section *o,
                        int64_t end, int unfinished)
{
    struct tct_record rec = {.kind = TCT_REC_SECTION, .source = &src->pub};
    rec.u.section = (struct tct_section_record){.begin = o->begin,
                                                .end = end > o->begin ? end : o->begin,
                                                .seq = o->seq,
                                                .text = o->text ? o->text : "",
                                                .text_len = o->text ? o->text_len : 0,
                                                .id = o->id,
                                                .thread = o->thread,
                                                .category = o->category,
                                                .unfinished = (uint8_t)unfinished};
    tct_trace_deliver(tr, &rec);
}

static void enter(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_open_section o = {
        .begin = ev->time, .seq = src->pub.sections++, .id = ev->id, .thread = ev->thread, .category = ev->query};
    o.text = copy(ev, &o.text_len);
    if (!o.text)
        src->pub.lost_events++;
    uint64_t left;
    if (tcu_map_remove(&src->sections_left, ev->id, &left)) {
        section_out(tr, src, &o, (int64_t)left, 0);
        free(o.text);
        return;
    }
    struct tct_open_section *grown =
        tcu_grow(NULL, src->open_sections, &src->open_section_cap, src->open_section_count + 1, sizeof *grown);
    if (!grown) { /* its leave will not find it */
        src->pub.lost_events++;
        free(o.text);
        return;
    }
    src->open_sections = grown;
    src->open_sections[src->open_section_count++] = o;
}

static void leave(struct tct_source_state *src, struct tct_trace *tr, const struct tcd_event *ev)
{
    for (size_t i = src->open_section_count; i-- > 0;) {
        struct tct_open_section *o = &src->open_sections[i];
        if (o->id != ev->id)
            continue;
        section_out(tr, src, o, ev->time, 0);
        free(o->text);
        *o = src->open_sections[--src->open_section_count];
        return;
    }
    if (tcu_map_put(&src->sections_left, ev->id, (uint64_t)ev->time) < 0)
        src->pub.lost_events++;
}

static void setup(struct tct_source_state *src, const struct tcd_event *ev)
{
    size_t i = 0;
    while (i < src->category_count && src->categories[i].category != ev->query)
        i++;
    if (i == src->category_count) {
        struct tct_section_category *grown =
            tcu_grow(NULL, src->categories, &src->category_cap, src->category_count + 1, sizeof *grown);
        if (!grown) {
            src->pub.lost_events++;
            return;
        }
        src->categories = grown;
        src->categories[src->category_count++] = (struct tct_section_category){.category = ev->query};
    }
    size_t len;
    char *text = copy(ev, &len);
    if (!text) {
        src->pub.lost_events++;
        return;
    }
    free(src->categories[i].text);
    src->categories[i].text = text;
    src->categories[i].text_len = len;
}

void tct_trace_section(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    if (ev->kind == TCD_SECTION_ENTER)
        enter(tr, src, ev);
    else if (ev->kind == TCD_SECTION_LEAVE)
        leave(src, tr, ev);
    else
        setup(src, ev);
}

void tct_trace_finish_sections(struct tct_trace *tr)
{
    for (size_t s = 0; s < tr->source_count; s++) {
        struct tct_source_state *src = tr->sources[s];
        for (size_t i = 0; i < src->open_section_count; i++) {
            struct tct_open_section *o = &src->open_sections[i];
            section_out(tr, src, o, src->pub.last_time, 1);
            free(o->text);
            src->pub.unfinished_sections++;
        }
        src->open_section_count = 0;
        src->pub.ignored_events += tcu_map_count(&src->sections_left); /* leaves of no section */
        tcu_map_clear(&src->sections_left);
    }
}

void tct_trace_free_sections(struct tct_source_state *src)
{
    for (size_t i = 0; i < src->open_section_count; i++)
        free(src->open_sections[i].text);
    free(src->open_sections);
    tcu_map_free(&src->sections_left);
    for (size_t i = 0; i < src->category_count; i++)
        free(src->categories[i].text);
    free(src->categories);
}

const char *tct_trace_section_category(const struct tct_trace *tr, uint32_t source, uint16_t category, size_t *len)
{
    const struct tct_source_state *src = source < tr->source_count ? tr->sources[source] : NULL;
    for (size_t i = 0; src && i < src->category_count; i++) {
        if (src->categories[i].category == category && src->categories[i].text) {
            *len = src->categories[i].text_len;
            return src->categories[i].text;
        }
    }
    *len = 0;
    return NULL;
}

void tct_trace_remap_sections(struct tct_source_state *src, const struct tct_remap *m)
{
    for (size_t i = 0; i < src->open_section_count; i++)
        src->open_sections[i].begin = tct_remap_time(m, src->open_sections[i].begin);
}

/* model_sections.c - sections (Tracy 0.14): spans of a category, entered and left by id.
 *
 * A section may be left on another thread than the one that entered it, so its leave
 * can arrive first (the worker drains thread by thread); as Tracy's server does, such a
 * leave waits for its enter. One that never finds it is counted as ignored. */
#include "trace/model_internal.h"

#include <stdlib.h>

static void enter(struct tct_trace *tr, const struct tcd_event *ev)
{
    size_t len = ev->text ? ev->text_len : 0;
    const char *text = tcu_arena_strdup(&tr->strings, ev->text ? ev->text : "", len);
    size_t index = tr->sections.count;
    struct tct_section *s = text ? tcu_chunks_push(&tr->sections) : NULL;
    if (!s) {
        tr->lost_events++;
        return;
    }
    *s = (struct tct_section){ev->time, TCT_TIME_NONE, text, (uint32_t)len, ev->id, ev->thread, ev->query, 0};
    uint64_t left;
    if (tcu_map_remove(&tr->section_left_early, ev->id, &left))
        s->end = (int64_t)left > s->begin ? (int64_t)left : s->begin;
    else if (tcu_map_put(&tr->section_open, ev->id, index) < 0)
        tr->lost_events++; /* its leave will not find it: it shows as unfinished */
}

static void leave(struct tct_trace *tr, const struct tcd_event *ev)
{
    uint64_t index;
    if (tcu_map_remove(&tr->section_open, ev->id, &index)) {
        struct tct_section *s = tcu_chunks_at(&tr->sections, (size_t)index);
        s->end = ev->time > s->begin ? ev->time : s->begin;
    } else if (tcu_map_put(&tr->section_left_early, ev->id, (uint64_t)ev->time) < 0) {
        tr->lost_events++;
    }
}

static void setup(struct tct_trace *tr, const struct tcd_event *ev)
{
    size_t len = ev->text ? ev->text_len : 0;
    const char *text = tcu_arena_strdup(&tr->strings, ev->text ? ev->text : "", len);
    size_t i = 0;
    while (i < tr->section_category_count && tr->section_categories[i].category != ev->query)
        i++;
    if (i == tr->section_category_count) {
        struct tct_section_category *grown = tcu_grow(NULL, tr->section_categories, &tr->section_category_cap,
                                                      tr->section_category_count + 1, sizeof *grown);
        if (!grown) {
            tr->lost_events++;
            return;
        }
        tr->section_categories = grown;
        tr->section_category_count++;
    }
    if (!text) {
        tr->lost_events++;
        text = "", len = 0;
    }
    tr->section_categories[i] = (struct tct_section_category){ev->query, text, (uint32_t)len};
}

void tct_model_section(struct tct_trace *tr, const struct tcd_event *ev)
{
    if (ev->kind == TCD_SECTION_ENTER)
        enter(tr, ev);
    else if (ev->kind == TCD_SECTION_LEAVE)
        leave(tr, ev);
    else
        setup(tr, ev);
}

void tct_model_finish_sections(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->sections.count; i++) {
        struct tct_section *s = tcu_chunks_at(&tr->sections, i);
        if (s->end != TCT_TIME_NONE)
            continue;
        s->end = tr->last_time > s->begin ? tr->last_time : s->begin;
        s->unfinished = 1;
        tr->unfinished_sections++;
    }
    tr->ignored_events += tcu_map_count(&tr->section_left_early); /* leaves of no section */
    tcu_map_clear(&tr->section_open);
    tcu_map_clear(&tr->section_left_early);
}

void tct_model_free_sections(struct tct_trace *tr)
{
    tcu_chunks_free(&tr->sections);
    free(tr->section_categories);
    tcu_map_free(&tr->section_open);
    tcu_map_free(&tr->section_left_early);
}

size_t tct_model_sections_memory(const struct tct_trace *tr)
{
    return tcu_chunks_memory(&tr->sections) + tr->section_category_cap * sizeof *tr->section_categories +
           tcu_map_memory(&tr->section_open) + tcu_map_memory(&tr->section_left_early);
}

const char *tct_section_category_text(const struct tct_trace *tr, uint16_t category, size_t *len)
{
    for (size_t i = 0; i < tr->section_category_count; i++) {
        if (tr->section_categories[i].category == category) {
            *len = tr->section_categories[i].text_len;
            return tr->section_categories[i].text;
        }
    }
    *len = 0;
    return NULL;
}

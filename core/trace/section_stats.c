/* section_stats.c - sections by source, category and name (section_stats.h). */
#include "trace/section_stats.h"
#include "util/array.h"
#include "util/map.h"

#include <stdlib.h>
#include <string.h>

struct tct_section_stats {
    struct tct_sink sink;
    struct tct_section_group *groups;
    size_t count, cap;
    struct tcu_map by_key; /* hash of (source, category, name) -> newest group with it, + 1 */
    uint64_t entered;
};

static uint64_t key_of(uint32_t source, uint16_t category, const char *name, size_t len)
{
    return tcu_hash_bytes(TCU_HASH_INIT ^ ((uint64_t)source << 16 | category), name, len);
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_section_stats *ss = (struct tct_section_stats *)sink;
    const struct tct_section_record *s = &rec->u.section;
    uint32_t source = rec->source->index;
    ss->entered++;
    uint64_t key = key_of(source, s->category, s->text, s->text_len);
    const uint64_t *newest = tcu_map_get(&ss->by_key, key);
    uint32_t older = newest ? (uint32_t)*newest : 0;
    struct tct_section_group *g = NULL;
    for (uint32_t i = older; i && !g; i = ss->groups[i - 1].same_hash) {
        struct tct_section_group *c = &ss->groups[i - 1];
        if (c->source == source && c->category == s->category && c->name_len == s->text_len &&
            !memcmp(c->name, s->text, s->text_len))
            g = c;
    }
    if (!g) {
        struct tct_section_group *grown = tcu_grow(NULL, ss->groups, &ss->cap, ss->count + 1, sizeof *grown);
        char *name = grown ? malloc(s->text_len + 1) : NULL;
        if (grown)
            ss->groups = grown;
        if (!name || tcu_map_put(&ss->by_key, key, ss->count + 1) < 0) {
            free(name);
            return;
        }
        memcpy(name, s->text, s->text_len);
        name[s->text_len] = '\0';
        g = &ss->groups[ss->count++];
        *g = (struct tct_section_group){
            .source = source, .category = s->category, .name = name, .name_len = s->text_len, .same_hash = older};
    }
    int64_t len = s->end - s->begin;
    g->count++;
    g->total = tct_time_add(g->total, len);
    g->max = len > g->max ? len : g->max;
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_section_stats *ss = (struct tct_section_stats *)sink;
    for (size_t i = 0; i < ss->count; i++)
        free(ss->groups[i].name);
    free(ss->groups);
    tcu_map_free(&ss->by_key);
    free(ss);
}

static const struct tct_sink_ops ops = {"section statistics", TCT_REC_BIT(TCT_REC_SECTION), on_record, stats_free,
                                        NULL};

struct tct_section_stats *tct_section_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_section_stats *)found;
    struct tct_section_stats *ss = calloc(1, sizeof *ss);
    if (!ss)
        return NULL;
    ss->sink.ops = &ops;
    tcu_map_init(&ss->by_key, 0, NULL);
    return tct_trace_add_sink(tr, &ss->sink) == 0 ? ss : NULL;
}

size_t tct_section_group_count(const struct tct_section_stats *ss)
{
    return ss ? ss->count : 0;
}

const struct tct_section_group *tct_section_group_at(const struct tct_section_stats *ss, size_t index)
{
    return ss && index < ss->count ? &ss->groups[index] : NULL;
}

uint64_t tct_section_stats_entered(const struct tct_section_stats *ss)
{
    return ss ? ss->entered : 0;
}

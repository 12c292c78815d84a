/* trace_zones.c - threads and their zones: each thread's stack of open zones, with the
 * text, name, colour and value they collect, turned into a zone record when they end. */
#include "trace/trace_internal.h"
#include "trace/writer.h"
#include "util/array.h"

#include <stdlib.h>
#include <string.h>

struct tct_thread_state *tct_trace_thread_find_or_add(struct tct_trace *tr, struct tct_source_state *src, uint32_t id)
{
    const uint64_t *slot = tcu_map_get(&src->threads, id);
    if (slot)
        return src->last_thread = tr->threads[*slot];
    struct tct_thread_state **grown =
        tcu_grow(NULL, tr->threads, &tr->thread_cap, tr->thread_count + 1, sizeof *tr->threads);
    if (!grown)
        return NULL;
    tr->threads = grown;
    struct tct_thread_state *t = calloc(1, sizeof *t);
    if (!t || tcu_map_put(&src->threads, id, tr->thread_count) < 0) {
        free(t);
        return NULL;
    }
    t->pub.source = src->pub.index;
    t->pub.id = id;
    t->pub.index = (uint32_t)tr->thread_count;
    tr->threads[tr->thread_count++] = t;
    src->pub.thread_count++;
    return src->last_thread = t;
}

void tct_trace_number_thread(struct tct_trace *tr, struct tct_thread_state *t)
{
    /* Tracy's server numbers a client's threads from 1 (it reserves 0); each source is a
     * client of its own. */
    if (!t->pub.server_index)
        t->pub.server_index = ++tr->sources[t->pub.source]->numbered;
}

void tct_trace_free_thread(struct tct_thread_state *t)
{
    for (size_t i = 0; i < t->open_count; i++) {
        if (t->open[i].extras) {
            free(t->open[i].text);
            free(t->open[i].name);
        }
    }
    free(t->open);
    free(t);
}

static void zone_begin(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t,
                       const struct tcd_event *ev)
{
    if (t->skipped_open || t->open_count > TCT_MAX_DEPTH) {
        t->skipped_open++;
        src->pub.ignored_events++;
        return;
    }
    if (t->open_count == t->open_cap) {
        struct tct_open_zone *open = tcu_grow(NULL, t->open, &t->open_cap, t->open_count + 1, sizeof *open);
        if (!open) {
            /* Keep begin/end pairing right: the matching end closes nothing. */
            t->skipped_open++;
            src->pub.lost_events++;
            return;
        }
        t->open = open;
    }
    tct_trace_zone_settle(tr, src, t);
    struct tct_open_zone *z = &t->open[t->open_count++];
    z->begin = ev->time;
    z->children = 0;
    z->seq = t->next_zone++;
    z->srcloc = ev->srcloc;
    z->callstack = ev->callstack;
    z->extras = 0;
    uint32_t depth = (uint32_t)t->open_count - 1;
    if (depth > t->pub.max_depth)
        t->pub.max_depth = depth;
    t->pub.zones++;
    src->pub.zones++;
    t->begin_pending = tr->want_count[TCT_REC_ZONE_BEGIN] != 0;
}

/* Hands out the zone's record: a begin (end TCT_TIME_NONE) or an end. Every field is set
 * one by one, in place: a record built as a compound literal and copied was the trace's
 * costliest step (zeroing, then reading back stores not yet done). */
static void zone_deliver(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t,
                         enum tct_record_kind kind, const struct tct_open_zone *z, uint32_t depth, int64_t end,
                         int64_t self, uint8_t flags)
{
    struct tct_record rec;
    rec.kind = kind;
    rec.source = &src->pub;
    rec.thread = &t->pub;
    struct tct_zone_record *r = &rec.u.zone;
    r->begin = z->begin;
    r->end = end;
    r->self = self;
    r->seq = z->seq;
    r->srcloc = z->srcloc;
    r->depth = depth;
    r->callstack = z->callstack;
    r->flags = flags;
    if (z->extras) {
        r->text = z->text;
        r->name = z->name;
        r->text_len = z->text_len;
        r->name_len = z->name_len;
        r->value = z->value;
        r->color = z->color;
        r->has_value = z->has_value;
        r->has_color = z->has_color;
    } else {
        r->text = r->name = NULL;
        r->text_len = r->name_len = 0;
        r->value = 0;
        r->color = 0;
        r->has_value = r->has_color = 0;
    }
    tct_trace_deliver(tr, &rec);
}

void tct_trace_zone_settle(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t)
{
    if (!t->begin_pending)
        return;
    t->begin_pending = 0;
    zone_deliver(tr, src, t, TCT_REC_ZONE_BEGIN, &t->open[t->open_count - 1], (uint32_t)t->open_count - 1,
                 TCT_TIME_NONE, 0, 0);
}

/* Ends the innermost open zone at `end` and hands it to the sinks. */
static void zone_close(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t, int64_t end,
                       uint8_t flags)
{
    tct_trace_zone_settle(tr, src, t);
    struct tct_open_zone *z = &t->open[--t->open_count];
    if (end < z->begin)
        end = z->begin;
    int64_t span = end - z->begin;
    if (t->open_count)
        t->open[t->open_count - 1].children = tct_time_add(t->open[t->open_count - 1].children, span);
    else
        t->pub.busy = tct_time_add(t->pub.busy, span);
    zone_deliver(tr, src, t, TCT_REC_ZONE, z, (uint32_t)t->open_count, end, tct_time_sub(span, z->children),
                 flags | (z->extras && z->renamed ? TCT_ZONE_RENAMED : 0));
    if (z->extras) { /* most zones have none: no call */
        free(z->text);
        free(z->name);
    }
}

static void zone_end(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t,
                     const struct tcd_event *ev)
{
    if (t->skipped_open) {
        t->skipped_open--;
        return;
    }
    if (!t->open_count) {
        src->pub.ignored_events++;
        return;
    }
    /* Tracy's server numbers a thread when one of its zones ends with a non-zero span. */
    if (ev->time > t->open[t->open_count - 1].begin)
        tct_trace_number_thread(tr, t);
    zone_close(tr, src, t, ev->time, 0);
}

/* Appends to a text the way Tracy's server does: a second text goes after a '\n'. */
static int append_text(char **text, size_t *len, const char *s, size_t n)
{
    size_t sep = *text ? 1 : 0;
    char *grown = realloc(*text, *len + sep + n + 1);
    if (!grown)
        return -1;
    if (sep)
        grown[(*len)++] = '\n';
    memcpy(grown + *len, s, n);
    *len += n;
    grown[*len] = '\0';
    *text = grown;
    return 0;
}

/* A ZoneValue as the Tracy server adds it to the zone's text, "%llu [0x%llx]": its length.
 * By hand, not snprintf: a program may give every zone a value. */
static size_t value_text(char out[64], uint64_t v)
{
    size_t n = tct_format_u64(out, v);
    memcpy(out + n, " [0x", 4);
    n += 4;
    int digits = 1;
    while (digits < 16 && v >> 4 * digits)
        digits++;
    for (int i = digits - 1; i >= 0; i--)
        out[n++] = "0123456789abcdef"[v >> 4 * i & 15];
    out[n++] = ']';
    return n;
}

static void zone_data(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t,
                      const struct tcd_event *ev)
{
    if (t->skipped_open || !t->open_count) {
        src->pub.ignored_events++;
        return;
    }
    struct tct_open_zone *z = &t->open[t->open_count - 1];
    if (!z->extras) {
        z->text = z->name = NULL;
        z->text_len = z->name_len = 0;
        z->value = 0;
        z->color = 0;
        z->has_value = z->has_color = z->renamed = 0;
        z->extras = 1;
    }
    const char *text = ev->text ? ev->text : "";
    size_t len = ev->text ? ev->text_len : 0;
    int rc = 0;
    switch (ev->kind) {
    case TCD_ZONE_TEXT:
        rc = append_text(&z->text, &z->text_len, text, len);
        break;
    case TCD_ZONE_NAME: {
        char *name = malloc(len + 1);
        if (!name) {
            rc = -1;
            break;
        }
        memcpy(name, text, len);
        name[len] = '\0';
        free(z->name);
        z->name = name;
        z->name_len = len;
        z->renamed = !t->begin_pending && tr->want_count[TCT_REC_ZONE_BEGIN]; /* its begin is out */
        break;
    }
    case TCD_ZONE_COLOR:
        z->color = ev->color;
        z->has_color = 1;
        break;
    default: { /* TCD_ZONE_VALUE */
        char tmp[64];
        rc = append_text(&z->text, &z->text_len, tmp, value_text(tmp, ev->value));
        z->value = ev->value;
        z->has_value = 1;
        break;
    }
    }
    if (rc != 0)
        src->pub.lost_events++;
}

void tct_trace_zone_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_thread_state *t = tct_trace_thread_of(tr, src, ev->thread);
    if (!t) {
        src->pub.lost_events++;
        return;
    }
    if (ev->kind == TCD_ZONE_BEGIN)
        zone_begin(tr, src, t, ev);
    else if (ev->kind == TCD_ZONE_END)
        zone_end(tr, src, t, ev);
    else
        zone_data(tr, src, t, ev);
}

/* Tracy's server numbers the OS thread that enters a fiber, and knows the fiber as a
 * thread of its own from then on. */
void tct_trace_fiber_enter(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev)
{
    struct tct_thread_state *os = tct_trace_thread_of(tr, src, ev->thread);
    if (os)
        tct_trace_number_thread(tr, os);
    if (!os || !tct_trace_thread_of(tr, src, ev->id))
        src->pub.lost_events++;
}

void tct_trace_finish_zones(struct tct_trace *tr)
{
    for (size_t i = 0; i < tr->thread_count; i++) {
        struct tct_thread_state *t = tr->threads[i];
        struct tct_source_state *src = tr->sources[t->pub.source];
        while (t->open_count) {
            zone_close(tr, src, t, src->pub.last_time, TCT_ZONE_UNFINISHED);
            src->pub.unfinished_zones++;
        }
        t->skipped_open = 0;
    }
}

void tct_trace_remap_zones(struct tct_trace *tr, uint32_t source, const struct tct_remap *m)
{
    for (size_t i = 0; i < tr->thread_count; i++) {
        struct tct_thread_state *t = tr->threads[i];
        for (size_t k = 0; t->pub.source == source && k < t->open_count; k++)
            t->open[k].begin = tct_remap_time(m, t->open[k].begin);
    }
}

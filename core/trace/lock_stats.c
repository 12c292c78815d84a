/* lock_stats.c - each lock's obtains, contention and waiting time (lock_stats.h). */
#include "trace/lock_stats.h"
#include "trace/names.h"
#include "util/array.h"
#include "util/map.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tct_lock_stats {
    struct tct_sink sink;
    struct tct_lock **locks; /* in order of first appearance */
    size_t count, cap;
    struct tcu_map index; /* source << 32 | lock id -> index in locks */
    uint64_t lost;
};

static struct tct_lock *lock_for(struct tct_lock_stats *ls, uint32_t source, uint32_t id)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *slot = tcu_map_get(&ls->index, key);
    if (slot)
        return ls->locks[*slot];
    struct tct_lock **grown = tcu_grow(NULL, ls->locks, &ls->cap, ls->count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    ls->locks = grown;
    struct tct_lock *l = calloc(1, sizeof *l);
    if (!l || tcu_map_put(&ls->index, key, ls->count) < 0) {
        free(l);
        return NULL;
    }
    l->source = source;
    l->id = id;
    l->announced = l->terminated = TCT_TIME_NONE;
    ls->locks[ls->count++] = l;
    return l;
}

static void lock_obtain(struct tct_lock *l, const struct tcd_event *ev)
{
    l->obtains++;
    l->held++;
    for (size_t i = 0; i < l->waiting_count; i++) {
        if (l->waiting[i].thread != ev->thread)
            continue;
        int64_t waited = ev->time - l->waiting[i].since;
        l->waiting[i] = l->waiting[--l->waiting_count];
        if (waited > 0) {
            l->wait_total = tct_time_add(l->wait_total, waited);
            if (waited > l->wait_max)
                l->wait_max = waited;
        }
        return;
    }
}

static int lock_wait(struct tct_lock *l, const struct tcd_event *ev)
{
    l->waits++;
    if (l->held)
        l->contended++;
    for (size_t i = 0; i < l->waiting_count; i++) {
        if (l->waiting[i].thread == ev->thread) {
            l->waiting[i].since = ev->time;
            return 0;
        }
    }
    struct tct_lock_wait *grown = tcu_grow(NULL, l->waiting, &l->waiting_cap, l->waiting_count + 1, sizeof *grown);
    if (!grown)
        return -1;
    l->waiting = grown;
    l->waiting[l->waiting_count++] = (struct tct_lock_wait){ev->thread, ev->time};
    return 0;
}

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_lock_stats *ls = (struct tct_lock_stats *)sink;
    const struct tcd_event *ev = rec->u.event;
    struct tct_lock *l = lock_for(ls, rec->source->index, ev->id);
    if (!l) {
        ls->lost++;
        return;
    }
    switch (ev->kind) {
    case TCD_LOCK_ANNOUNCE:
        l->srcloc = ev->srcloc;
        l->shared = ev->format == 1;
        l->announced = ev->time;
        break;
    case TCD_LOCK_TERMINATE:
        l->terminated = ev->time;
        break;
    case TCD_LOCK_WAIT:
        if (lock_wait(l, ev) != 0)
            ls->lost++;
        break;
    case TCD_LOCK_OBTAIN:
        lock_obtain(l, ev);
        break;
    case TCD_LOCK_RELEASE:
        l->releases++;
        if (l->held)
            l->held--;
        break;
    case TCD_LOCK_MARK:
        l->marks++;
        break;
    default: { /* TCD_LOCK_NAME */
        size_t len = ev->text ? strnlen(ev->text, ev->text_len) : 0;
        char *name = malloc(len + 1);
        if (!name) {
            ls->lost++;
            return;
        }
        if (len)
            memcpy(name, ev->text, len);
        name[len] = '\0';
        free(l->name);
        l->name = name;
        break;
    }
    }
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_lock_stats *ls = (struct tct_lock_stats *)sink;
    for (size_t i = 0; i < ls->count; i++) {
        free(ls->locks[i]->name);
        free(ls->locks[i]->waiting);
        free(ls->locks[i]);
    }
    free(ls->locks);
    tcu_map_free(&ls->index);
    free(ls);
}

static const struct tct_sink_ops ops = {"lock statistics", TCT_REC_BIT(TCT_REC_LOCK), on_record, stats_free, NULL};

struct tct_lock_stats *tct_lock_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return (struct tct_lock_stats *)found;
    struct tct_lock_stats *ls = calloc(1, sizeof *ls);
    if (!ls)
        return NULL;
    ls->sink.ops = &ops;
    tcu_map_init(&ls->index, 0, NULL);
    return tct_trace_add_sink(tr, &ls->sink) == 0 ? ls : NULL;
}

size_t tct_lock_count(const struct tct_lock_stats *ls)
{
    return ls ? ls->count : 0;
}

const struct tct_lock *tct_lock_at(const struct tct_lock_stats *ls, size_t index)
{
    return ls && index < ls->count ? ls->locks[index] : NULL;
}

uint64_t tct_lock_stats_lost(const struct tct_lock_stats *ls)
{
    return ls ? ls->lost : 0;
}

const char *tct_lock_label(const struct tct_trace *tr, const struct tct_lock *l, char *buf, size_t size)
{
    if (l->name)
        return l->name;
    const char *label = tct_srcloc_label(&tct_trace_source(tr, l->source)->names, l->srcloc);
    if (label[0] && strcmp(label, TCD_UNKNOWN_NAME) != 0)
        return label;
    snprintf(buf, size, "lock %" PRIu32, l->id);
    return buf;
}

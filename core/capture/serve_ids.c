/* serve_ids.c - the proxy's ids: what the server is told, for each process's own. */
#include "capture/serve_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/rounding.h"

#define FIRST_SPARE_TID 0x40000000u /* threads whose own tid another process already has */

struct serve_source *serve_source(struct tcs_serve *s, uint32_t source)
{
    if (source >= SERVE_MAX_SOURCES)
        return NULL;
    if (source >= s->source_count) {
        struct serve_source *grown = tcu_grow(NULL, s->sources, &s->source_cap, source + 1, sizeof *grown);
        if (!grown)
            return NULL;
        s->sources = grown;
        memset(grown + s->source_count, 0, (source + 1 - s->source_count) * sizeof *grown);
        s->source_count = source + 1;
    }
    return &s->sources[source];
}

/* "program[pid]", and "program[pid] #n" for a second process with one pid (containers). */
const char *serve_label(struct tcs_serve *s, uint32_t source)
{
    struct serve_source *src = serve_source(s, source);
    if (!src || source >= tct_trace_source_count(s->trace))
        return "?";
    if (!src->labelled) {
        const struct tct_source *ts = tct_trace_source(s->trace, source);
        char label[TCT_SOURCE_LABEL];
        tct_source_label(ts, label);
        if (ts->names.welcome && tct_source_pid(s->trace, source) != ts->names.welcome->pid)
            snprintf(src->label, sizeof src->label, "%s #%u", label, source + 1);
        else
            snprintf(src->label, sizeof src->label, "%s", label);
        src->labelled = ts->names.welcome != NULL; /* a label from the welcome is final */
    }
    return src->label;
}

static int tid_taken(const struct tcs_serve *s, uint32_t tid)
{
    return tid == 0 || tcu_map_get(&s->tids, tid) != NULL;
}

/* A process's thread keeps its own tid when no other process's has it; fibers (whose ids
 * are the decoder's, 0x80000000 | n) and the rest take spare ones. */
struct serve_thread *serve_thread_of(struct tcs_serve *s, uint32_t source, uint32_t id)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *index = tcu_map_get(&s->thread_ids, key);
    if (index)
        return &s->threads[*index - 1];
    struct serve_thread *grown = tcu_grow(NULL, s->threads, &s->thread_cap, s->thread_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    s->threads = grown;
    uint32_t tid = id;
    if (id >= FIRST_SPARE_TID || tid_taken(s, tid)) {
        if (s->next_tid < FIRST_SPARE_TID)
            s->next_tid = FIRST_SPARE_TID;
        while (tid_taken(s, s->next_tid))
            s->next_tid++;
        tid = s->next_tid++;
    }
    if (tcu_map_put(&s->thread_ids, key, s->thread_count + 1) < 0 ||
        tcu_map_put(&s->tids, tid, s->thread_count + 1) < 0) {
        tcu_map_remove(&s->thread_ids, key, NULL);
        return NULL;
    }
    struct serve_thread *t = &s->threads[s->thread_count++];
    *t = (struct serve_thread){.source = source, .id = id, .tid = tid, .last = INT64_MIN, .last_sample = INT64_MIN};
    return t;
}

const struct serve_thread *serve_thread_by_tid(const struct tcs_serve *s, uint32_t tid)
{
    const uint64_t *index = tcu_map_get(&s->tids, tid);
    return index ? &s->threads[*index - 1] : NULL;
}

int64_t serve_lock(struct tcs_serve *s, uint32_t source, uint32_t lock, int announce)
{
    struct serve_source *src = serve_source(s, source);
    const uint64_t *known = src ? tcu_map_get(&src->locks, lock) : NULL;
    if (known)
        return (int64_t)(*known - 1);
    if (!announce || !src || tcu_map_put(&src->locks, lock, (uint64_t)s->lock_count + 1) < 0)
        return -1;
    return s->lock_count++;
}

/* The server numbers GPU contexts with one byte: 255 of them for every process. */
int serve_gpu_context(struct tcs_serve *s, uint32_t source, uint32_t ctx, int *is_new)
{
    struct serve_source *src = serve_source(s, source);
    const uint64_t *known = src ? tcu_map_get(&src->gpu, ctx) : NULL;
    *is_new = !known;
    if (known)
        return (int)(*known - 1);
    if (!src || s->gpu_count >= 255 || tcu_map_put(&src->gpu, ctx, (uint64_t)s->gpu_count + 1) < 0)
        return -1;
    return (int)s->gpu_count++;
}

uint64_t serve_symbol(struct tcs_serve *s, uint32_t source, uint64_t address)
{
    struct serve_source *src = serve_source(s, source);
    if (!src || !address)
        return 0;
    const uint64_t *known = tcu_map_get(&src->symbols, address);
    if (known)
        return SERVE_ID(SK_SYMBOL, 0, 0) | (*known - 1);
    struct serve_symbol *grown = tcu_grow(NULL, s->symbols, &s->symbol_cap, s->symbol_count + 1, sizeof *grown);
    if (!grown || s->symbol_count >= UINT32_MAX)
        return 0;
    s->symbols = grown;
    if (tcu_map_put(&src->symbols, address, s->symbol_count + 1) < 0)
        return 0;
    s->symbols[s->symbol_count] = (struct serve_symbol){source, address};
    return SERVE_ID(SK_SYMBOL, 0, 0) | s->symbol_count++;
}

/* The trace puts a source on its clock again each time the estimate improves (the trace's
 * outputs are written at the end, on the last one). The server sees records as they come:
 * a process whose offset moved while it ran would have its later events shifted against its
 * earlier ones, and its threads' times going back. So each process keeps, for the server,
 * the clock it had at its first record: its events keep their own spacing exactly, and its
 * place among the others is the estimate of that moment. */
int64_t serve_time(struct tcs_serve *s, const struct tct_source *ts, int64_t t)
{
    struct serve_source *src = serve_source(s, ts->index);
    if (!src || t == TCT_TIME_NONE)
        return t;
    if (!src->clocked) {
        src->clocked = 1;
        src->offset = ts->offset;
        src->scale = ts->scale;
    }
    if (src->offset == ts->offset && src->scale == ts->scale)
        return t;
    double local = ((double)t - (double)ts->offset) / (ts->scale > 0 ? ts->scale : 1.0);
    return src->offset + tcu_llround(local * src->scale);
}

int64_t serve_monotonic(struct tcs_serve *s, uint32_t source, uint64_t key, int64_t t)
{
    struct serve_source *src = serve_source(s, source);
    if (!src)
        return t;
    uint64_t *last = tcu_map_get(&src->last, key);
    if (last && (int64_t)*last > t)
        return (int64_t)*last;
    tcu_map_put(&src->last, key, (uint64_t)t);
    return t;
}

void serve_ids_free(struct tcs_serve *s)
{
    for (size_t i = 0; i < s->source_count; i++) {
        struct serve_source *src = &s->sources[i];
        tcu_map_free(&src->locks);
        tcu_map_free(&src->gpu);
        tcu_map_free(&src->symbols);
        tcu_map_free(&src->plots);
        tcu_map_free(&src->last);
    }
    for (size_t i = 0; i < s->thread_count; i++)
        free(s->threads[i].sent_text);
    free(s->sources);
    free(s->threads);
    free(s->symbols);
    tcu_map_free(&s->thread_ids);
    tcu_map_free(&s->tids);
    s->sources = NULL;
    s->threads = NULL;
    s->symbols = NULL;
}

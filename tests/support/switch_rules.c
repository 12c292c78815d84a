/* switch_rules.c - see switch_rules.h. */
#include "switch_rules.h"

#include "util/map.h"

#include <stdlib.h>

struct run {
    int used;
    int64_t start, end; /* end -1: still running */
};

struct ts_rules {
    struct tcu_map threads; /* tid -> index into runs */
    struct run *runs;
    size_t count, cap;
    uint32_t cpu_thread[256];
    int cpu_used[256];
    int64_t last_time;
};

struct ts_rules *ts_rules_new(void)
{
    return calloc(1, sizeof(struct ts_rules));
}

void ts_rules_free(struct ts_rules *r)
{
    if (!r)
        return;
    tcu_map_free(&r->threads);
    free(r->runs);
    free(r);
}

static struct run *run_of(struct ts_rules *r, uint32_t tid, int create)
{
    uint64_t *v = tcu_map_get(&r->threads, tid);
    if (v)
        return &r->runs[*v];
    if (!create)
        return NULL;
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->runs = realloc(r->runs, r->cap * sizeof *r->runs);
    }
    r->runs[r->count] = (struct run){0, 0, 0};
    tcu_map_put(&r->threads, tid, r->count);
    return &r->runs[r->count++];
}

const char *ts_rules_switch(struct ts_rules *r, int64_t time, uint32_t old_tid, uint32_t new_tid, uint8_t cpu)
{
    if (time < r->last_time)
        return "time goes backwards";
    r->last_time = time;
    if (old_tid) {
        struct run *run = run_of(r, old_tid, 0);
        if (run && run->used) {
            if (run->start > time)
                return "item.Start() <= time";
            if (run->end != -1)
                return "item.End() == -1 (a thread stops twice)";
            run->end = time;
        }
        if (r->cpu_used[cpu] && r->cpu_thread[cpu] != old_tid)
            return "the CPU's last thread is not the one that stops";
    }
    if (new_tid) {
        struct run *run = run_of(r, new_tid, 1);
        if (run->used && (uint64_t)run->end > (uint64_t)time)
            return "data.back().End() <= time (a thread starts while running)";
        *run = (struct run){1, time, -1};
        r->cpu_thread[cpu] = new_tid;
        r->cpu_used[cpu] = 1;
    }
    return NULL;
}

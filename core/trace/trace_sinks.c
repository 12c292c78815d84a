/* trace_sinks.c - a trace's sinks: adding them, finding one, handing them records. */
#include "trace/trace_internal.h"
#include "util/array.h"

#include <stdlib.h>

int tct_trace_add_sink(struct tct_trace *tr, struct tct_sink *sink)
{
    struct tct_sink **grown = tcu_grow(NULL, tr->sinks, &tr->sink_cap, tr->sink_count + 1, sizeof *grown);
    if (!grown) {
        if (!tr->sinks_borrowed)
            sink->ops->free(sink);
        return -1;
    }
    tr->sinks = grown;
    for (int k = 0; k < TCT_REC_KIND_COUNT; k++) {
        if (!(sink->ops->kinds & TCT_REC_BIT(k)))
            continue;
        struct tct_sink **wants = realloc(tr->wants[k], (tr->want_count[k] + 1) * sizeof *wants);
        if (!wants) {
            if (!tr->sinks_borrowed)
                sink->ops->free(sink); /* the kinds added so far point at it: take them back */
            for (int j = 0; j < k; j++)
                if (sink->ops->kinds & TCT_REC_BIT(j))
                    tr->want_count[j]--;
            return -1;
        }
        tr->wants[k] = wants;
        wants[tr->want_count[k]++] = sink;
    }
    tr->sinks[tr->sink_count++] = sink;
    return 0;
}

struct tct_sink *tct_trace_find_sink(const struct tct_trace *tr, const struct tct_sink_ops *ops)
{
    for (size_t i = 0; i < tr->sink_count; i++)
        if (tr->sinks[i]->ops == ops)
            return tr->sinks[i];
    return NULL;
}

void tct_trace_deliver(struct tct_trace *tr, const struct tct_record *rec)
{
    struct tct_sink **wants = tr->wants[rec->kind];
    for (size_t i = 0, n = tr->want_count[rec->kind]; i < n; i++)
        wants[i]->ops->record(wants[i], rec);
}

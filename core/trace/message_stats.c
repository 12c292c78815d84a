/* message_stats.c - messages by severity, and the first warnings (message_stats.h). */
#include "trace/message_stats.h"

#include <stdlib.h>
#include <string.h>

struct stats_sink {
    struct tct_sink sink;
    struct tct_message_stats stats;
};

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_message_stats *ms = &((struct stats_sink *)sink)->stats;
    const struct tct_message_record *m = &rec->u.message;
    uint8_t sev = m->severity < 6 ? m->severity : 5;
    ms->by_severity[sev]++;
    if (sev < 3)
        return;
    if (ms->shown_count < TCT_MESSAGES_SHOWN) {
        struct tct_shown_message *s = &ms->shown[ms->shown_count++];
        s->severity = sev;
        s->source = rec->source->index;
        s->string = m->string;
        s->text = malloc(m->text_len + 1);
        if (s->text) {
            memcpy(s->text, m->text, m->text_len);
            s->text[m->text_len] = '\0';
            s->text_len = m->text_len;
        }
    }
    ms->warnings++;
}

static void stats_free(struct tct_sink *sink)
{
    struct tct_message_stats *ms = &((struct stats_sink *)sink)->stats;
    for (size_t i = 0; i < ms->shown_count; i++)
        free(ms->shown[i].text);
    free(sink);
}

static const struct tct_sink_ops ops = {"message statistics", TCT_REC_BIT(TCT_REC_MESSAGE), on_record, stats_free,
                                        NULL};

struct tct_message_stats *tct_message_stats_of(struct tct_trace *tr)
{
    struct tct_sink *found = tct_trace_find_sink(tr, &ops);
    if (found)
        return &((struct stats_sink *)found)->stats;
    struct stats_sink *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->sink.ops = &ops;
    return tct_trace_add_sink(tr, &s->sink) == 0 ? &s->stats : NULL;
}

/* trace_replay.c - a finished trace's kept events run again through a new trace, into the
 * sinks of an output that writes once every name is known (trace.h, tct_trace_replay). */
#include "trace/trace_internal.h"

#include <errno.h>

struct tct_trace *tct_trace_replay(const struct tct_trace *tr, struct tct_sink *const *sinks, size_t n)
{
    if (!tr->kept || tcu_tape_error(tr->kept)) {
        errno = tr->kept ? tcu_tape_error(tr->kept) : EINVAL;
        return NULL;
    }
    struct tct_trace *replay = tct_trace_new();
    if (!replay) {
        errno = ENOMEM;
        return NULL;
    }
    replay->sinks_borrowed = 1;
    int rc = 0;
    for (size_t i = 0; i < tr->source_count && rc == 0; i++) {
        const struct tct_source *src = &tr->sources[i]->pub;
        rc = tct_trace_add_source(replay, &src->names, src->offset) < 0 ? -1 : 0;
        if (rc == 0)
            tct_trace_set_source_clock(replay, (uint32_t)i, src->offset, src->scale, src->clock_error);
        replay->sources[i]->pub.incomplete = src->incomplete;
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = tct_trace_add_sink(replay, sinks[i]);
    struct tct_trace_log_reader r = {.tape = tr->kept};
    if (rc != 0 || tcu_tape_rewind(tr->kept, &r.tape_reader) != 0) {
        tct_trace_free(replay);
        errno = rc != 0 ? ENOMEM : tcu_tape_error(tr->kept);
        return NULL;
    }
    struct tcd_event ev;
    uint32_t source;
    while ((rc = tct_trace_log_next(&r, &ev, &source)) == 0)
        tct_trace_on_event(replay, source, &ev);
    int complete = rc == 1 && !tcu_tape_error(tr->kept) && r.tape_reader.at == tcu_tape_size(tr->kept);
    tcu_tape_reader_free(&r.tape_reader);
    if (!complete) {
        errno = tcu_tape_error(tr->kept) ? tcu_tape_error(tr->kept) : EIO;
        tct_trace_free(replay);
        return NULL;
    }
    tct_trace_finish(replay);
    return replay;
}

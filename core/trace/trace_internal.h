/* trace_internal.h - what the trace's files share, a tree from the top down: trace_replay.c
 * (replays), trace_events.c (sources, events handed out by kind, the end), trace_records.c
 * and trace_sections.c (everything but zones), trace_zones.c (threads and their zones),
 * trace_sinks.c (sinks,
 * handing them records) and trace_log.c (the kept events). Not for sinks or outputs. */
#ifndef TRACYC_TRACE_TRACE_INTERNAL_H
#define TRACYC_TRACE_TRACE_INTERNAL_H

#include "trace/trace.h"
#include "util/map.h"
#include "util/tape.h"

/* A zone begun and not yet ended. */
struct tct_open_zone {
    int64_t begin;
    int64_t children; /* spans of its direct children, summed */
    uint64_t seq;
    uint32_t srcloc, callstack;
    /* Whether the fields below are set: most zones get no text, name, value or colour, and
     * their begin writes the fields above only (a zone begins with every call traced). */
    uint8_t extras;
    char *text, *name; /* malloc'd; NULL when none */
    size_t text_len, name_len;
    uint64_t value;
    uint32_t color;
    uint8_t has_value, has_color;
    uint8_t renamed; /* TCT_ZONE_RENAMED */
};

/* A thread as the trace keeps it: what sinks see, and its open zones. */
struct tct_thread_state {
    struct tct_thread pub;
    struct tct_open_zone *open; /* outermost first */
    size_t open_count, open_cap;
    uint32_t skipped_open; /* begins past TCT_MAX_DEPTH (or refused for memory) still open */
    uint8_t begin_pending; /* the innermost open zone's TCT_REC_ZONE_BEGIN is still to be handed out */
    uint64_t next_zone;    /* seq of its next zone */
    uint64_t next_sample;
};

struct tct_frame_set_state {
    struct tct_frame_set pub;
    uint64_t frames; /* begun so far: the next frame's seq */
    int open;        /* the last frame began and has not ended */
    int64_t open_start;
};

struct tct_plot_state {
    struct tct_plot pub;
    uint64_t points;
};

/* A GPU zone waiting for its end or its GPU times. */
struct tct_gpu_pending {
    struct tct_gpu_record rec;
    uint8_t in_use;     /* the slot holds a zone */
    uint8_t ended;      /* its CPU end came */
    uint8_t queries;    /* GPU times it still waits for (0..2) */
    uint32_t next_free; /* in the free list of slots, + 1 */
};

struct tct_gpu_stack {
    uint32_t thread;
    uint32_t *zones; /* pending slots of the open zones, outermost first */
    size_t count, cap;
};

struct tct_gpu_context_state {
    struct tct_gpu_context pub;
    uint64_t zones;       /* begun so far: the next zone's seq */
    uint32_t *query_slot; /* query id -> (slot + 1) << 1 | is_end, awaiting its GPU time */
    struct tct_gpu_pending *pending;
    size_t pending_cap;
    uint32_t free_slot; /* + 1; 0: none */
    struct tct_gpu_stack *stacks;
    size_t stack_count, stack_cap;
};

/* A section entered and not yet left. */
struct tct_open_section {
    int64_t begin;
    uint64_t seq;
    char *text; /* malloc'd */
    size_t text_len;
    uint32_t id, thread;
    uint16_t category;
};

/* A section category's description. */
struct tct_section_category {
    uint16_t category;
    char *text; /* malloc'd */
    size_t text_len;
};

struct tct_source_state {
    struct tct_source pub;
    struct tcu_map threads, plots, frame_sets, gpu_contexts; /* id -> index in the trace's arrays */
    struct tct_thread_state *last_thread;                    /* the thread the previous event went to */
    uint64_t next_message, next_switch, next_wakeup;
    uint32_t numbered; /* threads given a server number */
    struct tct_open_section *open_sections;
    size_t open_section_count, open_section_cap;
    struct tcu_map sections_left; /* id -> time of a leave that came before its enter */
    struct tct_section_category *categories;
    size_t category_count, category_cap;
    size_t app_info_cap;
};

struct tct_trace {
    struct tct_source_state **sources;
    size_t source_count, source_cap;
    struct tct_thread_state **threads;
    size_t thread_count, thread_cap;
    struct tct_plot_state **plots;
    size_t plot_count, plot_cap;
    struct tct_frame_set_state **frame_sets;
    size_t frame_set_count, frame_set_cap;
    struct tct_gpu_context_state **gpu_contexts;
    size_t gpu_context_count, gpu_context_cap;
    struct tct_sink **sinks;
    size_t sink_count, sink_cap;
    int sinks_borrowed;    /* a replay's: not freed with it */
    struct tcu_tape *kept; /* the events, for replays (tct_trace_keep_events) */
    size_t spill_memory;   /* tct_trace_set_spill_memory */
    int64_t kept_time;     /* the time of the last event kept */
    /* for each record kind, the sinks that want it */
    struct tct_sink **wants[TCT_REC_KIND_COUNT];
    size_t want_count[TCT_REC_KIND_COUNT];
    int finished;
};

/* A source's clock changed (tct_trace_set_source_clock): what is still open keeps the
 * times it was given on the old clock, moved here onto the new one, so that a span is
 * measured on one clock. */
struct tct_remap {
    int64_t old_offset, new_offset;
    double old_scale, new_scale;
};

static inline int64_t tct_remap_time(const struct tct_remap *m, int64_t t)
{
    if (t == TCT_TIME_NONE)
        return t;
    double own = (double)(t - m->old_offset) / m->old_scale; /* the source's own time */
    return m->new_offset + (int64_t)(own * m->new_scale);
}

/* trace_log.c: keeps one event for replays, and reads them back in order (tct_trace_log_next:
 * 0 with the event, 1 at the end, -1 when the tape is damaged). */
void tct_trace_log_event(struct tct_trace *tr, uint32_t source, const struct tcd_event *ev);
struct tct_trace_log_reader {
    struct tcu_tape *tape;
    struct tcu_tape_reader tape_reader;
    int64_t time;                   /* the previous event's */
    const uint8_t *start, *p, *end; /* the tape's bytes in view (tcu_tape_peek); p: the next event */
    int last;                       /* they run to the end of the tape */
};
int tct_trace_log_next(struct tct_trace_log_reader *r, struct tcd_event *ev, uint32_t *source);

/* trace_sinks.c: hands rec to every sink that wants its kind. */
void tct_trace_deliver(struct tct_trace *tr, const struct tct_record *rec);

/* trace_zones.c */
/* The thread of src with this id, created on first sight; NULL when out of memory. Events
 * of a thread running a fiber already carry the fiber's id (the decoder sees to it). */
struct tct_thread_state *tct_trace_thread_find_or_add(struct tct_trace *tr, struct tct_source_state *src, uint32_t id);
static inline struct tct_thread_state *tct_trace_thread_of(struct tct_trace *tr, struct tct_source_state *src,
                                                           uint32_t id)
{
    /* Events come in runs per thread: the same thread again costs no call, no hash lookup. */
    if (src->last_thread && src->last_thread->pub.id == id)
        return src->last_thread;
    return tct_trace_thread_find_or_add(tr, src, id);
}
/* Gives the thread its server number, as Tracy's server does on first use. */
void tct_trace_number_thread(struct tct_trace *tr, struct tct_thread_state *t);
void tct_trace_zone_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_fiber_enter(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
/* The thread goes on (another of its records comes): hands out its innermost zone's begin if
 * that is still pending (TCT_REC_ZONE_BEGIN). */
void tct_trace_zone_settle(struct tct_trace *tr, struct tct_source_state *src, struct tct_thread_state *t);
void tct_trace_finish_zones(struct tct_trace *tr);
void tct_trace_remap_zones(struct tct_trace *tr, uint32_t source, const struct tct_remap *m);
void tct_trace_free_thread(struct tct_thread_state *t);

/* trace_sections.c */
void tct_trace_section(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_finish_sections(struct tct_trace *tr);
void tct_trace_remap_sections(struct tct_source_state *src, const struct tct_remap *m);
void tct_trace_free_sections(struct tct_source_state *src);

/* trace_records.c */
void tct_trace_message(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_app_info(struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_crash(struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_plot(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_frame(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_memory_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_lock_event(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_gpu(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_sample(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_system(struct tct_trace *tr, struct tct_source_state *src, const struct tcd_event *ev);
void tct_trace_finish_records(struct tct_trace *tr);
/* Open frames and GPU zones waiting for their end. */
void tct_trace_remap_records(struct tct_trace *tr, uint32_t source, const struct tct_remap *m);
void tct_trace_free_records(struct tct_trace *tr);

#endif

/* model.h - the trace model: everything a capture received, built event by event.
 *
 * Feed it from the decoder's on_event callback:
 *
 *   struct tct_trace *trace = tct_trace_new();
 *   ... on_event(user, ev) { tct_trace_on_event(trace, ev); } ...
 *   tct_trace_finish(trace);          // once the capture has ended
 *   tct_export_file(trace, dec, ...); // export.h
 *   tct_trace_free(trace);
 *
 * The model keeps ids, times and indices only; names (threads, source locations, plots,
 * frame sets, pools) stay in the decoder's tables and are resolved at export time.
 * Texts that exist only in events (messages, zone text and names, lock and GPU context
 * names, app info, crash) are copied, since event text lives only for the callback.
 *
 * Callstacks, their frames and the threads of the whole system stay in the decoder too
 * (tcd_callstack(), tcd_frame()): the model keeps callstack ids on zones (side table),
 * messages, GPU zones, allocations and the crash, the samples of each thread, and the
 * context switches and wakeups of the system in arrival order.
 *
 * Zones are 24 bytes each in chunked per-thread arrays, in the order they began (so a
 * thread's zones are in pre-order: a parent comes before its children, and a zone's
 * depth says how many zones enclosed it). Optional text, name, colour and value live in
 * a side table. All times are nanoseconds since the trace origin, as the decoder gives
 * them.
 *
 * Everything below is read-only to users of the model. Records whose field is marked
 * "internal" are bookkeeping of the model itself.
 */
#ifndef TRACYC_TRACE_MODEL_H
#define TRACYC_TRACE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/chunks.h"
#include "util/map.h"
#include "decode/decode.h"

#define TCT_TIME_NONE INT64_MIN /* an end (or GPU time) that never arrived */

/* Sums of times saturate. Times are within about 2^53 of the origin, so one span fits,
 * but a hostile stream's 512 zones of the largest span would overflow a total. */
static inline int64_t tct_time_add(int64_t a, int64_t b)
{
    int64_t sum;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return sum;
}

static inline int64_t tct_time_sub(int64_t a, int64_t b)
{
    int64_t diff;
    if (__builtin_sub_overflow(a, b, &diff))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return diff;
}

static inline uint64_t tct_bytes_add(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}
#define TCT_MAX_DEPTH 0xffffffu /* zones nested deeper than this are not recorded */
#define TCT_CHUNK_SHIFT 12      /* zones, messages, plot points, frames: 4096 a chunk */

enum tct_zone_flag {
    TCT_ZONE_HAS_EXTRA = 1,  /* text, name, colour or value: tct_thread_zone_extra() */
    TCT_ZONE_UNFINISHED = 2, /* still open when the capture ended; end = trace end */
};

struct tct_zone {
    int64_t begin;
    int64_t end;         /* TCT_TIME_NONE while open (only before tct_trace_finish) */
    uint32_t srcloc;     /* index for tcd_srcloc() */
    uint32_t depth : 24; /* 0 = top level; 24 bits keep a zone at 24 bytes */
    uint32_t flags : 8;  /* enum tct_zone_flag */
};

struct tct_zone_extra {
    size_t zone;        /* index in the thread's zones */
    char *text;         /* NULL when none. As the Tracy server stores it: ZoneText calls
                       joined by '\n', each ZoneValue appended as "value [0xhex]" */
    char *name;         /* dynamic ZoneName, NULL when none */
    uint64_t value;     /* the last ZoneValue, when has_value */
    uint32_t color;     /* 0x00RRGGBB, when has_color */
    uint32_t callstack; /* for tcd_callstack(), 0 = none */
    uint8_t has_color;
    uint8_t has_value;
};

/* A callstack sample of a thread. */
struct tct_sample {
    int64_t time;         /* 0 when the client sent none */
    uint32_t callstack;   /* for tcd_callstack() */
    uint8_t switched_out; /* the stack where the thread was switched out, not a CPU sample */
};

struct tct_thread {
    uint32_t id;               /* as the decoder gives it (a fiber's virtual id for fibers) */
    uint32_t server_index;     /* the number Tracy's server gives the thread (csvexport's
                                "thread" column), 0 until an event assigned it */
    struct tcu_chunks zones;   /* struct tct_zone */
    struct tcu_chunks samples; /* struct tct_sample, in arrival order */
    uint64_t cpu_samples;      /* samples that are not switched_out */
    uint64_t messages;
    uint32_t max_depth; /* deepest zone recorded */
    /* internal */
    struct tct_zone_extra *extras; /* sorted by zone index */
    size_t extra_count, extra_cap;
    size_t *open; /* indices of the open zones, outermost first */
    size_t open_count, open_cap;
    uint32_t skipped_open; /* begins past TCT_MAX_DEPTH still open */
};

struct tct_message {
    int64_t time;
    const char *text; /* "" for a literal message whose text was not known yet: */
    uint32_t string;  /* its string handle, for tcd_string() (see tct_message_text()) */
    uint32_t thread;
    uint32_t color;     /* 0 = none */
    uint32_t callstack; /* for tcd_callstack(), 0 = none */
    uint8_t severity;   /* 0 trace .. 5 fatal */
};

struct tct_plot_point {
    int64_t time;
    double value;   /* every point as a double (for min, max, charts) */
    int64_t ivalue; /* a point that came as an integer, exactly */
    uint8_t is_int;
};

struct tct_plot {
    uint32_t id;    /* for tcd_plot_name() */
    uint8_t format; /* as TCD_PLOT_CONFIG says: 0 number, 1 memory, 2 percentage, 3 watt */
    uint8_t flags;  /* bit 0 step, bit 1 fill */
    uint8_t is_int; /* every point came as an integer */
    uint32_t color;
    struct tcu_chunks points; /* struct tct_plot_point, in arrival order */
    double min, max;
};

struct tct_frame {
    int64_t start;
    int64_t end; /* TCT_TIME_NONE: the last frame of a continuous set, or an unended one */
};

struct tct_frame_set {
    uint32_t id;              /* for tcd_frame_name(); 0 = the main "Frame" */
    uint8_t continuous;       /* made by frame marks: a frame lasts until the next mark */
    struct tcu_chunks frames; /* struct tct_frame */
};

/* Allocations made from one callstack (MemAllocCallstack). */
struct tct_alloc_site {
    uint32_t callstack; /* for tcd_callstack() */
    uint64_t count, bytes;
};

struct tct_mem_pool {
    uint32_t id; /* for tcd_pool_name(); 0 = the default pool */
    uint64_t allocs, frees, discards;
    uint64_t unmatched_frees; /* frees of addresses not known as live */
    uint64_t live_bytes, peak_bytes, total_bytes;
    struct tct_alloc_site *sites; /* in order of first appearance */
    size_t site_count;
    uint64_t frees_with_callstack;
    struct tcu_map live;       /* internal: address -> size */
    struct tcu_map site_index; /* internal: callstack -> index in sites */
    size_t site_cap;           /* internal */
};

struct tct_lock {
    uint32_t id;
    uint32_t srcloc;               /* where it was announced */
    uint8_t shared;                /* a shared (read/write) lock */
    char *name;                    /* from LockName, NULL when none */
    int64_t announced, terminated; /* TCT_TIME_NONE when not seen */
    uint64_t waits, obtains, releases, marks;
    uint64_t contended;           /* waits that began while another holder had the lock */
    int64_t wait_total, wait_max; /* from each wait to its obtain */
    uint32_t held;                /* internal: obtains not yet released */
    /* internal: threads waiting now (wait seen, obtain not yet) */
    struct tct_lock_wait {
        uint32_t thread;
        int64_t since;
    } * waiting;
    size_t waiting_count, waiting_cap;
};

struct tct_gpu_zone {
    int64_t cpu_begin, cpu_end; /* cpu_end = trace end for a zone never ended */
    int64_t gpu_begin, gpu_end; /* TCT_TIME_NONE until the GPU time arrived */
    uint32_t srcloc;
    uint32_t thread;    /* the context's thread for contexts bound to one */
    uint32_t callstack; /* for tcd_callstack(), 0 = none */
    uint16_t depth;
};

struct tct_gpu_context {
    uint32_t id;
    uint32_t thread; /* 0: not bound to one thread (Vulkan, D3D12, OpenCL) */
    uint8_t type;
    double period;
    char *name;              /* NULL when none */
    struct tcu_chunks zones; /* struct tct_gpu_zone, in begin order */
    /* internal: as the Tracy server keeps them */
    uint32_t *query_zone; /* query id -> (zone index + 1) << 1 | is_end, awaiting
                             its GPU time */
    struct tct_gpu_stack {
        uint32_t thread;
        size_t *zones;
        size_t count, cap;
    } * stacks;
    size_t stack_count, stack_cap;
};

struct tct_crash {
    int happened;
    uint32_t thread;
    int64_t time;
    char *text;         /* "" when not known yet: */
    uint32_t string;    /* its string handle, for tcd_string() */
    uint32_t callstack; /* for tcd_callstack(), 0 = none */
};

/* A context switch on one CPU: old_thread left it, new_thread began to run (0: idle). */
struct tct_switch {
    int64_t time;
    uint32_t old_thread, new_thread;
    uint8_t cpu;
    uint8_t state;  /* the old thread's state, the client's code (docs/protocol.md §25.5) */
    uint8_t reason; /* the old thread's wait reason, the client's code */
};

struct tct_wakeup {
    int64_t time;
    uint32_t thread;
    uint8_t cpu;
};

struct tct_trace {
    struct tct_thread **threads; /* in the order they first appeared */
    size_t thread_count;
    struct tcu_chunks messages; /* struct tct_message, in arrival order */
    struct tct_plot *plots;
    size_t plot_count;
    struct tct_frame_set *frame_sets;
    size_t frame_set_count;
    struct tct_mem_pool *pools;
    size_t pool_count;
    struct tct_lock *locks;
    size_t lock_count;
    struct tct_gpu_context *gpu_contexts;
    size_t gpu_context_count;
    char **app_info;
    size_t app_info_count;
    struct tct_crash crash;
    struct tcu_chunks switches; /* struct tct_switch, in arrival order (system-wide) */
    struct tcu_chunks wakeups;  /* struct tct_wakeup, in arrival order (system-wide) */
    uint64_t untimed_switches;  /* switches and wakeups the client sent no time for: not kept */

    int64_t last_time; /* latest event time, counted as Tracy's server does */
    uint64_t events;   /* events received */
    uint64_t zones;    /* zones recorded (CPU) */
    uint64_t gpu_zones;
    uint64_t dropped;          /* events the client reported dropping (TCD_DROPPED) */
    uint64_t plot_skipped;     /* plot values the client reported not sending (TCD_PLOT_SKIPPED) */
    uint64_t samples;          /* CPU samples, all threads */
    uint64_t samples_lost;     /* samples the client reported losing (TCD_SAMPLES_LOST) */
    uint64_t unfinished_zones; /* open when the capture ended, closed at last_time */
    uint64_t ignored_events;   /* ends without a begin, zone data outside any zone, ... */
    uint64_t lost_events;      /* events lost because memory ran out */
    int finished;              /* tct_trace_finish() has run */

    /* internal */
    struct tcu_map thread_by_id, plot_by_id, frame_set_by_id, pool_by_id, lock_by_id, gpu_context_by_id;
    size_t thread_cap, plot_cap, frame_set_cap, pool_cap, lock_cap, gpu_context_cap, app_info_cap;
    uint32_t next_server_index;
    struct tct_thread *last_thread; /* the thread the previous event went to */
    struct tcu_arena strings;
};

struct tct_trace *tct_trace_new(void);
void tct_trace_free(struct tct_trace *trace);

/* Adds one decoded event. Never fails: events that cannot be stored (memory exhausted,
 * malformed order) are counted in lost_events / ignored_events. */
void tct_trace_on_event(struct tct_trace *trace, const struct tcd_event *ev);

/* The capture has ended: zones still open are closed at last_time and flagged
 * TCT_ZONE_UNFINISHED (counted in unfinished_zones), GPU zones likewise. Exporters need a
 * finished trace. Calling it again does nothing. */
void tct_trace_finish(struct tct_trace *trace);

/* Bytes the model holds, for status lines. */
size_t tct_trace_memory(const struct tct_trace *trace);

static inline const struct tct_zone *tct_thread_zone(const struct tct_thread *t, size_t i)
{
    return (const struct tct_zone *)tcu_chunks_at(&t->zones, i);
}
/* The side data of zone i, or NULL when it has none. */
const struct tct_zone_extra *tct_thread_zone_extra(const struct tct_thread *t, size_t i);

static inline const struct tct_message *tct_trace_message(const struct tct_trace *tr, size_t i)
{
    return (const struct tct_message *)tcu_chunks_at(&tr->messages, i);
}
static inline const struct tct_plot_point *tct_plot_point(const struct tct_plot *p, size_t i)
{
    return (const struct tct_plot_point *)tcu_chunks_at(&p->points, i);
}
static inline const struct tct_frame *tct_frame_at(const struct tct_frame_set *fs, size_t i)
{
    return (const struct tct_frame *)tcu_chunks_at(&fs->frames, i);
}
static inline const struct tct_gpu_zone *tct_gpu_zone_at(const struct tct_gpu_context *c, size_t i)
{
    return (const struct tct_gpu_zone *)tcu_chunks_at(&c->zones, i);
}
static inline const struct tct_sample *tct_thread_sample(const struct tct_thread *t, size_t i)
{
    return (const struct tct_sample *)tcu_chunks_at(&t->samples, i);
}
static inline const struct tct_switch *tct_trace_switch(const struct tct_trace *tr, size_t i)
{
    return (const struct tct_switch *)tcu_chunks_at(&tr->switches, i);
}
static inline const struct tct_wakeup *tct_trace_wakeup(const struct tct_trace *tr, size_t i)
{
    return (const struct tct_wakeup *)tcu_chunks_at(&tr->wakeups, i);
}
/* The thread with this id, NULL when the trace has none. */
const struct tct_thread *tct_trace_thread(const struct tct_trace *trace, uint32_t id);

/* Visits a thread's zones in the order they ended (children before their parent), each
 * with its self time: its duration minus its direct children's. fn returns non-zero to
 * stop; that value is returned. Returns -1 when out of memory. Needs a finished trace. */
typedef int (*tct_zone_visit_fn)(void *user, size_t index, const struct tct_zone *zone, int64_t self_ns);
int tct_thread_walk(const struct tct_thread *t, tct_zone_visit_fn fn, void *user);

/* Self time of every zone of the thread, indexed like its zones: a malloc'd array the
 * caller frees, NULL when out of memory (or when the thread has no zones). */
int64_t *tct_thread_self_times(const struct tct_thread *t);

/* The message indices sorted by time (stable), malloc'd; NULL when there are none or
 * memory ran out. */
size_t *tct_trace_messages_by_time(const struct tct_trace *trace);

#endif

/* record.h - what a trace hands to its sinks: the things a capture recorded, each once it
 * is complete, and the sources and threads they belong to.
 *
 * The decoder's events are steps (a zone began, a text was added to it, it ended); the
 * trace (trace.h) assembles them into records (this zone, from here to there, with this
 * text, so much of it its own time) and hands each record to every sink that asked for its
 * kind. A record lives for the call; sinks keep what they aggregate, never the record.
 *
 * Ids in records (source locations, callstacks, plots, frame sets, string handles) are
 * those of the record's source, whose names resolve them. Times are nanoseconds on the
 * trace's clock: the source's own (nanoseconds since its client started) plus the source's
 * offset, which puts several clients on one timeline.
 */
#ifndef TRACYC_TRACE_RECORD_H
#define TRACYC_TRACE_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "decode/decode.h"

#define TCT_TIME_NONE INT64_MIN /* an end (or GPU time) that never arrived */
#define TCT_MAX_DEPTH 0xffffffu /* zones nested deeper than this are not recorded */

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

/* How names are found: normally the tables of the decoder that produced the source
 * (tct_names_from_decoder), but any tables will do, which is how the tests seed names. */
struct tct_names {
    const void *ctx;
    const struct tcd_srcloc *(*srcloc)(const void *ctx, uint32_t index);
    const char *(*thread)(const void *ctx, uint32_t thread);
    const char *(*plot)(const void *ctx, uint32_t plot);
    const char *(*frame)(const void *ctx, uint32_t frame_set); /* 0: "Frame" */
    const char *(*pool)(const void *ctx, uint32_t pool);
    const char *(*string)(const void *ctx, uint32_t handle); /* literal texts, "???" unknown */
    const struct tcd_welcome *welcome;                       /* NULL when the handshake never completed */
    /* Callstacks (tcd_callstack(), tcd_frame(), tcd_symbol()); NULL when these names have
     * none: callstacks then expand to nothing. */
    const uint32_t *(*callstack)(const void *ctx, uint32_t id, uint32_t *depth);
    const struct tcd_frame *(*callstack_frame)(const void *ctx, uint32_t index);
    int (*symbol)(const void *ctx, uint64_t symbol, const char **file, uint32_t *line);
    /* Threads of the whole system, as context switches name them: name and process id
     * ("" / 0 unknown); NULL when unknown. */
    const char *(*system_thread)(const void *ctx, uint32_t thread);
    uint64_t (*thread_pid)(const void *ctx, uint32_t thread);
};

/* The crash a client reported. */
struct tct_crash {
    int happened;
    uint32_t thread;
    int64_t time;
    char *text;         /* "" when not known yet: */
    uint32_t string;    /* its string handle, for names.string */
    uint32_t callstack; /* 0 = none */
};

/* One client: a process. Counters are what the trace saw of it so far. */
struct tct_source {
    uint32_t index;         /* in the order sources were added */
    struct tct_names names; /* resolve its ids */
    int64_t offset;         /* its times t become offset + t * scale on the trace's clock ... */
    double scale;           /* ... (1: its clock runs as the trace's) */
    int64_t clock_error;    /* how far off that may be, ns (0: exactly; -1: not known) */
    const char *incomplete; /* why its capture is incomplete (tct_trace_source_incomplete), NULL when complete */

    int64_t last_time;            /* its latest event time, counted as Tracy's server does */
    uint64_t events;              /* events received */
    uint64_t zones;               /* CPU zones recorded */
    uint64_t gpu_zones;           /* GPU zones recorded */
    uint64_t messages;            /* messages recorded */
    uint64_t plot_points;         /* plot values recorded */
    uint64_t samples;             /* CPU samples, all threads */
    uint64_t dropped;             /* events the client reported dropping */
    uint64_t plot_skipped;        /* plot values the client reported not sending (NaN, infinity) */
    uint64_t samples_lost;        /* samples the client reported losing */
    uint64_t unfinished_zones;    /* open when the capture ended, closed at last_time */
    uint64_t sections;            /* sections entered */
    uint64_t unfinished_sections; /* sections still open when the capture ended */
    uint64_t ignored_events;      /* ends without a begin, zone data outside any zone, ... */
    uint64_t lost_events;         /* events lost because memory ran out */
    uint64_t switches;            /* context switches recorded */
    uint64_t untimed_switches;    /* context switches and wakeups the client sent no time for */
    uint32_t thread_count;        /* its threads (and fibers) */
    char **app_info;              /* AppInfo texts, in order */
    size_t app_info_count;
    struct tct_crash crash;
};

/* A thread (or a fiber) of one source. The counters grow as its records go out. */
struct tct_thread {
    uint32_t source;       /* index of its source */
    uint32_t id;           /* as the decoder gives it (a fiber's virtual id for fibers) */
    uint32_t index;        /* in the order threads first appeared in the trace, all sources */
    uint32_t server_index; /* the number Tracy's server gives it (csvexport's "thread" column), 0 until given */
    uint64_t zones, messages, cpu_samples;
    int64_t busy;       /* the spans of its top-level zones, summed */
    uint32_t max_depth; /* deepest zone recorded */
};

/* A plot, a frame set, a GPU context: described once, then referred to by records. */
struct tct_plot {
    uint32_t source, id; /* id for names.plot */
    uint32_t index;      /* in the order they first appeared, all sources */
    uint8_t format;      /* as PlotConfig says: 0 number, 1 memory, 2 percentage, 3 watt */
    uint8_t flags;       /* bit 0 step, bit 1 fill */
    uint32_t color;
};

struct tct_frame_set {
    uint32_t source, id; /* id for names.frame; 0 = the main "Frame" */
    uint32_t index;
    uint8_t continuous; /* made by frame marks: a frame lasts until the next mark */
};

struct tct_gpu_context {
    uint32_t source, id;
    uint32_t index;
    uint32_t thread; /* 0: not bound to one thread (Vulkan, D3D12, OpenCL) */
    uint8_t type;
    double period;
    char *name; /* NULL when none */
};

enum tct_zone_flag {
    TCT_ZONE_UNFINISHED = 1, /* still open when the capture ended; end = its source's last_time */
    TCT_ZONE_RENAMED = 2,    /* named (ZoneName) after its TCT_REC_ZONE_BEGIN went out with another name */
};

enum tct_record_kind {
    TCT_REC_ZONE,     /* .zone: a CPU zone ended, or was still open when the capture ended */
    TCT_REC_MESSAGE,  /* .message */
    TCT_REC_FRAME,    /* .frame: a frame ended, or the capture did */
    TCT_REC_PLOT,     /* .plot: one value */
    TCT_REC_MEMORY,   /* .event: TCD_MEM_ALLOC, TCD_MEM_FREE or TCD_MEM_DISCARD, as decoded */
    TCT_REC_LOCK,     /* .event: a TCD_LOCK_* event, as decoded */
    TCT_REC_GPU_ZONE, /* .gpu: a GPU zone whose times are all known, or the capture ended */
    TCT_REC_SAMPLE,   /* .sample: a callstack sample of a thread */
    TCT_REC_SWITCH,   /* .sw: a context switch on one CPU (any thread of the system) */
    TCT_REC_WAKEUP,   /* .wakeup */
    TCT_REC_SECTION,  /* .section: a section left, or still open when the capture ended */
    /* Begins, for sinks that write a zone's begin and end apart, each in its place (a sequential
     * format); no other sink asks for them, and then the trace does nothing for them. */
    TCT_REC_ZONE_BEGIN, /* .zone, end TCT_TIME_NONE: a CPU zone began. It is handed out once its
                         * thread goes on - before that thread's next zone begins or ends, before its
                         * next message, or at the capture's end - so that its name, colour, value and
                         * text carry what the client set right after the begin */
    TCT_REC_GPU_BEGIN,  /* .gpu, gpu_end TCT_TIME_NONE: the GPU said when a GPU zone began */
    TCT_REC_KIND_COUNT
};
#define TCT_REC_BIT(kind) (1u << (kind))

struct tct_zone_record {
    int64_t begin, end;
    int64_t self;    /* end - begin, less its direct children's spans */
    uint64_t seq;    /* the order it began among its thread's zones: sorted by it, they are in pre-order */
    uint32_t srcloc; /* for names.srcloc */
    uint32_t depth;  /* 0 = top level */
    uint32_t callstack;
    uint8_t flags; /* enum tct_zone_flag */
    /* What ZoneText, ZoneName, ZoneColor and ZoneValue added (text NULL: none). The text is
     * as the Tracy server stores it: ZoneText calls joined by '\n', each ZoneValue
     * appended as "value [0xhex]". */
    const char *text, *name;
    size_t text_len, name_len;
    uint64_t value;
    uint32_t color;
    uint8_t has_value, has_color;
};

struct tct_message_record {
    int64_t time;
    uint64_t seq;     /* arrival order within its source */
    const char *text; /* text_len bytes; "" for a literal message whose text is not known yet: */
    size_t text_len;
    uint32_t string; /* its string handle, for names.string */
    uint32_t color;  /* 0 = none */
    uint32_t callstack;
    uint8_t severity; /* 0 trace .. 5 fatal */
};

struct tct_frame_record {
    const struct tct_frame_set *set;
    uint64_t seq; /* its number in the set */
    int64_t start;
    int64_t end; /* TCT_TIME_NONE: the last frame of a continuous set, or one never ended */
};

struct tct_plot_record {
    const struct tct_plot *plot;
    uint64_t seq; /* its number in the plot */
    int64_t time;
    double value;   /* every value as a double */
    int64_t ivalue; /* a value that came as an integer, exactly */
    uint8_t is_int;
};

struct tct_gpu_record {
    const struct tct_gpu_context *context;
    uint64_t seq;               /* the order it began in its context */
    int64_t cpu_begin, cpu_end; /* cpu_end = last_time for a zone never ended */
    int64_t gpu_begin, gpu_end; /* TCT_TIME_NONE when the GPU never said */
    uint32_t srcloc;
    uint32_t thread; /* the context's thread, or the thread that began it */
    uint32_t callstack;
    uint16_t depth;
    uint8_t unfinished;
};

struct tct_sample_record {
    int64_t time; /* 0 when the client sent none */
    uint64_t seq; /* arrival order within its thread */
    uint32_t callstack;
    uint8_t switched_out; /* the stack where the thread was switched out, not a CPU sample */
};

struct tct_switch_record {
    int64_t time;
    uint64_t seq;                    /* arrival order within its source */
    uint32_t old_thread, new_thread; /* 0: the CPU's idle task */
    uint8_t cpu;
    uint8_t state;  /* the old thread's state, the client's code (docs/protocol.md §25.5) */
    uint8_t reason; /* the old thread's wait reason, the client's code */
};

struct tct_wakeup_record {
    int64_t time;
    uint64_t seq;
    uint32_t thread;
    uint8_t cpu;
};

/* A section (Tracy 0.14): a span of a category, entered and left by id on any thread. */
struct tct_section_record {
    int64_t begin, end; /* end = its source's last_time for one still open at the end */
    uint64_t seq;       /* the order it was entered in its source */
    const char *text;   /* its name, text_len bytes (NULs included) */
    size_t text_len;
    uint32_t id;
    uint32_t thread; /* the thread (or fiber) that entered it */
    uint16_t category;
    uint8_t unfinished;
};

struct tct_record {
    enum tct_record_kind kind;
    const struct tct_source *source;
    const struct tct_thread *thread; /* NULL for records of no thread of the source's (frames, plots,
                                      * GPU zones, switches, wakeups) */
    union {
        struct tct_zone_record zone;
        struct tct_message_record message;
        struct tct_frame_record frame;
        struct tct_plot_record plot;
        const struct tcd_event *event; /* times already on the trace's clock */
        struct tct_gpu_record gpu;
        struct tct_sample_record sample;
        struct tct_switch_record sw;
        struct tct_wakeup_record wakeup;
        struct tct_section_record section;
    } u;
};

#endif

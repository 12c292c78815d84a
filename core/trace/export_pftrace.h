/* export_pftrace.h - what the parts of the Perfetto output share:
 *
 *   export_pftrace_writer.c   the format, the writer sink (in a replay of the trace) and what goes
 *                             on tracks: zones, messages, frames, plots, memory, locks, GPU zones, sections
 *   export_pftrace_packet.c   a packet, which every part writes
 *   export_pftrace_tracks.c   the tracks: their uuids and descriptors (processes, threads,
 *                             counters, frame sets, GPU contexts, locks, section ids)
 *   export_pftrace_stacks.c   interned callstacks (frames, functions, files, mappings), and the
 *                             CPU samples as PerfSample packets
 *   export_pftrace_sched.c    context switches and wakeups as ftrace compact-sched bundles
 *
 * The file is a Perfetto Trace message: a stream of TracePacket messages, in protobuf's wire
 * format (pb_writer.h), with the field numbers of Perfetto's published schema
 * (google/perfetto, protos/perfetto/trace/); docs/capture.md says what maps to what.
 */
#ifndef TRACYC_TRACE_EXPORT_PFTRACE_H
#define TRACYC_TRACE_EXPORT_PFTRACE_H

#include <stdint.h>

#include "trace/export.h"
#include "trace/lock_stats.h"
#include "trace/pb_writer.h"
#include "trace/sched_log.h"
#include "trace/stacks.h"
#include "util/map.h"

/* Field numbers, by message, and the enum values used. */
enum {
    PF_TRACE_PACKET = 1, /* Trace */

    PF_PACKET_FTRACE_EVENTS = 1, /* TracePacket */
    PF_PACKET_PROCESS_TREE = 2,
    PF_PACKET_CLOCK_SNAPSHOT = 6,
    PF_PACKET_TIMESTAMP = 8,
    PF_PACKET_SEQUENCE_ID = 10, /* trusted_packet_sequence_id */
    PF_PACKET_TRACK_EVENT = 11,
    PF_PACKET_INTERNED_DATA = 12,
    PF_PACKET_SEQUENCE_FLAGS = 13,
    PF_PACKET_TRACK_DESCRIPTOR = 60,
    PF_PACKET_PERF_SAMPLE = 66,
    PF_PACKET_FIRST_ON_SEQUENCE = 87, /* first_packet_on_sequence: nothing of the sequence came before */
    PF_SEQ_INCREMENTAL_STATE_CLEARED = 1,
    PF_SEQ_NEEDS_INCREMENTAL_STATE = 2,

    PF_CLOCKS = 1, /* ClockSnapshot */
    PF_CLOCK_PRIMARY = 2,
    PF_CLOCK_ID = 1, /* ClockSnapshot.Clock */
    PF_CLOCK_TIMESTAMP = 2,
    PF_CLOCK_REALTIME = 1, /* BuiltinClock */
    PF_CLOCK_BOOTTIME = 6,

    PF_TRACK_UUID = 1, /* TrackDescriptor */
    PF_TRACK_NAME = 2,
    PF_TRACK_PROCESS = 3,
    PF_TRACK_THREAD = 4,
    PF_TRACK_PARENT = 5,
    PF_TRACK_COUNTER = 8,
    PF_TRACK_DESCRIPTION = 14,
    PF_TRACK_MERGE = 15, /* sibling_merge_behavior */
    PF_MERGE_NONE = 2,

    PF_PROCESS_PID = 1, /* ProcessDescriptor */
    PF_PROCESS_NAME = 6,
    PF_PROCESS_LABELS = 8,
    PF_THREAD_PID = 1, /* ThreadDescriptor */
    PF_THREAD_TID = 2,
    PF_THREAD_NAME = 5,
    PF_COUNTER_UNIT = 3, /* CounterDescriptor */
    PF_COUNTER_UNIT_NAME = 6,
    PF_UNIT_COUNT = 2,
    PF_UNIT_SIZE_BYTES = 3,

    PF_EVENT_ANNOTATIONS = 4, /* TrackEvent */
    PF_EVENT_TYPE = 9,
    PF_EVENT_NAME_IID = 10,
    PF_EVENT_TRACK = 11,
    PF_EVENT_LOG = 21,
    PF_EVENT_NAME = 23,
    PF_EVENT_COUNTER = 30,
    PF_EVENT_SOURCE_LOCATION_IID = 34,
    PF_EVENT_DOUBLE_COUNTER = 44,
    PF_EVENT_CALLSTACK_IID = 56,
    PF_SLICE_BEGIN = 1,
    PF_SLICE_END = 2,
    PF_INSTANT = 3,
    PF_COUNTER = 4,

    PF_ANNOTATION_NAME_IID = 1, /* DebugAnnotation */
    PF_ANNOTATION_BOOL = 2,
    PF_ANNOTATION_UINT = 3,
    PF_ANNOTATION_STRING = 6,
    PF_LOG_BODY_IID = 2, /* LogMessage */
    PF_LOG_PRIO = 3,

    PF_INTERNED_EVENT_NAMES = 2, /* InternedData */
    PF_INTERNED_ANNOTATION_NAMES = 3,
    PF_INTERNED_SOURCE_LOCATIONS = 4,
    PF_INTERNED_FUNCTION_NAMES = 5,
    PF_INTERNED_FRAMES = 6,
    PF_INTERNED_CALLSTACKS = 7,
    PF_INTERNED_MAPPING_PATHS = 17,
    PF_INTERNED_SOURCE_PATHS = 18,
    PF_INTERNED_MAPPINGS = 19,
    PF_INTERNED_LOG_BODIES = 20,
    PF_IID = 1,          /* every interned message: EventName, InternedString, SourceLocation, ... */
    PF_INTERNED_STR = 2, /* EventName.name, InternedString.str, DebugAnnotationName.name, LogMessageBody.body */
    PF_SOURCE_LOCATION_FILE = 2,
    PF_SOURCE_LOCATION_FUNCTION = 3,
    PF_SOURCE_LOCATION_LINE = 4,
    PF_MAPPING_PATHS = 7,  /* Mapping.path_string_ids */
    PF_FRAME_FUNCTION = 2, /* Frame */
    PF_FRAME_MAPPING = 3,
    PF_FRAME_REL_PC = 4,
    PF_FRAME_SOURCE_PATH = 5,
    PF_FRAME_LINE = 6,
    PF_CALLSTACK_FRAMES = 2, /* Callstack.frame_ids, outermost first, not packed */

    PF_SAMPLE_PID = 2, /* PerfSample */
    PF_SAMPLE_TID = 3,
    PF_SAMPLE_CALLSTACK = 4,

    PF_TREE_THREADS = 2, /* ProcessTree */
    PF_TREE_TID = 1,     /* ProcessTree.Thread */
    PF_TREE_NAME = 2,
    PF_TREE_TGID = 3,

    PF_BUNDLE_CPU = 1, /* FtraceEventBundle */
    PF_BUNDLE_EVENT = 2,
    PF_BUNDLE_COMPACT_SCHED = 4,
    PF_FTRACE_TIMESTAMP = 1, /* FtraceEvent */
    PF_FTRACE_PID = 2,
    PF_FTRACE_SCHED_SWITCH = 4,
    PF_FTRACE_SCHED_WAKING = 20,
    PF_SCHED_SWITCH_PREV_COMM = 1, /* SchedSwitchFtraceEvent */
    PF_SCHED_SWITCH_PREV_PID = 2,
    PF_SCHED_SWITCH_PREV_PRIO = 3,
    PF_SCHED_SWITCH_PREV_STATE = 4,
    PF_SCHED_SWITCH_NEXT_COMM = 5,
    PF_SCHED_SWITCH_NEXT_PID = 6,
    PF_SCHED_SWITCH_NEXT_PRIO = 7,
    PF_SCHED_WAKING_COMM = 1, /* SchedWakingFtraceEvent */
    PF_SCHED_WAKING_PID = 2,
    PF_SCHED_WAKING_PRIO = 3,
    PF_SCHED_WAKING_SUCCESS = 4,
    PF_SCHED_WAKING_TARGET_CPU = 5,
    PF_SWITCH_TIMESTAMP = 1, /* FtraceEventBundle.CompactSched, all packed */
    PF_SWITCH_PREV_STATE = 2,
    PF_SWITCH_NEXT_PID = 3,
    PF_SWITCH_NEXT_PRIO = 4,
    PF_SCHED_INTERN_TABLE = 5,
    PF_SWITCH_NEXT_COMM = 6,
    PF_WAKING_TIMESTAMP = 7,
    PF_WAKING_PID = 8,
    PF_WAKING_TARGET_CPU = 9,
    PF_WAKING_PRIO = 10,
    PF_WAKING_COMM = 11,
};

/* Debug annotation names, interned on every sequence as it starts (DebugAnnotationName iids). */
enum {
    PF_ARG_TEXT = 1,
    PF_ARG_VALUE,
    PF_ARG_COLOR,
    PF_ARG_UNFINISHED,
    PF_ARG_FRAME,
    PF_ARG_NAME,
    PF_ARG_CATEGORY,
    PF_ARG_DESCRIPTION,
    PF_ARG_COUNT
};

/* The packet sequence of the system's data (the context switches); a source's is its index + 2. */
#define PF_SYSTEM_SEQUENCE 1u

/* Kinds of track (up to sixteen: four bits); a track's uuid is (its index among its kind + 1)
 * << 4 | kind, never 0, where the index is the trace's (sources, threads, plots, frame sets: every
 * source's in one numbering) or this output's (the others), so no two tracks of any sources
 * share a uuid, and small uuids take few bytes on every event. */
enum tct_pf_track_kind {
    PF_TRACK_KIND_PROCESS,
    PF_TRACK_KIND_THREAD,
    PF_TRACK_KIND_OTHER_THREAD, /* a thread the trace has no record of (a lock's, a crash's) */
    PF_TRACK_KIND_PLOT,
    PF_TRACK_KIND_FRAMES,
    PF_TRACK_KIND_GPU,
    PF_TRACK_KIND_POOL,
    PF_TRACK_KIND_LOCK,
    PF_TRACK_KIND_SECTION, /* the sections of one id, of one source */
};

static inline uint64_t tct_pf_track_uuid(enum tct_pf_track_kind kind, uint64_t index)
{
    return (index + 1) << 4 | (uint64_t)kind;
}

/* What one source's packet sequence has interned. Iids are the source's own ids where those
 * are dense (source locations: index + 1, callstacks: id), else handed out in order. */
struct tct_pf_source {
    uint32_t *srcloc_name; /* source location -> its EventName iid, 0: not interned yet */
    size_t srcloc_cap;
    uint64_t names;          /* EventName iids handed out */
    uint64_t bodies;         /* LogMessageBody iids handed out */
    struct tcu_map interned; /* (kind << 32 | id) -> iid: the names of frame sets and locks, literal messages */
    uint8_t *callstacks;     /* callstack id -> interned */
    size_t callstack_cap;
    struct tcu_map frame_of;   /* callstack frame index -> the iid of its first Perfetto frame */
    uint64_t frames;           /* Frame iids handed out (a function name's and a source path's iid is its frame's) */
    struct tcu_map mapping_of; /* hash of an image's path -> its newest Mapping iid */
    struct tct_pf_mapping {
        const char *image; /* the names' path */
        uint64_t same;     /* an older Mapping iid with the same hash, 0 none */
    } * mappings;          /* by Mapping iid - 1 */
    size_t mapping_count, mapping_cap;
};

struct tct_pf_pool;
struct tct_pf_lock;
struct tct_pf_holder;

struct tct_pftrace {
    struct tct_sink sink; /* the writer, in a replay of the trace */
    struct tct_pb pb;
    struct tct_trace *trace; /* the finished capture's: the final names of plots, GPU contexts, threads */
    struct tct_sched_log *sched;
    struct tct_lock_stats *lock_stats;
    struct tct_pf_source *sources;
    size_t source_count;
    size_t interned; /* the open InternedData message of the packet being written, 0 none */
    /* tracks described so far, by index */
    uint8_t *described_thread, *described_plot, *described_frames;
    size_t thread_cap, plot_cap, frames_cap;
    struct tcu_map other_thread;  /* source << 32 | thread -> index (PF_TRACK_KIND_OTHER_THREAD) */
    struct tcu_map gpu_track;     /* GPU context index << 32 | thread -> index (PF_TRACK_KIND_GPU) */
    struct tcu_map section_track; /* source << 32 | section id -> index (PF_TRACK_KIND_SECTION) */
    struct tct_pf_pool *pools;    /* index: PF_TRACK_KIND_POOL */
    size_t pool_count, pool_cap, pools_described;
    struct tcu_map pool_of; /* source << 32 | pool -> index in pools */
    struct tct_pf_lock *locks;
    size_t lock_count, lock_cap;
    struct tcu_map lock_of;        /* source << 32 | lock -> index in locks */
    struct tct_pf_holder *holders; /* a lock's use by one thread; index: PF_TRACK_KIND_LOCK */
    size_t holder_count, holder_cap, holders_described;
    uint64_t *stack; /* TCT_STACK_MAX frame iids, for interning a callstack */
    struct tct_stack_frame *expanded;
    int failed; /* memory ran out */
};

/* export_pftrace_packet.c: packets. A packet on a sequence, its time (TCT_TIME_NONE: none) and
 * whether it needs the sequence's interned data; tct_pf_interned opens the packet's InternedData
 * (once), which tct_pf_packet_body closes before the packet's own fields. */
size_t tct_pf_packet_begin(struct tct_pftrace *p, uint32_t sequence, int64_t time, int needs_state);
void tct_pf_interned(struct tct_pftrace *p);
void tct_pf_packet_body(struct tct_pftrace *p);
void tct_pf_packet_end(struct tct_pftrace *p, size_t mark);
/* An InternedString-like entry (iid, string) of an InternedData field, into the open packet. */
void tct_pf_interned_string(struct tct_pftrace *p, uint32_t field, uint64_t iid, const char *s, size_t len);
static inline uint32_t tct_pf_sequence(uint32_t source)
{
    return source + 2;
}

/* export_pftrace_tracks.c: each returns the track's uuid, writing its descriptor (a packet of
 * its own, so call them before beginning the packet of an event on it) the first time. */
void tct_pf_process_tracks(struct tct_pftrace *p);
uint64_t tct_pf_thread_track(struct tct_pftrace *p, const struct tct_thread *t);
uint64_t tct_pf_thread_track_of(struct tct_pftrace *p, uint32_t source, uint32_t tid);
uint64_t tct_pf_plot_track(struct tct_pftrace *p, const struct tct_plot *plot);
uint64_t tct_pf_frames_track(struct tct_pftrace *p, const struct tct_frame_set *set);
uint64_t tct_pf_gpu_track(struct tct_pftrace *p, const struct tct_gpu_context *ctx, uint32_t thread);
uint64_t tct_pf_pool_track(struct tct_pftrace *p, uint32_t source, uint32_t pool, uint32_t index);
uint64_t tct_pf_lock_track(struct tct_pftrace *p, uint32_t source, uint32_t thread, uint32_t holder, const char *lock);
uint64_t tct_pf_section_track(struct tct_pftrace *p, uint32_t source, uint32_t id);
void tct_pf_tracks_free(struct tct_pftrace *p);

/* export_pftrace_stacks.c */
/* The callstack's iid, interning it (frames, functions, files, mappings) into the open
 * packet when new; 0 for none (an empty one, or memory ran out). */
uint64_t tct_pf_callstack(struct tct_pftrace *p, uint32_t source, const struct tct_names *names, uint32_t callstack);
void tct_pf_sample(struct tct_pftrace *p, const struct tct_record *rec);
void tct_pf_stacks_free(struct tct_pftrace *p);

/* export_pftrace_sched.c: the scheduling log, in time order. 0, or the log's errno. */
int tct_pf_sched(struct tct_pftrace *p);

#endif

/* export_pftrace_writer.c - the trace as a Perfetto trace (.pftrace): Perfetto's own protobuf
 * format, the stream of TracePacket messages its SDK writes, which the Perfetto UI and its
 * trace processor read with everything in it (docs/capture.md maps each Tracy event to
 * what it becomes and says what Perfetto shows for it).
 *
 *   sources     a process track each (ProcessDescriptor: pid, program name, app info)
 *   threads     a thread track each (ThreadDescriptor: pid, tid, name)
 *   zones       slices on their thread's track: TYPE_SLICE_BEGIN where the zone began, in the
 *               order of its thread's events, and TYPE_SLICE_END where it ended, so they nest
 *               exactly; an interned name and SourceLocation (function, file, line), the
 *               callstack, and text, value, colour as debug annotations
 *   messages    instant events on their thread's track, each with a LogMessage of its severity
 *   frames      slices (an instant when never ended) on a track per frame set
 *   plots       counter tracks, with bytes or percent as the plot's format says
 *   memory      a counter track per pool: the bytes live after each allocation and free
 *   locks       slices "wait: <lock>" and "hold: <lock>" on a track per lock and thread
 *   GPU zones   slices in GPU time on a track per GPU context (and thread, when the context is
 *               not bound to one)
 *   samples     PerfSample packets (export_pftrace_stacks.c)
 *   context switches and wakeups   ftrace compact-sched bundles (export_pftrace_sched.c)
 *
 * Each source is a packet sequence of its own (its interned names, frames and callstacks are
 * its own ids); the system's scheduling events and the clock snapshot another. Times are the
 * trace's nanoseconds, in the trace's default clock; a ClockSnapshot ties it to the wall clock
 * of the first source's start (to the second: its welcome's epoch).
 *
 * Written once the capture has ended, from a replay of the trace (trace.h) with every name
 * known, each packet as its record comes; the context switches (the scheduling log,
 * sched_log.h, read in time order) go after them.
 */
#include "trace/export_pftrace.h"
#include "trace/names.h"
#include "util/array.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A memory pool: its live allocations (address -> size). */
struct tct_pf_pool {
    uint32_t source, id;
    uint64_t live_bytes;
    struct tcu_map live;
};

struct tct_pf_lock {
    uint32_t source, id;
    struct tcu_map holder_of; /* thread -> index in holders */
};

/* A lock as one thread uses it: the track of its waits and holds. */
struct tct_pf_holder {
    uint32_t lock, thread;
    uint32_t held; /* obtains not yet released */
    uint8_t waiting;
};

/* Kinds of key of struct tct_pf_source.interned: event names of frame sets, lock waits and
 * holds, literal messages; log message bodies of literal messages. */
enum { NAME_FRAME_SET = 1, NAME_LOCK_WAIT, NAME_LOCK_HOLD, NAME_MESSAGE, BODY_MESSAGE };

/* The first packet of a sequence: it says so, clears the incremental state and interns the
 * names of the debug annotations. */
static void sequence_start(struct tct_pftrace *p, uint32_t sequence)
{
    static const char *const args[PF_ARG_COUNT] = {
        [PF_ARG_TEXT] = "text",         [PF_ARG_VALUE] = "value",
        [PF_ARG_COLOR] = "color",       [PF_ARG_UNFINISHED] = "unfinished",
        [PF_ARG_FRAME] = "frame",       [PF_ARG_NAME] = "name",
        [PF_ARG_CATEGORY] = "category", [PF_ARG_DESCRIPTION] = "description"};
    size_t m = tct_pf_packet_begin(p, sequence, TCT_TIME_NONE, 0);
    tct_pb_varint(&p->pb, PF_PACKET_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
    tct_pb_varint(&p->pb, PF_PACKET_FIRST_ON_SEQUENCE, 1);
    for (uint64_t i = 1; i < PF_ARG_COUNT; i++)
        tct_pf_interned_string(p, PF_INTERNED_ANNOTATION_NAMES, i, args[i], strlen(args[i]));
    tct_pf_packet_end(p, m);
}

/* The trace's clock: its nanoseconds are the default clock of every packet, which a proto
 * trace without another primary clock calls BOOTTIME; the first source's start is its welcome's
 * epoch (a time(NULL)) in wall-clock time. */
static void clock_snapshot(struct tct_pftrace *p)
{
    sequence_start(p, PF_SYSTEM_SEQUENCE);
    const struct tct_source *src = tct_trace_source(p->trace, 0);
    const struct tcd_welcome *w = src ? src->names.welcome : NULL;
    if (!w || !w->epoch || w->epoch > UINT64_MAX / 1000000000u)
        return;
    int64_t origin = src->offset > 0 ? src->offset : 0;
    size_t m = tct_pf_packet_begin(p, PF_SYSTEM_SEQUENCE, origin, 0);
    size_t snap = tct_pb_begin(&p->pb, PF_PACKET_CLOCK_SNAPSHOT);
    size_t c = tct_pb_begin(&p->pb, PF_CLOCKS);
    tct_pb_varint(&p->pb, PF_CLOCK_ID, PF_CLOCK_BOOTTIME);
    tct_pb_varint(&p->pb, PF_CLOCK_TIMESTAMP, (uint64_t)origin);
    tct_pb_end(&p->pb, c);
    c = tct_pb_begin(&p->pb, PF_CLOCKS);
    tct_pb_varint(&p->pb, PF_CLOCK_ID, PF_CLOCK_REALTIME);
    tct_pb_varint(&p->pb, PF_CLOCK_TIMESTAMP, w->epoch * 1000000000u);
    tct_pb_end(&p->pb, c);
    tct_pb_varint(&p->pb, PF_CLOCK_PRIMARY, PF_CLOCK_BOOTTIME);
    tct_pb_end(&p->pb, snap);
    tct_pf_packet_end(p, m);
}

/* ---- interned names -------------------------------------------------------------------------------- */

/* The EventName iid of a source location's name, interning it and its SourceLocation (iid:
 * srcloc + 1) into the open packet when new; 0 when memory ran out. */
static uint64_t srcloc_name(struct tct_pftrace *p, uint32_t source, const struct tct_names *names, uint32_t srcloc)
{
    struct tct_pf_source *s = &p->sources[source];
    if (srcloc < s->srcloc_cap && s->srcloc_name[srcloc])
        return s->srcloc_name[srcloc];
    if (srcloc >= s->srcloc_cap) {
        size_t old = s->srcloc_cap;
        uint32_t *grown = srcloc < UINT32_MAX
                              ? tcu_grow(NULL, s->srcloc_name, &s->srcloc_cap, (size_t)srcloc + 1, sizeof *grown)
                              : NULL;
        if (!grown) {
            p->failed = 1;
            return 0;
        }
        memset(grown + old, 0, (s->srcloc_cap - old) * sizeof *grown);
        s->srcloc_name = grown;
    }
    uint64_t iid = ++s->names;
    s->srcloc_name[srcloc] = (uint32_t)iid;
    const char *label = tct_srcloc_label(names, srcloc);
    tct_pf_interned_string(p, PF_INTERNED_EVENT_NAMES, iid, label, strlen(label));
    /* Its SourceLocation, under the iid srcloc + 1. */
    const struct tcd_srcloc *sl = names->srcloc(names->ctx, srcloc);
    size_t m = tct_pb_begin(&p->pb, PF_INTERNED_SOURCE_LOCATIONS);
    tct_pb_varint(&p->pb, PF_IID, (uint64_t)srcloc + 1);
    tct_pb_string(&p->pb, PF_SOURCE_LOCATION_FILE, sl && sl->file ? sl->file : "");
    tct_pb_string(&p->pb, PF_SOURCE_LOCATION_FUNCTION, sl && sl->function ? sl->function : "");
    tct_pb_varint(&p->pb, PF_SOURCE_LOCATION_LINE, sl ? sl->line : 0);
    tct_pb_end(&p->pb, m);
    return iid;
}

/* The iid of a string in an interned table (field: event names or log bodies, whose iids
 * *count hands out) under key (kind << 32 | id), interning it when new; 0 when memory ran out. */
static uint64_t intern(struct tct_pftrace *p, uint32_t source, uint32_t field, uint64_t *count, uint64_t key,
                       const char *s, size_t len)
{
    struct tcu_map *interned = &p->sources[source].interned;
    const uint64_t *known = tcu_map_get(interned, key);
    if (known)
        return *known;
    uint64_t iid = *count + 1;
    if (tcu_map_put(interned, key, iid) < 0) {
        p->failed = 1;
        return 0;
    }
    *count = iid;
    tct_pf_interned_string(p, field, iid, s, len);
    return iid;
}

static uint64_t other_name(struct tct_pftrace *p, uint32_t source, uint64_t key, const char *name, size_t len)
{
    return intern(p, source, PF_INTERNED_EVENT_NAMES, &p->sources[source].names, key, name, len);
}

/* ---- track events -------------------------------------------------------------------------------- */

static size_t event_begin(struct tct_pftrace *p, uint64_t type, uint64_t track)
{
    tct_pf_packet_body(p);
    size_t m = tct_pb_begin(&p->pb, PF_PACKET_TRACK_EVENT);
    tct_pb_varint(&p->pb, PF_EVENT_TYPE, type);
    tct_pb_varint(&p->pb, PF_EVENT_TRACK, track);
    return m;
}

/* The event's name: interned (iid), else the string itself. */
static void event_name(struct tct_pftrace *p, uint64_t iid, const char *name, size_t len)
{
    if (iid)
        tct_pb_varint(&p->pb, PF_EVENT_NAME_IID, iid);
    else
        tct_pb_bytes(&p->pb, PF_EVENT_NAME, name, len);
}

static void arg_string(struct tct_pftrace *p, uint64_t name, const char *s, size_t len)
{
    size_t m = tct_pb_begin(&p->pb, PF_EVENT_ANNOTATIONS);
    tct_pb_varint(&p->pb, PF_ANNOTATION_NAME_IID, name);
    tct_pb_bytes(&p->pb, PF_ANNOTATION_STRING, s, len);
    tct_pb_end(&p->pb, m);
}

static void arg_uint(struct tct_pftrace *p, uint64_t name, uint32_t field, uint64_t v)
{
    size_t m = tct_pb_begin(&p->pb, PF_EVENT_ANNOTATIONS);
    tct_pb_varint(&p->pb, PF_ANNOTATION_NAME_IID, name);
    tct_pb_varint(&p->pb, field, v);
    tct_pb_end(&p->pb, m);
}

static void arg_color(struct tct_pftrace *p, uint32_t color)
{
    char hex[8];
    snprintf(hex, sizeof hex, "#%06" PRIx32, color & 0xffffff);
    arg_string(p, PF_ARG_COLOR, hex, 7);
}

/* A slice's end, unfinished when the capture ended before it did. */
static void slice_end(struct tct_pftrace *p, uint32_t source, uint64_t track, int64_t time, int unfinished)
{
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), time, unfinished);
    size_t e = event_begin(p, PF_SLICE_END, track);
    if (unfinished)
        arg_uint(p, PF_ARG_UNFINISHED, PF_ANNOTATION_BOOL, 1);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

/* A zone's (or GPU zone's) begin: its name and source location, its callstack. */
static void zone_begin(struct tct_pftrace *p, const struct tct_source *src, uint64_t track, int64_t time,
                       uint32_t srcloc, const char *name, size_t name_len, uint32_t callstack)
{
    uint32_t source = src->index;
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), time, 1);
    uint64_t iid = srcloc_name(p, source, &src->names, srcloc);
    uint64_t stack = callstack ? tct_pf_callstack(p, source, &src->names, callstack) : 0;
    size_t e = event_begin(p, PF_SLICE_BEGIN, track);
    event_name(p, name ? 0 : iid, name, name_len);
    if (iid)
        tct_pb_varint(&p->pb, PF_EVENT_SOURCE_LOCATION_IID, (uint64_t)srcloc + 1);
    if (stack)
        tct_pb_varint(&p->pb, PF_EVENT_CALLSTACK_IID, stack);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

/* A zone's end, with what was added to it as arguments (merged with its begin's). */
static void zone_end(struct tct_pftrace *p, uint32_t source, uint64_t track, const struct tct_zone_record *z)
{
    int args = z->text || z->has_value || z->has_color || z->flags;
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), z->end, args);
    size_t e = event_begin(p, PF_SLICE_END, track);
    if (z->text)
        arg_string(p, PF_ARG_TEXT, z->text, z->text_len);
    if (z->has_value)
        arg_uint(p, PF_ARG_VALUE, PF_ANNOTATION_UINT, z->value);
    if (z->has_color)
        arg_color(p, z->color);
    if (z->flags & TCT_ZONE_UNFINISHED)
        arg_uint(p, PF_ARG_UNFINISHED, PF_ANNOTATION_BOOL, 1);
    if (z->flags & TCT_ZONE_RENAMED) /* the slice keeps the name its begin had */
        arg_string(p, PF_ARG_NAME, z->name, z->name_len);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

/* Tracy's severities (trace, debug, info, warning, error, fatal) as LogMessage priorities. */
static uint64_t log_priority(uint8_t severity)
{
    static const uint8_t prio[] = {2 /* VERBOSE */, 3 /* DEBUG */, 4 /* INFO */,
                                   5 /* WARN */,    6 /* ERROR */, 7 /* FATAL */};
    return severity < sizeof prio ? prio[severity] : 4;
}

/* An instant on a thread with a log message of the same text: the message (string handle 0: a
 * text of its own, else a literal one, interned once), the crash. */
static void log_instant(struct tct_pftrace *p, const struct tct_source *src, uint64_t track, int64_t time,
                        const char *text, size_t len, uint32_t handle, uint64_t priority, uint32_t color,
                        uint32_t callstack)
{
    struct tct_pf_source *s = &p->sources[src->index];
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(src->index), time, 1);
    uint64_t name = 0, body = 0;
    if (handle) { /* a literal: its text is interned once */
        name = other_name(p, src->index, (uint64_t)NAME_MESSAGE << 32 | handle, text, len);
        body =
            intern(p, src->index, PF_INTERNED_LOG_BODIES, &s->bodies, (uint64_t)BODY_MESSAGE << 32 | handle, text, len);
    }
    if (!body) { /* a text of its own: not remembered */
        body = ++s->bodies;
        tct_pf_interned_string(p, PF_INTERNED_LOG_BODIES, body, text, len);
    }
    uint64_t stack = callstack ? tct_pf_callstack(p, src->index, &src->names, callstack) : 0;
    size_t e = event_begin(p, PF_INSTANT, track);
    event_name(p, name, text, len);
    size_t log = tct_pb_begin(&p->pb, PF_EVENT_LOG);
    tct_pb_varint(&p->pb, PF_LOG_BODY_IID, body);
    tct_pb_varint(&p->pb, PF_LOG_PRIO, priority);
    tct_pb_end(&p->pb, log);
    if (color)
        arg_color(p, color);
    if (stack)
        tct_pb_varint(&p->pb, PF_EVENT_CALLSTACK_IID, stack);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

static void message(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_message_record *msg = &rec->u.message;
    size_t len;
    const char *text = tct_text_or_string(&rec->source->names, msg->text, msg->text_len, msg->string, &len);
    uint64_t track = tct_pf_thread_track(p, rec->thread);
    log_instant(p, rec->source, track, msg->time, text, len, msg->string, log_priority(msg->severity), msg->color,
                msg->callstack);
}

static void frame(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_frame_record *f = &rec->u.frame;
    const struct tct_names *names = &rec->source->names;
    uint32_t source = rec->source->index;
    uint64_t track = tct_pf_frames_track(p, f->set);
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), f->start, 1);
    const char *set = names->frame(names->ctx, f->set->id);
    uint64_t name = other_name(p, source, (uint64_t)NAME_FRAME_SET << 32 | f->set->id, set, strlen(set));
    size_t e = event_begin(p, f->end == TCT_TIME_NONE ? PF_INSTANT : PF_SLICE_BEGIN, track);
    event_name(p, name, set, strlen(set));
    arg_uint(p, PF_ARG_FRAME, PF_ANNOTATION_UINT, f->seq);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
    if (f->end != TCT_TIME_NONE)
        slice_end(p, source, track, f->end > f->start ? f->end : f->start, 0);
}

static void plot(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_plot_record *v = &rec->u.plot;
    if (!v->is_int && !isfinite(v->value))
        return; /* as the other outputs: a counter has no NaN */
    uint64_t track = tct_pf_plot_track(p, v->plot);
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(rec->source->index), v->time, 0);
    size_t e = event_begin(p, PF_COUNTER, track);
    if (v->is_int)
        tct_pb_int(&p->pb, PF_EVENT_COUNTER, v->ivalue);
    else
        tct_pb_double(&p->pb, PF_EVENT_DOUBLE_COUNTER, v->value);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

/* ---- memory -------------------------------------------------------------------------------------- */

static struct tct_pf_pool *pool_of(struct tct_pftrace *p, uint32_t source, uint32_t id, size_t *index)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *known = tcu_map_get(&p->pool_of, key);
    if (known) {
        *index = (size_t)*known;
        return &p->pools[*index];
    }
    struct tct_pf_pool *grown = tcu_grow(NULL, p->pools, &p->pool_cap, p->pool_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    p->pools = grown;
    if (tcu_map_put(&p->pool_of, key, p->pool_count) < 0)
        return NULL;
    struct tct_pf_pool *pool = &p->pools[p->pool_count];
    *pool = (struct tct_pf_pool){.source = source, .id = id};
    tcu_map_init(&pool->live, 0, NULL);
    *index = p->pool_count++;
    return pool;
}

/* The pool's live bytes after each allocation, free and discard, as memory_stats.c counts them. */
static void memory(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tcd_event *ev = rec->u.event;
    if (ev->kind == TCD_MEM_FREE && ev->address == 0)
        return; /* free(NULL) */
    size_t index;
    struct tct_pf_pool *pool = pool_of(p, rec->source->index, ev->id, &index);
    if (!pool) {
        p->failed = 1;
        return;
    }
    uint64_t size;
    if (ev->kind == TCD_MEM_ALLOC) {
        if (tcu_map_remove(&pool->live, ev->address, &size))
            pool->live_bytes -= size;
        if (tcu_map_put(&pool->live, ev->address, ev->value) < 0)
            p->failed = 1;
        else
            pool->live_bytes += ev->value;
    } else if (ev->kind == TCD_MEM_FREE) {
        if (tcu_map_remove(&pool->live, ev->address, &size))
            pool->live_bytes -= size;
    } else {
        tcu_map_clear(&pool->live);
        pool->live_bytes = 0;
    }
    uint64_t track = tct_pf_pool_track(p, pool->source, pool->id, (uint32_t)index);
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(pool->source), ev->time, 0);
    size_t e = event_begin(p, PF_COUNTER, track);
    tct_pb_int(&p->pb, PF_EVENT_COUNTER, (int64_t)(pool->live_bytes > INT64_MAX ? INT64_MAX : pool->live_bytes));
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

/* ---- locks --------------------------------------------------------------------------------------- */

static struct tct_pf_lock *lock_of(struct tct_pftrace *p, uint32_t source, uint32_t id)
{
    uint64_t key = (uint64_t)source << 32 | id;
    const uint64_t *known = tcu_map_get(&p->lock_of, key);
    if (known)
        return &p->locks[*known];
    struct tct_pf_lock *grown = tcu_grow(NULL, p->locks, &p->lock_cap, p->lock_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    p->locks = grown;
    if (tcu_map_put(&p->lock_of, key, p->lock_count) < 0)
        return NULL;
    struct tct_pf_lock *l = &p->locks[p->lock_count++];
    *l = (struct tct_pf_lock){.source = source, .id = id};
    tcu_map_init(&l->holder_of, 0, NULL);
    return l;
}

/* The lock's name as the summary shows it: its LockName, else where it was announced; the
 * lock statistics have the last of each. */
static const char *lock_name(struct tct_pftrace *p, const struct tct_pf_lock *l, char *buf, size_t size)
{
    size_t index = (size_t)(l - p->locks); /* the statistics list locks in the same order */
    const struct tct_lock *stats = tct_lock_at(p->lock_stats, index);
    if (stats && (stats->source != l->source || stats->id != l->id))
        stats = NULL;
    if (stats)
        return tct_lock_label(p->trace, stats, buf, size);
    snprintf(buf, size, "lock %" PRIu32, l->id);
    return buf;
}

static struct tct_pf_holder *holder_of(struct tct_pftrace *p, struct tct_pf_lock *l, uint32_t thread, size_t *index)
{
    const uint64_t *known = tcu_map_get(&l->holder_of, thread);
    if (known) {
        *index = (size_t)*known;
        return &p->holders[*index];
    }
    struct tct_pf_holder *grown = tcu_grow(NULL, p->holders, &p->holder_cap, p->holder_count + 1, sizeof *grown);
    if (!grown)
        return NULL;
    p->holders = grown;
    if (tcu_map_put(&l->holder_of, thread, p->holder_count) < 0)
        return NULL;
    *index = p->holder_count;
    p->holders[p->holder_count++] = (struct tct_pf_holder){.lock = (uint32_t)(l - p->locks), .thread = thread};
    return &p->holders[*index];
}

/* A wait or hold of the lock begins on its thread's track. */
static void lock_slice(struct tct_pftrace *p, struct tct_pf_lock *l, uint64_t track, int64_t time, int hold)
{
    char buf[32], name[512];
    int n = snprintf(name, sizeof name, "%s: %s", hold ? "hold" : "wait", lock_name(p, l, buf, sizeof buf));
    size_t len = n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1;
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(l->source), time, 1);
    uint64_t iid =
        other_name(p, l->source, (uint64_t)(hold ? NAME_LOCK_HOLD : NAME_LOCK_WAIT) << 32 | l->id, name, len);
    size_t e = event_begin(p, PF_SLICE_BEGIN, track);
    event_name(p, iid, name, len);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
}

static void lock(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tcd_event *ev = rec->u.event;
    struct tct_pf_lock *l = lock_of(p, rec->source->index, ev->id);
    if (!l) {
        p->failed = 1;
        return;
    }
    if (ev->kind != TCD_LOCK_WAIT && ev->kind != TCD_LOCK_OBTAIN && ev->kind != TCD_LOCK_RELEASE)
        return; /* announcements, names, marks, terminations: the statistics keep the names */
    size_t index;
    struct tct_pf_holder *h = holder_of(p, l, ev->thread, &index);
    if (!h) {
        p->failed = 1;
        return;
    }
    char buf[32];
    uint64_t track = tct_pf_lock_track(p, l->source, ev->thread, (uint32_t)index, lock_name(p, l, buf, sizeof buf));
    switch (ev->kind) {
    case TCD_LOCK_WAIT:
        if (!h->waiting)
            lock_slice(p, l, track, ev->time, 0);
        h->waiting = 1;
        break;
    case TCD_LOCK_OBTAIN:
        if (h->waiting)
            slice_end(p, l->source, track, ev->time, 0);
        h->waiting = 0;
        lock_slice(p, l, track, ev->time, 1);
        h->held++;
        break;
    default: /* TCD_LOCK_RELEASE */
        if (h->held) {
            slice_end(p, l->source, track, ev->time, 0);
            h->held--;
        }
        break;
    }
}

/* Waits and holds still open when the capture ended end with it (as zones do). */
static void locks_finish(struct tct_pftrace *p)
{
    for (size_t i = 0; i < p->holder_count; i++) {
        struct tct_pf_holder *h = &p->holders[i];
        struct tct_pf_lock *l = &p->locks[h->lock];
        if (!h->waiting && !h->held)
            continue;
        char buf[32];
        uint64_t track = tct_pf_lock_track(p, l->source, h->thread, (uint32_t)i, lock_name(p, l, buf, sizeof buf));
        int64_t end = tct_source_end(tct_trace_source(p->trace, l->source));
        for (; h->held; h->held--)
            slice_end(p, l->source, track, end, 1);
        if (h->waiting)
            slice_end(p, l->source, track, end, 1);
        h->waiting = 0;
    }
}

/* ---- GPU zones ----------------------------------------------------------------------------------- */

static void gpu_begin(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_gpu_record *g = &rec->u.gpu;
    uint64_t track = tct_pf_gpu_track(p, g->context, g->thread);
    zone_begin(p, rec->source, track, g->gpu_begin, g->srcloc, NULL, 0, g->callstack);
}

/* Its end, where the GPU said; a zone whose end the GPU never said (or said before its begin)
 * ends where it began, unfinished. A zone whose begin the GPU never said was never begun. */
static void gpu_end(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_gpu_record *g = &rec->u.gpu;
    if (g->gpu_begin == TCT_TIME_NONE)
        return;
    int known = g->gpu_end != TCT_TIME_NONE && g->gpu_end >= g->gpu_begin;
    uint64_t track = tct_pf_gpu_track(p, g->context, g->thread);
    slice_end(p, rec->source->index, track, known ? g->gpu_end : g->gpu_begin, !known || g->unfinished);
}

/* ---- sections ----------------------------------------------------------------------------------- */

/* A section, on its id's track, whole at once: it is handed out when it is left, and one id's
 * sections never overlap. Its category (and the category's description) are its arguments. */
static void section(struct tct_pftrace *p, const struct tct_record *rec)
{
    const struct tct_section_record *s = &rec->u.section;
    uint32_t source = rec->source->index;
    uint64_t track = tct_pf_section_track(p, source, s->id);
    size_t m = tct_pf_packet_begin(p, tct_pf_sequence(source), s->begin, 1);
    size_t e = event_begin(p, PF_SLICE_BEGIN, track);
    event_name(p, 0, s->text, s->text_len);
    arg_uint(p, PF_ARG_CATEGORY, PF_ANNOTATION_UINT, s->category);
    size_t len;
    const char *described = tct_trace_section_category(p->trace, source, s->category, &len);
    if (described)
        arg_string(p, PF_ARG_DESCRIPTION, described, len);
    tct_pb_end(&p->pb, e);
    tct_pf_packet_end(p, m);
    slice_end(p, source, track, s->end > s->begin ? s->end : s->begin, s->unfinished);
}

/* ---- the writer sink --------------------------------------------------------------------------- */

static void on_record(struct tct_sink *sink, const struct tct_record *rec)
{
    struct tct_pftrace *p = (struct tct_pftrace *)sink;
    switch (rec->kind) {
    case TCT_REC_ZONE_BEGIN: {
        const struct tct_zone_record *z = &rec->u.zone;
        uint64_t track = tct_pf_thread_track(p, rec->thread);
        zone_begin(p, rec->source, track, z->begin, z->srcloc, z->name, z->name_len, z->callstack);
        break;
    }
    case TCT_REC_ZONE:
        zone_end(p, rec->source->index, tct_pf_thread_track(p, rec->thread), &rec->u.zone);
        break;
    case TCT_REC_MESSAGE:
        message(p, rec);
        break;
    case TCT_REC_FRAME:
        frame(p, rec);
        break;
    case TCT_REC_PLOT:
        plot(p, rec);
        break;
    case TCT_REC_MEMORY:
        memory(p, rec);
        break;
    case TCT_REC_LOCK:
        lock(p, rec);
        break;
    case TCT_REC_GPU_BEGIN:
        gpu_begin(p, rec);
        break;
    case TCT_REC_GPU_ZONE:
        gpu_end(p, rec);
        break;
    case TCT_REC_SECTION:
        section(p, rec);
        break;
    default: /* TCT_REC_SAMPLE */
        tct_pf_sample(p, rec);
        break;
    }
}

static void writer_free(struct tct_sink *sink)
{
    (void)sink; /* the output owns it */
}

static const struct tct_sink_ops writer_ops = {
    "Perfetto writer",
    TCT_REC_BIT(TCT_REC_ZONE_BEGIN) | TCT_REC_BIT(TCT_REC_ZONE) | TCT_REC_BIT(TCT_REC_MESSAGE) |
        TCT_REC_BIT(TCT_REC_FRAME) | TCT_REC_BIT(TCT_REC_PLOT) | TCT_REC_BIT(TCT_REC_MEMORY) |
        TCT_REC_BIT(TCT_REC_LOCK) | TCT_REC_BIT(TCT_REC_GPU_BEGIN) | TCT_REC_BIT(TCT_REC_GPU_ZONE) |
        TCT_REC_BIT(TCT_REC_SAMPLE) | TCT_REC_BIT(TCT_REC_SECTION),
    on_record,
    writer_free,
    NULL,
};

/* The crashes: an instant on the thread that crashed, with a fatal log message. */
static void crashes(struct tct_pftrace *p)
{
    for (uint32_t i = 0; i < tct_trace_source_count(p->trace); i++) {
        const struct tct_source *src = tct_trace_source(p->trace, i);
        if (!src->crash.happened)
            continue;
        size_t len;
        const char *text =
            tct_text_or_string(&src->names, src->crash.text, strlen(src->crash.text), src->crash.string, &len);
        char name[4096];
        int n = snprintf(name, sizeof name, "crash: %.*s", (int)len, text);
        uint64_t track = tct_pf_thread_track_of(p, i, src->crash.thread);
        log_instant(p, src, track, src->crash.time, name,
                    n < 0                     ? 0
                    : (size_t)n < sizeof name ? (size_t)n
                                              : sizeof name - 1,
                    0, 7 /* FATAL */, 0, src->crash.callstack);
    }
}

/* ---- the format ------------------------------------------------------------------------------------ */

struct pf_state {
    struct tct_sched_log *sched;
    struct tct_lock_stats *locks;
};

static int prepare(struct tct_trace *tr, const struct tct_export_options *o, void **state)
{
    (void)o;
    tct_trace_keep_events(tr);
    struct pf_state *st = calloc(1, sizeof *st);
    if (!st)
        return -1;
    *state = st;
    st->sched = tct_sched_log_of(tr);
    st->locks = tct_lock_stats_of(tr);
    return st->sched && st->locks ? 0 : -1;
}

static int writer_init(struct tct_pftrace *p)
{
    tcu_map_init(&p->other_thread, 0, NULL);
    tcu_map_init(&p->gpu_track, 0, NULL);
    tcu_map_init(&p->section_track, 0, NULL);
    tcu_map_init(&p->pool_of, 0, NULL);
    tcu_map_init(&p->lock_of, 0, NULL);
    p->source_count = tct_trace_source_count(p->trace);
    p->sources = calloc(p->source_count ? p->source_count : 1, sizeof *p->sources);
    if (!p->sources)
        return -1;
    for (size_t i = 0; i < p->source_count; i++) {
        tcu_map_init(&p->sources[i].interned, 0, NULL);
        tcu_map_init(&p->sources[i].frame_of, 0, NULL);
        tcu_map_init(&p->sources[i].mapping_of, 0, NULL);
    }
    p->stack = malloc(TCT_STACK_MAX * sizeof *p->stack);
    p->expanded = malloc(TCT_STACK_MAX * sizeof *p->expanded);
    return p->stack && p->expanded ? 0 : -1;
}

static void writer_release(struct tct_pftrace *p)
{
    for (size_t i = 0; i < p->source_count; i++) {
        free(p->sources[i].srcloc_name);
        tcu_map_free(&p->sources[i].interned);
    }
    tct_pf_stacks_free(p);
    free(p->sources);
    for (size_t i = 0; i < p->pool_count; i++)
        tcu_map_free(&p->pools[i].live);
    free(p->pools);
    tcu_map_free(&p->pool_of);
    for (size_t i = 0; i < p->lock_count; i++)
        tcu_map_free(&p->locks[i].holder_of);
    free(p->locks);
    free(p->holders);
    tcu_map_free(&p->lock_of);
    tct_pf_tracks_free(p);
    free(p->stack);
    free(p->expanded);
}

static int write_pftrace(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o)
{
    (void)o;
    const struct pf_state *st = state;
    struct tct_pftrace p = {.sink = {&writer_ops}, .trace = tr, .sched = st->sched, .lock_stats = st->locks};
    tct_pb_init(&p.pb, out);
    int error = 0;
    struct tct_trace *replay = NULL;
    if (writer_init(&p) != 0) {
        error = ENOMEM;
    } else {
        clock_snapshot(&p);
        for (uint32_t i = 0; i < p.source_count; i++)
            sequence_start(&p, tct_pf_sequence(i));
        tct_pf_process_tracks(&p);
        struct tct_sink *sink = &p.sink;
        replay = tct_trace_replay(tr, &sink, 1);
        if (!replay)
            error = errno ? errno : EIO;
    }
    if (replay) {
        locks_finish(&p);
        crashes(&p);
        error = tct_pf_sched(&p);
        tct_trace_free(replay);
    }
    if (!error && p.failed)
        error = ENOMEM;
    writer_release(&p);
    int written = tct_pb_finish(&p.pb);
    if (error) {
        errno = error;
        return -1;
    }
    return written;
}

static void free_state(void *state)
{
    free(state);
}

const struct tct_format_ops tct_format_pftrace = {prepare, write_pftrace, free_state, 1};

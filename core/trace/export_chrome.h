/* export_chrome.h - what the parts of the Chrome Trace Event output share:
 *
 *   export_chrome_writer.c   the writer sink (zones, messages, frames, plots, GPU zones, as the
 *                            records come in a replay of the trace) and the names
 *   export_chrome_event.c    the head of an event, which every part writes
 *   export_chrome_stacks.c   callstacks: "stackFrames" for zones and messages, and the CPU
 *                            samples as V8 CPU profile events ("P"), which Perfetto reads
 *   export_chrome_sched.c    context switches and wakeups as ftrace text in
 *                            "systemTraceEvents", which Perfetto turns into CPU and thread
 *                            state tracks
 */
#ifndef TRACYC_TRACE_EXPORT_CHROME_H
#define TRACYC_TRACE_EXPORT_CHROME_H

#include <stdint.h>

#include "trace/export.h"
#include "trace/sched_log.h"
#include "trace/stacks.h"
#include "trace/writer.h"
#include "util/map.h"

struct tct_chrome_profile; /* export_chrome_stacks.c: one thread's CPU samples */

/* What the event of every zone of one source location repeats, escaped once
 * (export_chrome_event.c): its head, {"ph":"X","name":...,"pid":..., and its
 * ,"loc":...,"args":{"file":...,"line":... */
struct tct_chrome_place {
    char *text; /* head, then tail; NULL: not written yet */
    size_t head_len, tail_len;
};

struct tct_chrome {
    struct tct_sink sink; /* the writer, in a replay of the trace */
    struct tct_writer *w;
    struct tct_trace *trace; /* the replay's: threads, plots, frame sets, GPU contexts */
    struct tct_sched_log *sched;
    int first; /* no event written yet */
    /* the callstacks of zones and messages: frames named "function file:line" */
    struct tct_stack_tree frames;
    struct tcu_map frame_of;              /* source << 32 | callstack id -> its innermost node in frames */
    struct tct_chrome_profile **profiles; /* by thread index, NULL until its first sample */
    size_t profile_count;
    struct tct_chrome_places {
        struct tct_chrome_place *at; /* by source location index */
        size_t cap;
    } * places; /* by source */
    size_t place_sources;
    int failed; /* memory ran out */
};

/* export_chrome_event.c: the pid events of a source carry. */
uint64_t tct_chrome_pid(const struct tct_chrome *c, uint32_t source);
/* Starts an event: {"ph":ph,"name":name,"pid":pid (the caller adds the rest and '}'). */
void tct_chrome_begin_event(struct tct_chrome *c, const char *ph, const char *name, size_t name_len, uint64_t pid);
/* What every zone of the source location writes (names resolved), escaped on its first zone;
 * NULL when memory ran out. tct_chrome_separator then goes before its head. */
const struct tct_chrome_place *tct_chrome_place(struct tct_chrome *c, uint32_t source, uint32_t srcloc);
void tct_chrome_separator(struct tct_chrome *c);
void tct_chrome_places_free(struct tct_chrome *c);

/* export_chrome_stacks.c */
int tct_chrome_stacks_init(struct tct_chrome *c);
void tct_chrome_stacks_free(struct tct_chrome *c);
/* The "stackFrames" id of a callstack's innermost frame, 0 for none. */
uint32_t tct_chrome_stack_frame(struct tct_chrome *c, uint32_t source, uint32_t callstack);
/* ,"stackFrames":{...} with every frame handed out by tct_chrome_stack_frame. */
void tct_chrome_write_stack_frames(struct tct_chrome *c);
/* A CPU sample: the thread's samples go out as "Profile" and "ProfileChunk" events, a
 * chunk every CHUNK samples; tct_chrome_samples_end writes what the last chunks hold. */
void tct_chrome_sample(struct tct_chrome *c, const struct tct_thread *t, const struct tct_sample_record *s);
void tct_chrome_samples_end(struct tct_chrome *c);

/* export_chrome_sched.c: ,"systemTraceEvents":"..." when there are context switches. */
void tct_chrome_system_trace(struct tct_chrome *c);

#endif

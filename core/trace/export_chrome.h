/* export_chrome.h - what the parts of the Chrome Trace Event exporter share:
 *
 *   export_chrome.c          zones, messages, frames, plots, GPU zones, names
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
#include "trace/stacks.h"
#include "trace/writer.h"

struct tct_chrome {
    struct tct_writer *w;
    const struct tct_names *names;
    const struct tct_trace *trace;
    uint64_t pid;
    int first; /* no event written yet */
    /* the callstacks of zones and messages: frames named "function file:line" */
    struct tct_stack_tree frames;
    struct tcu_map frame_of; /* callstack id -> its innermost node in frames */
    int failed;              /* memory ran out */
};

/* Starts an event: {"ph":ph,"name":name,"pid":pid (the caller adds the rest and '}'). */
void tct_chrome_begin_event(struct tct_chrome *c, const char *ph, const char *name);

/* export_chrome_stacks.c */
int tct_chrome_stacks_init(struct tct_chrome *c);
void tct_chrome_stacks_free(struct tct_chrome *c);
/* The "stackFrames" id of a callstack's innermost frame, 0 for none. */
uint32_t tct_chrome_stack_frame(struct tct_chrome *c, uint32_t callstack);
/* ,"stackFrames":{...} with every frame handed out by tct_chrome_stack_frame. */
void tct_chrome_write_stack_frames(struct tct_chrome *c);
/* The CPU samples of every thread as "Profile" and "ProfileChunk" events. */
void tct_chrome_samples(struct tct_chrome *c);

/* export_chrome_sched.c: ,"systemTraceEvents":"..." when there are context switches. */
void tct_chrome_system_trace(struct tct_chrome *c);

#endif

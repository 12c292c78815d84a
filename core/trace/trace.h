/* trace.h - a capture's trace: the decoded events of its clients in, records out to sinks.
 *
 *   struct tct_trace *tr = tct_trace_new();
 *   uint32_t src = tct_trace_add_source(tr, &names, 0);   // one per client (process)
 *   tct_trace_add_sink(tr, sink);                          // what the outputs need (export.h)
 *   ... decoder on_event: tct_trace_on_event(tr, src, ev) ...
 *   tct_trace_finish(tr);   // closes what is still open and hands it out
 *   ... outputs read their sinks and write their files ...
 *   tct_trace_free(tr);
 *
 * The trace keeps what is open (each thread's open zones with their text, the last frame
 * of each frame set, GPU zones waiting for their GPU times) and small tables of what it
 * has seen (sources, threads, plots, frame sets, GPU contexts), never the records
 * themselves: its memory is bounded by the number of threads, their nesting depth and
 * the things named, not by the length of the capture. core/README.md ("The capture
 * path") draws the whole picture.
 */
#ifndef TRACYC_TRACE_TRACE_H
#define TRACYC_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"
#include "trace/sink.h"
#include "decode/decode.h"

struct tct_trace;

struct tct_trace *tct_trace_new(void);
/* Frees the trace and every sink added to it. */
void tct_trace_free(struct tct_trace *tr);

/* A new source (a client), whose ids `names` resolves and whose times get `offset` added.
 * Returns its index (0, 1, ...), or -1 when out of memory. */
int tct_trace_add_source(struct tct_trace *tr, const struct tct_names *names, int64_t offset);
/* Puts a source on the trace's clock: its times t become offset + t * scale (within
 * error ns, -1 when not known, 0 exactly). Events taken from then on use it, and a replay
 * uses the last one set: set it as soon as it is known, and again when it is known better.
 * What is still open (zones, frames, sections, GPU zones) moves to the new clock with it,
 * so that every span is measured on one clock. */
void tct_trace_set_source_clock(struct tct_trace *tr, uint32_t source, int64_t offset, double scale, int64_t error);
/* Replaces a source's names (once the decoder's handshake has given its welcome). */
void tct_trace_set_source_names(struct tct_trace *tr, uint32_t source, const struct tct_names *names);
/* The capture of the source is incomplete (the client vanished, the capture was
 * stopped, ...): why, a static string or one that outlives the trace. */
void tct_trace_source_incomplete(struct tct_trace *tr, uint32_t source, const char *why);

/* Hands the sink every record of the kinds it wants from now on; the trace owns it.
 * 0, or -1 when out of memory (the sink is then freed). */
int tct_trace_add_sink(struct tct_trace *tr, struct tct_sink *sink);
/* The sink added with these ops, NULL when none: how outputs share an aggregator. */
struct tct_sink *tct_trace_find_sink(const struct tct_trace *tr, const struct tct_sink_ops *ops);

/* One decoded event of a source. Never fails: what cannot be kept (memory exhausted, an
 * end without a begin) is counted in the source's lost_events / ignored_events. */
void tct_trace_on_event(struct tct_trace *tr, uint32_t source, const struct tcd_event *ev);

/* The capture has ended: zones still open are closed at their source's last_time
 * (TCT_ZONE_UNFINISHED, counted in unfinished_zones), frames and GPU zones likewise, and
 * handed to the sinks. Calling it again does nothing. */
void tct_trace_finish(struct tct_trace *tr);
int tct_trace_finished(const struct tct_trace *tr);

/* What the trace has seen. Pointers stay valid until tct_trace_free. */
size_t tct_trace_source_count(const struct tct_trace *tr);
const struct tct_source *tct_trace_source(const struct tct_trace *tr, uint32_t source);
/* Threads of every source, in the order they first appeared. */
size_t tct_trace_thread_count(const struct tct_trace *tr);
const struct tct_thread *tct_trace_thread_at(const struct tct_trace *tr, size_t index);
/* The thread of a source with this id, NULL when the trace has none. */
const struct tct_thread *tct_trace_thread(const struct tct_trace *tr, uint32_t source, uint32_t id);
size_t tct_trace_plot_count(const struct tct_trace *tr);
const struct tct_plot *tct_trace_plot_at(const struct tct_trace *tr, size_t index);
size_t tct_trace_frame_set_count(const struct tct_trace *tr);
const struct tct_frame_set *tct_trace_frame_set_at(const struct tct_trace *tr, size_t index);
size_t tct_trace_gpu_context_count(const struct tct_trace *tr);
const struct tct_gpu_context *tct_trace_gpu_context_at(const struct tct_trace *tr, size_t index);

/* The description a source gave a section category (SectionSetup), its length in *len;
 * NULL when it gave none. */
const char *tct_trace_section_category(const struct tct_trace *tr, uint32_t source, uint16_t category, size_t *len);

/* A source's end as Tracy's server counts it: its latest event time, and at least the
 * end of its client's initialisation (the welcome's initEnd). */
int64_t tct_source_end(const struct tct_source *src);
/* The trace's end: the latest of its sources' ends (0 without sources). */
int64_t tct_trace_end(const struct tct_trace *tr);

/* Replays. An output that must go over the records again once the capture has ended
 * (a sequential format written with every name known) asks the trace to keep its events
 * (before the first one comes): they are kept compactly, in memory and then on disk
 * (util/tape.h), not as records. tct_trace_replay then runs them, once the trace has
 * finished, through a new trace with the given sinks (borrowed, not freed with it): the
 * same records in the same order, with the same sources and names. It returns that trace,
 * finished, for the caller to read (its threads, plots, ...) and free; NULL with errno set
 * when the kept events could not be read back (or were never kept: EINVAL). */
void tct_trace_keep_events(struct tct_trace *tr);
/* The memory each part kept this way (the events, and each sink's spill) may hold before it
 * goes to disk: 0 (the default) for util/'s defaults. Set it before adding outputs. */
void tct_trace_set_spill_memory(struct tct_trace *tr, size_t bytes);
size_t tct_trace_spill_memory(const struct tct_trace *tr);
struct tct_trace *tct_trace_replay(const struct tct_trace *tr, struct tct_sink *const *sinks, size_t n);
/* 0, or the errno of the first failure to keep the events (their temporary file could grow
 * no more, memory ran out): a replay of them fails. */
int tct_trace_kept_error(const struct tct_trace *tr);

/* Bytes the trace and its sinks hold, for status lines and benchmarks. */
size_t tct_trace_memory(const struct tct_trace *tr);

#endif

/* names.h - names as the outputs show them, from a source's tables (struct tct_names,
 * record.h). */
#ifndef TRACYC_TRACE_NAMES_H
#define TRACYC_TRACE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "trace/record.h"
#include "trace/trace.h"

/* Names from a decoder (valid as long as the decoder is). */
void tct_names_from_decoder(struct tct_names *out, const struct tcd_decoder *dec);

/* A source as people tell processes apart: "program[pid]" (from its welcome), "client N"
 * when it never said. Into buf, which it returns. */
#define TCT_SOURCE_LABEL 96
const char *tct_source_label(const struct tct_source *src, char buf[TCT_SOURCE_LABEL]);

/* The pid an output gives a source: its own, unless an earlier source of the trace has it
 * too (two containers, pid 1 each), then 0x80000000 + its index, a pid no Linux process
 * has, so each keeps its tracks (its name says the real pid). */
uint64_t tct_source_pid(const struct tct_trace *tr, uint32_t source);
/* The name an output gives a source's process: its program's, or with several processes
 * tct_source_label's; "tracyc capture" for a client that never said. Into buf. */
const char *tct_source_process_name(const struct tct_trace *tr, uint32_t source, char buf[TCT_SOURCE_LABEL]);

/* A zone's name as Tracy's statistics show it: the source location's name, or its
 * function when it has none. Never NULL. */
const char *tct_srcloc_label(const struct tct_names *names, uint32_t srcloc);

/* A text an event carried, or the string its handle names when the event came before the
 * string did (literal messages, the crash); its length in *len. Never NULL. */
const char *tct_text_or_string(const struct tct_names *names, const char *text, size_t text_len, uint32_t handle,
                               size_t *len);

#endif

/* export.h - writing a finished trace model (model.h) as a file.
 *
 * Five formats, one model:
 *   Chrome Trace Event JSON (.json)  opens in Perfetto and chrome://tracing, and goes back
 *                                    into Tracy through upstream's tracy-import-chrome;
 *   zone statistics CSV (.csv)       the columns and numbers of upstream's tracy-csvexport;
 *   folded stacks (.folded)          the CPU samples, for flamegraph.pl, inferno, speedscope;
 *   flame graph (.svg)               the same samples drawn as a self-contained SVG;
 *   summary (.txt, no extension, "-" = stdout)  a cProfile-like text report, 100 columns wide.
 * Any other extension is refused: .tracy, for one, is the Tracy GUI's own format, which
 * only upstream's tracy-capture writes.
 *
 * Exporters resolve names through struct tct_names: normally the decoder's tables
 * (tct_names_from_decoder), but any table will do, which is how the tests seed names.
 */
#ifndef TRACYC_TRACE_EXPORT_H
#define TRACYC_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/model.h"
#include "decode/decode.h"

struct tct_names {
    const void *ctx;
    const struct tcd_srcloc *(*srcloc)(const void *ctx, uint32_t index);
    const char *(*thread)(const void *ctx, uint32_t thread);
    const char *(*plot)(const void *ctx, uint32_t plot);
    const char *(*frame)(const void *ctx, uint32_t frame_set); /* 0: "Frame" */
    const char *(*pool)(const void *ctx, uint32_t pool);
    const char *(*string)(const void *ctx, uint32_t handle); /* literal texts, "" unknown */
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

/* Names from the decoder that produced the trace (valid as long as the decoder is). */
void tct_names_from_decoder(struct tct_names *out, const struct tcd_decoder *dec);

/* A zone's name as Tracy's statistics show it: the source location's name, or its
 * function when it has none. Never NULL. */
const char *tct_srcloc_label(const struct tct_names *names, uint32_t srcloc);

/* A message's text: its own, or the string its handle names (literal messages whose
 * text arrived after them). Never NULL. The same for the crash report. */
const char *tct_message_text(const struct tct_names *names, const struct tct_message *m);
const char *tct_crash_text(const struct tct_names *names, const struct tct_crash *crash);

struct tct_export_options {
    /* CSV, as tracy-csvexport's flags */
    const char *filter;    /* -f: only zones whose name contains this (NULL or "" = all) */
    const char *separator; /* -s: column separator, NULL = "," */
    int case_sensitive;    /* -c: the filter is case sensitive */
    int self_time;         /* -e: self times instead of total times */
    int unwrap;            /* -u: one row per zone */
    int messages;          /* -m: the messages instead of zones */
    /* summary */
    size_t top; /* rows in each top-zones table, 0 = 20 */
    /* all formats: why the capture is incomplete ("client vanished", "stopped",
     * "time limit"), NULL when it is complete. Unfinished zones are reported anyway. */
    const char *incomplete;
};

enum tct_format {
    TCT_FORMAT_SUMMARY,
    TCT_FORMAT_CHROME,
    TCT_FORMAT_CSV,
    TCT_FORMAT_FOLDED,
    TCT_FORMAT_SVG,
    TCT_FORMAT_UNSUPPORTED, /* an extension of a format not written here */
};

/* The format a path asks for by its extension (case-insensitive): ".json" Chrome, ".csv"
 * CSV, ".folded" folded stacks, ".svg" flame graph, ".txt" or none (so also /dev/stdout)
 * the summary, anything else unsupported. */
enum tct_format tct_export_format_for(const char *path);

/* 0 when path ("-": stdout) names a format written here, else -1 with a message in err
 * that says which formats are, and how to get a .tracy file. */
int tct_export_check_format(const char *path, char *err, size_t errlen);

/* Writes the trace to path in the format its extension asks for ("-" = summary on
 * stdout). options may be NULL. Returns 0, or -1 with a message in err (and errno set).
 * The trace must be finished (tct_trace_finish). The file is written beside path under a
 * temporary name and renamed to path when complete (devices and pipes are written
 * directly): path is never left empty or half written. */
int tct_export_file(const struct tct_trace *trace, const struct tcd_decoder *dec, const char *path,
                    const struct tct_export_options *options, char *err, size_t errlen);

/* The same with any names and an open stream; used by tct_export_file. Each returns 0,
 * or -1 when writing failed (errno says why) or memory ran out (errno = ENOMEM). */
int tct_export_to(FILE *out, enum tct_format format, const struct tct_trace *trace, const struct tct_names *names,
                  const struct tct_export_options *options);
int tct_export_chrome(FILE *out, const struct tct_trace *trace, const struct tct_names *names,
                      const struct tct_export_options *options);
int tct_export_csv(FILE *out, const struct tct_trace *trace, const struct tct_names *names,
                   const struct tct_export_options *options);
int tct_export_summary(FILE *out, const struct tct_trace *trace, const struct tct_names *names,
                       const struct tct_export_options *options);
int tct_export_folded(FILE *out, const struct tct_trace *trace, const struct tct_names *names,
                      const struct tct_export_options *options);
int tct_export_svg(FILE *out, const struct tct_trace *trace, const struct tct_names *names,
                   const struct tct_export_options *options);

/* The trace's end as Tracy's server counts it: the latest event time, and at least the
 * end of the client's initialisation (the welcome's initEnd). */
int64_t tct_export_last_time(const struct tct_trace *trace, const struct tct_names *names);

#endif

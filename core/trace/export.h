/* export.h - outputs: a trace written as a file, in one of seven formats.
 *
 *   Perfetto trace (.pftrace)        Perfetto's own protobuf format, with everything the
 *                                    capture has: for the Perfetto UI and trace processor;
 *   Chrome Trace Event JSON (.json)  opens in Perfetto and chrome://tracing, and goes back
 *                                    into Tracy through upstream's tracy-import-chrome;
 *   zone statistics CSV (.csv)       the columns and numbers of upstream's tracy-csvexport;
 *   folded stacks (.folded)          the CPU samples, for flamegraph.pl, inferno, speedscope;
 *   flame graph (.svg)               the same samples drawn as a self-contained SVG;
 *   summary (.txt, no extension, "-" = stdout)  a cProfile-like text report, 100 columns wide.
 * Any other extension is refused: .tracy, for one, is the Tracy GUI's own format, which
 * only upstream's tracy-capture writes.
 *
 * An output is opened on a trace before its first event: it adds to the trace the sinks
 * (sink.h) it is made of, shared with the other outputs where they need the same. Once
 * the trace has finished, writing reads those sinks; nothing else of the capture was kept:
 *
 *   struct tct_output *o = tct_output_open(tr, "trace.json", NULL, err, sizeof err);
 *   ... the capture: tct_trace_on_event(), tct_trace_finish() ...
 *   tct_output_close(o, err, sizeof err);
 *
 * The file is written beside its path under a temporary name and renamed to it when
 * complete (devices and pipes are written directly): a path is never left empty or half
 * written, and a file already there survives a failed write.
 */
#ifndef TRACYC_TRACE_EXPORT_H
#define TRACYC_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace/trace.h"

struct tct_export_options {
    /* CSV, as tracy-csvexport's flags */
    const char *filter;    /* -f: only zones whose name contains this (NULL or "" = all) */
    const char *separator; /* -s: column separator, NULL = "," */
    int case_sensitive;    /* -c: the filter is case sensitive */
    int self_time;         /* -e: self times instead of total times */
    int unwrap;            /* -u: one row per zone */
    int messages;          /* -m: the messages instead of zones */
    int per_process;       /* a capture of several processes: a row per process and source location, and a
                            * "process" column ("program[pid]"), instead of rows summed over processes */
    /* summary */
    size_t top; /* rows in each top-zones table, 0 = 20 */
};

enum tct_format {
    TCT_FORMAT_SUMMARY,
    TCT_FORMAT_CHROME,
    TCT_FORMAT_CSV,
    TCT_FORMAT_FOLDED,
    TCT_FORMAT_SVG,
    TCT_FORMAT_PFTRACE,
    TCT_FORMAT_UNSUPPORTED, /* an extension of a format not written here */
};

/* The format a path asks for by its extension (case-insensitive): ".pftrace" Perfetto,
 * ".json" Chrome, ".csv" CSV, ".folded" folded stacks, ".svg" flame graph, ".txt" or none
 * (so also /dev/stdout) the summary, anything else unsupported. "-" is the summary (on
 * stdout). */
enum tct_format tct_export_format_for(const char *path);

/* 0 when path names a format written here, else -1 with a message in err that says which
 * formats are, and how to get a .tracy file. */
int tct_export_check_format(const char *path, char *err, size_t errlen);

/* 0 when path ("-": stdout) names a format written here and can be written there now,
 * else -1 with the reason in err: the format (tct_export_check_format), then the file,
 * by creating (and removing) the temporary file the output would write beside path (an
 * existing device or pipe: whether it may be written). Leaves nothing behind. */
int tct_export_check_path(const char *path, char *err, size_t errlen);

struct tct_output;

/* An output of `format` on the trace (options may be NULL: the defaults); NULL when out
 * of memory. Write it with tct_output_write_to. */
struct tct_output *tct_output_new(struct tct_trace *tr, enum tct_format format, const struct tct_export_options *o);
/* An output to path ("-": the summary on stdout), its format by extension: NULL with a
 * message in err when tct_export_check_path refuses it, or memory ran out. */
struct tct_output *tct_output_open(struct tct_trace *tr, const char *path, const struct tct_export_options *o,
                                   char *err, size_t errlen);

/* Writes the output (the trace finished) to out. 0, or -1 with errno set: writing failed,
 * or memory ran out (ENOMEM), or a sink's spill could not be kept (its errno). */
int tct_output_write_to(struct tct_output *output, FILE *out);
/* Writes an opened output to its path and frees it. 0, or -1 with a message in err
 * naming the file (and errno set). */
int tct_output_close(struct tct_output *output, char *err, size_t errlen);
/* Frees an output without writing it (the sinks stay with the trace). */
void tct_output_free(struct tct_output *output);

/* What each format is made of (export_<format>.c): the sinks it adds to the trace, and
 * how it writes the file from them. */
struct tct_format_ops {
    /* Adds the sinks; *state receives what write and free need. 0, or -1 (memory). */
    int (*prepare)(struct tct_trace *tr, const struct tct_export_options *o, void **state);
    int (*write)(FILE *out, struct tct_trace *tr, void *state, const struct tct_export_options *o);
    void (*free)(void *state);
    int replays; /* writes from the trace's kept events (tct_trace_replay) */
};
extern const struct tct_format_ops tct_format_summary, tct_format_chrome, tct_format_csv, tct_format_folded,
    tct_format_svg, tct_format_pftrace;

#endif

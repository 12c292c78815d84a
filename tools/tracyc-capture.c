/* tracyc-capture - a headless Tracy server: connect to a client, record, export.
 *
 * Flags follow upstream tracy-capture where they overlap (-a, -p, -o, -f, -s); the output
 * format follows -o's extension (.json Chrome trace, .csv zone statistics, .folded folded
 * stacks of the CPU samples, .svg their flame graph, .txt or none the text summary; any other
 * is refused, .tracy included), and the CSV takes tracy-csvexport's options as long flags
 * (its short ones clash with tracy-capture's).
 *
 * Exit status: 0 the capture is complete, 1 incomplete (the client vanished, Ctrl-C, the
 * time limit; the output is still written), 2 error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long, sigaction, isatty */
#endif

#include "capture/session.h"
#include "trace/export.h"
#include "trace/model.h"
#include "trace/units.h"
#include "decode/decode.h"
#include "wire/versions.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { EXIT_COMPLETE = 0, EXIT_INCOMPLETE = 1, EXIT_ERROR = 2 };

struct args {
    const char *address;
    uint16_t port;
    const char *output;
    int overwrite;
    double seconds;
    uint32_t protocol; /* 0: each version, newest first */
    struct tct_export_options csv;
};

struct capture {
    struct tct_trace *trace;
    int status_line; /* stderr is a terminal: keep one status line updated */
    double start;    /* when the first progress report came (connected) */
};

static volatile int stop_requested; /* set by SIGINT and SIGTERM */

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: tracyc-capture [-a ADDR] [-p PORT] [-o FILE] [-f] [-s SECONDS] [CSV options]\n"
                 "\n"
                 "Connects to a Tracy client (tracyc, or upstream Tracy 0.10 to 0.14.0), records until\n"
                 "it ends, then writes the capture. Without -o, prints the summary on stdout. The\n"
                 "protocol is the client's own: 82 (Tracy 0.14.0) is offered first, then 76, 74, 69,\n"
                 "66 and 64 until the client accepts one.\n"
                 "\n"
                 "  -a ADDR          client address (default 127.0.0.1)\n"
                 "  -p PORT          client port (default 8086)\n"
                 "  -o FILE          output, by extension: .json Chrome/Perfetto trace (zones,\n"
                 "                   callstacks, CPU samples, context switches), .csv zone\n"
                 "                   statistics, .folded CPU samples as folded stacks (for\n"
                 "                   flamegraph.pl, inferno, speedscope), .svg a flame graph of\n"
                 "                   them, .txt or no extension the text summary (\"-\" = stdout);\n"
                 "                   for a .tracy file use upstream's tracy-capture\n"
                 "  -f               overwrite FILE if it exists\n"
                 "  -s SECONDS       stop capturing after this long\n"
                 "  --protocol N     offer only protocol version N (82, 76, 74, 69, 66 or 64)\n"
                 "  -h, --help       this help\n"
                 "\n"
                 "CSV options (as tracy-csvexport's):\n"
                 "  --filter TEXT    only zones whose name contains TEXT\n"
                 "  --case           the filter is case sensitive\n"
                 "  --sep SEP        column separator (default ,)\n"
                 "  --self           self times instead of total times\n"
                 "  --unwrap         one row per zone\n"
                 "  --messages       the messages instead of zones\n"
                 "\n"
                 "Exit status: 0 complete, 1 incomplete (output still written), 2 error.\n");
}

static int parse_args(int argc, char **argv, struct args *a)
{
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"filter", required_argument, NULL, 'F'},
        {"case", no_argument, NULL, 'C'},
        {"sep", required_argument, NULL, 'S'},
        {"self", no_argument, NULL, 'E'},
        {"unwrap", no_argument, NULL, 'U'},
        {"messages", no_argument, NULL, 'M'},
        {"protocol", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0},
    };
    *a = (struct args){.address = "127.0.0.1", .port = 8086};
    int c;
    while ((c = getopt_long(argc, argv, "a:p:o:fs:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'a':
            a->address = optarg;
            break;
        case 'o':
            a->output = optarg;
            break;
        case 'f':
            a->overwrite = 1;
            break;
        case 'p': {
            long port = strtol(optarg, &end, 10);
            if (*end || port < 1 || port > 65535) {
                fprintf(stderr, "tracyc-capture: -p %s: not a port number\n", optarg);
                return -1;
            }
            a->port = (uint16_t)port;
            break;
        }
        case 's':
            a->seconds = strtod(optarg, &end);
            if (*end || !(a->seconds > 0)) {
                fprintf(stderr, "tracyc-capture: -s %s: not a positive number of seconds\n", optarg);
                return -1;
            }
            break;
        case 'P': {
            long protocol = strtol(optarg, &end, 10);
            if (*end || protocol < 0 || protocol > 255 || tcw_version_index((uint32_t)protocol) < 0) {
                fprintf(stderr, "tracyc-capture: --protocol %s: not one of 82, 76, 74, 69, 66, 64\n", optarg);
                return -1;
            }
            a->protocol = (uint32_t)protocol;
            break;
        }
        case 'F':
            a->csv.filter = optarg;
            break;
        case 'C':
            a->csv.case_sensitive = 1;
            break;
        case 'S':
            a->csv.separator = optarg;
            break;
        case 'E':
            a->csv.self_time = 1;
            break;
        case 'U':
            a->csv.unwrap = 1;
            break;
        case 'M':
            a->csv.messages = 1;
            break;
        case 'h':
            usage(stdout);
            exit(EXIT_COMPLETE);
        default:
            usage(stderr);
            return -1;
        }
    }
    if (optind != argc) {
        fprintf(stderr, "tracyc-capture: unexpected argument %s\n", argv[optind]);
        usage(stderr);
        return -1;
    }
    return 0;
}

/* Refuses a format it cannot write, an existing file without -f, and an unwritable path,
 * before capturing. */
static int check_output(const struct args *a)
{
    if (!a->output || strcmp(a->output, "-") == 0)
        return 0;
    char err[512];
    if (tct_export_check_format(a->output, err, sizeof err) != 0) {
        fprintf(stderr, "tracyc-capture: %s\n", err);
        return -1;
    }
    struct stat st;
    int exists = stat(a->output, &st) == 0;
    if (exists && !a->overwrite) {
        fprintf(stderr, "tracyc-capture: %s already exists; use -f to overwrite it\n", a->output);
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tracyc-capture: %s is a directory\n", a->output);
        return -1;
    }
    /* "a" creates the file if needed but never truncates an existing one. */
    FILE *probe = fopen(a->output, "a");
    if (!probe) {
        fprintf(stderr, "tracyc-capture: cannot write %s: %s\n", a->output, strerror(errno));
        return -1;
    }
    fclose(probe);
    if (!exists)
        unlink(a->output);
    return 0;
}

static void on_event(void *user, const struct tcd_event *ev)
{
    tct_trace_on_event(user, ev);
}

static void on_progress(void *user, const struct tcd_stats *st)
{
    struct capture *c = user;
    if (!c->status_line)
        return;
    double now = now_s();
    if (c->start == 0)
        c->start = now;
    double elapsed = now - c->start;
    char rate[TCT_UNITS_BUF], mem[TCT_UNITS_BUF], events[TCT_UNITS_BUF], zones[TCT_UNITS_BUF], dropped[TCT_UNITS_BUF],
        samples[TCT_UNITS_BUF];
    fprintf(stderr, "\r\033[K%.1f s | %s/s | %s events | %s zones | %s samples | %s in use | %s dropped", elapsed,
            tct_format_bytes(rate, elapsed > 0 ? (double)st->bytes_in / elapsed : 0),
            tct_format_count(events, st->events), tct_format_count(zones, st->zones),
            tct_format_count(samples, st->samples),
            tct_format_bytes(mem, (double)(st->memory + tct_trace_memory(c->trace))),
            tct_format_count(dropped, st->dropped));
    fflush(stderr);
}

/* "protocol 76 (Tracy 0.13.0-0.13.1)": the version the client accepted. */
static const char *protocol_name(const struct tcd_decoder *dec, char *buf, size_t cap)
{
    uint32_t protocol = tcd_decoder_version(dec);
    snprintf(buf, cap, "protocol %u (Tracy %s)", protocol, tcw_versions[tcw_version_index(protocol)].tracy);
    return buf;
}

static void short_summary(const struct tct_trace *tr, const struct tcd_decoder *dec, const struct args *a, int result,
                          const char *why)
{
    char zones[TCT_UNITS_BUF], messages[TCT_UNITS_BUF], span[TCT_UNITS_BUF], n[TCT_UNITS_BUF], protocol[64];
    printf("%s: %s zones on %zu threads, %s messages, %s of trace; wrote %s\n",
           result == TCS_COMPLETE ? "Capture complete" : "Capture incomplete", tct_format_count(zones, tr->zones),
           tr->thread_count, tct_format_count(messages, tr->messages.count), tct_format_duration(span, tr->last_time),
           a->output);
    printf("  client: %s\n", protocol_name(dec, protocol, sizeof protocol));
    if (result != TCS_COMPLETE && why[0])
        printf("  why: %s\n", why);
    if (tr->unfinished_zones)
        printf("  %s zones were still open; they end at the trace's last event\n",
               tct_format_count(n, tr->unfinished_zones));
    if (tr->samples || tr->switches.count)
        printf("  %s CPU samples, %s context switches\n", tct_format_count(n, tr->samples),
               tct_format_count(zones, tr->switches.count));
    if (tr->dropped)
        printf("!! %s events were DROPPED by the client: the profile is missing them\n",
               tct_format_count(n, tr->dropped));
    if (tr->samples_lost)
        printf("!! %s samples were LOST by the client\n", tct_format_count(n, tr->samples_lost));
}

static void explain_error(const char *err)
{
    fprintf(stderr, "tracyc-capture: %s\n", err);
    /* The client refuses with a status byte only: its own version stays unknown. */
    if (strstr(err, "protocol version"))
        fprintf(stderr, "tracyc-capture: it records clients of Tracy 0.10 to 0.14.0 (protocols 64 to 82) and "
                        "tracyc; this client is of another release\n");
}

int main(int argc, char **argv)
{
    struct args a;
    if (parse_args(argc, argv, &a) != 0)
        return EXIT_ERROR;
    if (check_output(&a) != 0)
        return EXIT_ERROR;

    struct capture c = {.trace = tct_trace_new(), .status_line = isatty(STDERR_FILENO)};
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    struct tcd_decoder *dec = c.trace ? tcd_decoder_new(&callbacks, c.trace, NULL) : NULL;
    if (!dec) {
        fprintf(stderr, "tracyc-capture: out of memory\n");
        tct_trace_free(c.trace);
        return EXIT_ERROR;
    }

    /* Stop cleanly and still write everything received. */
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    if (c.status_line)
        fprintf(stderr, "Connecting to %s:%u...", a.address, a.port);
    struct tcs_options opt = {
        .address = a.address,
        .port = a.port,
        .connect_timeout_s = 1e9, /* wait for the client as long as it takes, as upstream */
        .time_limit_s = a.seconds,
        .stop_flag = &stop_requested,
        .protocol = a.protocol,
        .on_progress = on_progress,
        .user = &c,
    };
    char why[512] = "";
    int result = tcs_capture(&opt, dec, why, sizeof why);
    if (c.status_line)
        fputs("\r\033[K", stderr);

    int status = result == TCS_COMPLETE ? EXIT_COMPLETE : result == TCS_INCOMPLETE ? EXIT_INCOMPLETE : EXIT_ERROR;
    if (result == TCS_ERROR) {
        if (stop_requested && c.trace->events == 0)
            snprintf(why, sizeof why, "stopped before a client connected");
        explain_error(why);
    }
    /* Whatever arrived is written, even after an error mid-stream; only a capture that
     * never got anything (no connection, refused handshake) writes nothing. */
    if (result != TCS_ERROR || c.trace->events > 0) {
        tct_trace_finish(c.trace);
        struct tct_export_options options = a.csv;
        options.incomplete = result == TCS_COMPLETE ? NULL : why;
        const char *path = a.output ? a.output : "-";
        char err[512];
        if (tct_export_file(c.trace, dec, path, &options, err, sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            status = EXIT_ERROR;
        } else if (a.output && strcmp(a.output, "-") != 0) {
            short_summary(c.trace, dec, &a, result, why);
        } else if (tcd_decoder_version(dec) != TCW_PROTOCOL_VERSION) {
            char protocol[64];
            fprintf(stderr, "tracyc-capture: the client speaks %s\n", protocol_name(dec, protocol, sizeof protocol));
        }
    }
    tcd_decoder_free(dec);
    tct_trace_free(c.trace);
    return status;
}

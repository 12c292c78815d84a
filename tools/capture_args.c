/* capture_args.c - tracyc-capture's command line (capture_args.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getopt_long */
#endif

#include "capture_args.h"

#include "wire/versions.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void usage(FILE *out)
{
    fprintf(out, "usage: tracyc-capture [-a HOST[:PORT]]... [-p PORT] [--pid PID] [--listen [ADDR:]PORT]\n"
                 "                      [--all [--ports FIRST-LAST]] [--expect N] [--serve [ADDR:]PORT]\n"
                 "                      [-o FILE]... [-f]\n"
                 "                      [-s SECONDS] [--protocol N] [--per-process] [CSV options]\n"
                 "\n"
                 "Records Tracy clients (tracyc, or upstream Tracy 0.10 to 0.14.0) until they end, then\n"
                 "writes the capture: one client, as tracy-capture does, or any number of processes into\n"
                 "one trace on one clock. Without -o, prints the summary on stdout. A client's protocol\n"
                 "is its own: 82 (Tracy 0.14.0) is offered first, then 76, 74, 69, 66 and 64 until the\n"
                 "client accepts one.\n"
                 "\n"
                 "Where the clients are:\n"
                 "  -a HOST[:PORT]   a client listening at HOST (default 127.0.0.1) and PORT (default\n"
                 "                   -p's); given several times, each is recorded into the one capture\n"
                 "                   ([V6ADDR]:PORT for an IPv6 address with a port)\n"
                 "  -p PORT          the port of an -a that names none (default 8086)\n"
                 "  --pid PID        record process PID: wait until it listens on its Tracy port\n"
                 "                   (PORT to PORT+19; without -p, its TRACY_PORT or 8086) and\n"
                 "                   connect there; refuse any other program\n"
                 "  --listen [ADDR:]PORT\n"
                 "                   accept clients that dial out (TRACYC_CONNECT=HOST:PORT in their\n"
                 "                   environment), any number, while the capture runs; ADDR 127.0.0.1\n"
                 "                   by default (0.0.0.0 or :: for every interface); PORT 0 takes a\n"
                 "                   free one; the port is said on stderr\n"
                 "  --all            also record every client that appears on ports 8086 to 8105 (the\n"
                 "                   ports Tracy clients take when 8086 is busy) of each -a host\n"
                 "                   (127.0.0.1 without -a), tried twice a second while it runs\n"
                 "  --ports FIRST-LAST  the ports --all tries (default 8086-8105)\n"
                 "\n"
                 "When it ends: once every client it connected to (-a, --pid) has finished; with\n"
                 "--listen or --all on Ctrl-C or SIGTERM; or:\n"
                 "  --expect N       once N clients have connected and all of them have finished\n"
                 "  -s SECONDS       after this long, the wait for the clients included\n"
                 "\n"
                 "For the Tracy GUI:\n"
                 "  --serve [ADDR:]PORT\n"
                 "                   show every process recorded to one Tracy server (the GUI, or\n"
                 "                   tracy-capture 0.10 to 0.14.0) as one program: it connects to PORT\n"
                 "                   (ADDR 127.0.0.1 by default) as to any client; the clients are\n"
                 "                   recorded from then on, each thread named \"program[pid] thread\",\n"
                 "                   each process's plots, frames and memory its own\n"
                 "\n"
                 "Outputs:\n"
                 "  -o FILE          output, by extension: .pftrace Perfetto trace (zones with\n"
                 "                   source locations and callstacks, messages, plots, memory,\n"
                 "                   locks, GPU zones, CPU samples with their frames, context\n"
                 "                   switches), .json Chrome trace (the same, less, opens in\n"
                 "                   Perfetto and chrome://tracing), .csv zone\n"
                 "                   statistics, .folded CPU samples as folded stacks (for\n"
                 "                   flamegraph.pl, inferno, speedscope), .svg a flame graph of\n"
                 "                   them, .txt or no extension the text summary (\"-\" = stdout);\n"
                 "                   for a .tracy file use upstream's tracy-capture; given several\n"
                 "                   times, each file is written from the one capture. Every\n"
                 "                   output holds every process: its own in JSON and Perfetto,\n"
                 "                   prefixed to folded stacks, a table and a section each in the\n"
                 "                   summary, summed in the CSV\n"
                 "  -f               overwrite FILE if it exists\n"
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
                 "  --per-process    several processes: a row per process and zone, and a process\n"
                 "                   column (without it, a zone's row sums every process's)\n"
                 "\n"
                 "Exit status: 0 every client's capture is complete, 1 one is incomplete (output still\n"
                 "written; it says which process), 2 error (no client at all, too).\n");
}

static int parse_port(const char *text, uint16_t *port, int zero_ok)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (!*text || *end || v < (zero_ok ? 0 : 1) || v > 65535)
        return -1;
    *port = (uint16_t)v;
    return 0;
}

/* HOST, HOST:PORT, [V6]:PORT, [V6], or V6 alone (more than one colon, no brackets). */
static int parse_address(const char *text, char *host, size_t hostlen, uint16_t *port, int zero_ok)
{
    const char *colon = strrchr(text, ':');
    *port = 0;
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (!close || (close[1] && (close[1] != ':' || parse_port(close + 2, port, zero_ok) != 0)))
            return -1;
        snprintf(host, hostlen, "%.*s", (int)(close - text - 1), text + 1);
    } else if (colon && colon == strchr(text, ':')) {
        if (parse_port(colon + 1, port, zero_ok) != 0)
            return -1;
        snprintf(host, hostlen, "%.*s", (int)(colon - text), text);
    } else {
        snprintf(host, hostlen, "%s", text);
    }
    return 0;
}

int capture_args_parse(int argc, char **argv, struct args *a)
{
    enum {
        O_FILTER = 256,
        O_CASE,
        O_SEP,
        O_SELF,
        O_UNWRAP,
        O_MESSAGES,
        O_PROTOCOL,
        O_PID,
        O_LISTEN,
        O_ALL,
        O_PORTS,
        O_EXPECT,
        O_PER_PROCESS,
        O_SERVE
    };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"filter", required_argument, NULL, O_FILTER},
        {"case", no_argument, NULL, O_CASE},
        {"sep", required_argument, NULL, O_SEP},
        {"self", no_argument, NULL, O_SELF},
        {"unwrap", no_argument, NULL, O_UNWRAP},
        {"messages", no_argument, NULL, O_MESSAGES},
        {"protocol", required_argument, NULL, O_PROTOCOL},
        {"pid", required_argument, NULL, O_PID},
        {"listen", required_argument, NULL, O_LISTEN},
        {"all", no_argument, NULL, O_ALL},
        {"ports", required_argument, NULL, O_PORTS},
        {"expect", required_argument, NULL, O_EXPECT},
        {"per-process", no_argument, NULL, O_PER_PROCESS},
        {"serve", required_argument, NULL, O_SERVE},
        {NULL, 0, NULL, 0},
    };
    *a = (struct args){.port = 8086, .scan_first = CAPTURE_SCAN_FIRST, .scan_last = CAPTURE_SCAN_LAST};
    int c, ports_given = 0;
    while ((c = getopt_long(argc, argv, "a:p:o:fs:h", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'a': {
            if (a->target_count == CAPTURE_MAX_TARGETS) {
                fprintf(stderr, "tracyc-capture: -a: at most %d clients\n", CAPTURE_MAX_TARGETS);
                return -1;
            }
            struct capture_target *t = &a->targets[a->target_count];
            if (parse_address(optarg, t->host, sizeof t->host, &t->port, 0) != 0 || !t->host[0]) {
                fprintf(stderr, "tracyc-capture: -a %s: not HOST, HOST:PORT or [ADDRESS]:PORT\n", optarg);
                return -1;
            }
            a->target_count++;
            break;
        }
        case 'o':
            if (a->output_count == CAPTURE_MAX_OUTPUTS) {
                fprintf(stderr, "tracyc-capture: -o: at most %d outputs\n", CAPTURE_MAX_OUTPUTS);
                return -1;
            }
            a->outputs[a->output_count++] = optarg;
            break;
        case 'f':
            a->overwrite = 1;
            break;
        case 'p':
            if (parse_port(optarg, &a->port, 0) != 0) {
                fprintf(stderr, "tracyc-capture: -p %s: not a port number\n", optarg);
                return -1;
            }
            a->port_given = 1;
            break;
        case O_PID: {
            long pid = strtol(optarg, &end, 10);
            if (*end || pid < 1 || pid > 0x7fffffff) {
                fprintf(stderr, "tracyc-capture: --pid %s: not a process id\n", optarg);
                return -1;
            }
            a->pid = (pid_t)pid;
            break;
        }
        case 's':
            a->seconds = strtod(optarg, &end);
            if (*end || !(a->seconds > 0)) {
                fprintf(stderr, "tracyc-capture: -s %s: not a positive number of seconds\n", optarg);
                return -1;
            }
            break;
        case O_PROTOCOL: {
            long protocol = strtol(optarg, &end, 10);
            if (*end || protocol < 0 || protocol > 255 || tcw_version_index((uint32_t)protocol) < 0) {
                fprintf(stderr, "tracyc-capture: --protocol %s: not one of 82, 76, 74, 69, 66, 64\n", optarg);
                return -1;
            }
            a->protocol = (uint32_t)protocol;
            break;
        }
        case O_LISTEN:
            if (parse_address(optarg, a->listen_host, sizeof a->listen_host, &a->listen_port, 1) != 0 ||
                (!strchr(optarg, ':') && parse_port(optarg, &a->listen_port, 1) != 0)) {
                fprintf(stderr, "tracyc-capture: --listen %s: not [ADDRESS:]PORT\n", optarg);
                return -1;
            }
            if (!strchr(optarg, ':'))
                a->listen_host[0] = '\0'; /* a port alone */
            a->listen = 1;
            break;
        case O_SERVE:
            if (parse_address(optarg, a->serve_host, sizeof a->serve_host, &a->serve_port, 1) != 0 ||
                (!strchr(optarg, ':') && parse_port(optarg, &a->serve_port, 1) != 0)) {
                fprintf(stderr, "tracyc-capture: --serve %s: not [ADDRESS:]PORT\n", optarg);
                return -1;
            }
            if (!strchr(optarg, ':'))
                a->serve_host[0] = '\0'; /* a port alone */
            a->serve = 1;
            break;
        case O_ALL:
            a->all = 1;
            break;
        case O_PORTS: {
            char *dash = strchr(optarg, '-');
            char first[8] = "";
            if (!dash || dash - optarg >= (long)sizeof first ||
                (snprintf(first, sizeof first, "%.*s", (int)(dash - optarg), optarg),
                 parse_port(first, &a->scan_first, 0) != 0) ||
                parse_port(dash + 1, &a->scan_last, 0) != 0 || a->scan_first > a->scan_last) {
                fprintf(stderr, "tracyc-capture: --ports %s: not FIRST-LAST\n", optarg);
                return -1;
            }
            ports_given = 1;
            break;
        }
        case O_EXPECT:
            a->expect = strtol(optarg, &end, 10);
            if (*end || a->expect < 1 || a->expect > 1000000) {
                fprintf(stderr, "tracyc-capture: --expect %s: not a positive number of clients\n", optarg);
                return -1;
            }
            break;
        case O_FILTER:
            a->csv.filter = optarg;
            break;
        case O_CASE:
            a->csv.case_sensitive = 1;
            break;
        case O_SEP:
            a->csv.separator = optarg;
            break;
        case O_SELF:
            a->csv.self_time = 1;
            break;
        case O_UNWRAP:
            a->csv.unwrap = 1;
            break;
        case O_MESSAGES:
            a->csv.messages = 1;
            break;
        case O_PER_PROCESS:
            a->csv.per_process = 1;
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
    if (ports_given && !a->all) {
        fprintf(stderr, "tracyc-capture: --ports is the range --all tries: give --all too\n");
        return -1;
    }
    if (a->pid && !capture_args_single(a)) {
        fprintf(stderr, "tracyc-capture: --pid records one process: not with --listen, --all, --expect, "
                        "--serve or several -a\n");
        return -1;
    }
    return 0;
}

int capture_args_single(const struct args *a)
{
    return !a->listen && !a->all && !a->expect && !a->serve && a->target_count <= 1;
}

static int check_output(const struct args *a, const char *output)
{
    if (strcmp(output, "-") == 0)
        return 0;
    char err[512];
    if (tct_export_check_format(output, err, sizeof err) != 0) {
        fprintf(stderr, "tracyc-capture: %s\n", err);
        return -1;
    }
    struct stat st;
    int exists = stat(output, &st) == 0;
    if (exists && !a->overwrite) {
        fprintf(stderr, "tracyc-capture: %s already exists; use -f to overwrite it\n", output);
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "tracyc-capture: %s is a directory\n", output);
        return -1;
    }
    /* "a" creates the file if needed but never truncates an existing one. */
    FILE *probe = fopen(output, "a");
    if (!probe) {
        fprintf(stderr, "tracyc-capture: cannot write %s: %s\n", output, strerror(errno));
        return -1;
    }
    fclose(probe);
    if (!exists)
        unlink(output);
    return 0;
}

int capture_args_check_outputs(const struct args *a)
{
    for (size_t i = 0; i < a->output_count; i++) {
        for (size_t k = 0; k < i; k++)
            if (strcmp(a->outputs[i], a->outputs[k]) == 0) {
                fprintf(stderr, "tracyc-capture: -o %s given twice\n", a->outputs[i]);
                return -1;
            }
        if (check_output(a, a->outputs[i]) != 0)
            return -1;
    }
    return 0;
}

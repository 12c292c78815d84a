/* tracyc-capture - a headless Tracy server: record clients, export.
 *
 * Flags follow upstream tracy-capture where they overlap (-a, -p, -o, -f, -s); the output
 * format follows -o's extension (.pftrace Perfetto trace, .json Chrome trace, .csv zone
 * statistics, .folded folded stacks of the CPU samples, .svg their flame graph, .txt or none
 * the text summary; any other is refused, .tracy included), and the CSV takes
 * tracy-csvexport's options as long flags (its short ones clash with tracy-capture's).
 *
 * One client at one address is recorded as tracy-capture records it. Several (-a more than
 * once, --listen for clients that dial out, --all for those that appear on the ports Tracy
 * clients take, --expect) go into one trace on one clock by the collector
 * (core/capture/collector.h); every output holds every process. --serve shows them all
 * to one Tracy server (the GUI) as one program (core/capture/serve.h).
 *
 * It says on stderr which program it records (name, pid, port), and, for one client, warns
 * when that is not the one started beside it (procinfo.c); --pid records a given process
 * wherever its port.
 *
 * Exit status: 0 the capture of every client is complete, 1 one is incomplete (it vanished,
 * Ctrl-C, the time limit; the output is still written, and says which) or an output could not
 * be written at the end (the others are), 2 error (no client at all, too).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sigaction, isatty */
#endif

#include "capture/collector.h"
#include "capture/serve.h"
#include "capture/sockets.h"
#include "capture_args.h"
#include "procinfo.h"
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "trace/units.h"
#include "decode/decode.h"
#include "wire/versions.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct capture {
    struct tct_trace *trace;
    struct tcs_collector *collector;
    struct tcs_serve *serve; /* --serve */
    const struct args *args;
    int single;        /* one client at one address */
    const char *host;  /* single: its address */
    uint16_t port;     /* single: its port (--pid: the one found) */
    int status_line;   /* stderr is a terminal: keep one status line updated */
    double start;      /* when the first client's welcome came */
    int look_beside;   /* the recorded program was not started beside us: look for one that was */
    double looked;     /* when the last look was */
    char failure[512]; /* why the last connection that never became a client ended */
};

static volatile int stop_requested; /* set by SIGINT and SIGTERM */

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Says something on stderr without breaking the status line. */
static void say(const struct capture *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct capture *c, const char *fmt, ...)
{
    if (c->status_line)
        fputs("\r\033[K", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static int is_loopback(const char *address)
{
    return strcmp(address, "127.0.0.1") == 0 || strcmp(address, "::1") == 0 || strcmp(address, "localhost") == 0;
}

/* `./app & tracyc-capture` records whoever holds the port; when app had to take the next
 * one, that is another program. A program started beside us (our parent's child) that
 * listens on a port a client would try (PORT to PORT+19) is most likely the one meant. */
static void look_beside(struct capture *c)
{
    pid_t kin[256];
    int n = procinfo_children(getppid(), kin, 256);
    for (int i = 0; i < n && c->look_beside; i++) {
        uint16_t ports[16];
        int np = kin[i] == getpid() ? 0 : procinfo_listening_ports(kin[i], ports, 16);
        for (int j = 0; j < np && c->look_beside; j++) {
            if (ports[j] == c->port || ports[j] < c->args->port || ports[j] - c->args->port >= 20)
                continue;
            char name[64];
            say(c,
                "tracyc-capture: warning: %s (pid %d), started beside tracyc-capture, listens on port %u: it is not "
                "the program recorded here; to record it: tracyc-capture -p %u, or --pid %d\n",
                procinfo_name(kin[i], name, sizeof name), (int)kin[i], ports[j], ports[j], (int)kin[i]);
            c->look_beside = 0;
        }
    }
}

static int on_client(void *user, const struct tcs_client *client, const struct tcd_welcome *w, char *why, size_t whylen)
{
    struct capture *c = user;
    say(c, "tracyc-capture: recording %s (pid %llu) %s %s port %u\n", w->program_name, (unsigned long long)w->pid,
        client->accepted ? "connected from" : "at", client->host, client->port);
    if (c->args->pid && w->pid != (uint64_t)c->args->pid) {
        snprintf(why, whylen, "port %u is held by %s (pid %llu), not by process %d", client->port, w->program_name,
                 (unsigned long long)w->pid, (int)c->args->pid);
        return -1;
    }
    if (c->start == 0)
        c->start = tcs_now_s();
    if (c->single) {
        c->look_beside = !c->args->pid && is_loopback(c->host) && procinfo_parent((pid_t)w->pid) != getppid();
        c->looked = tcs_now_s();
        look_beside(c);
    }
    return 0;
}

/* "example_workers[1045]": a client as people tell processes apart. */
static const char *client_label(const struct capture *c, const struct tcs_client *client, char *buf)
{
    if (client->source >= 0)
        return tct_source_label(tct_trace_source(c->trace, (uint32_t)client->source), buf);
    snprintf(buf, TCT_SOURCE_LABEL, "%s port %u", client->host, client->port);
    return buf;
}

/* A connection that never became a client: said at once (one client's failure is the
 * capture's, said at the end); a client's end is said at the end, with the others'. */
static void on_end(void *user, const struct tcs_client *client)
{
    struct capture *c = user;
    if (client->source < 0) {
        snprintf(c->failure, sizeof c->failure, "%s", client->why);
        if (!c->single)
            say(c, "tracyc-capture: %s %s port %u: %s\n", client->accepted ? "a connection from" : "connecting to",
                client->host, client->port, client->why);
        return;
    }
}

/* The clients that dial in wait in the listener's backlog until a descriptor is free. */
static void on_accept_failed(void *user, uint16_t port, int err)
{
    struct rlimit lim;
    char limit[64] = "";
    if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, " (%llu descriptors: ulimit -n)", (unsigned long long)lim.rlim_cur);
    say(user, "tracyc-capture: port %u: cannot accept more clients now: %s%s; they wait until one ends\n", port,
        strerror(err), limit);
}

/* A capture holds a descriptor a client and polls them all (no select's FD_SETSIZE): the
 * soft limit, often 1,024, is raised to the hard one for captures of many processes. */
static void raise_descriptor_limit(void)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < lim.rlim_max) {
        lim.rlim_cur = lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
}

static void status(struct capture *c)
{
    double now = tcs_now_s();
    if (c->look_beside && now - c->looked >= 1.0) { /* it may start listening later than we connected */
        c->looked = now;
        look_beside(c);
    }
    if (!c->status_line || c->start == 0)
        return;
    struct tcd_stats st;
    tcs_collector_stats(c->collector, &st);
    double elapsed = now - c->start;
    char rate[TCT_UNITS_BUF], mem[TCT_UNITS_BUF], events[TCT_UNITS_BUF], zones[TCT_UNITS_BUF], dropped[TCT_UNITS_BUF],
        samples[TCT_UNITS_BUF], processes[32] = "";
    size_t clients = tcs_collector_client_count(c->collector);
    if (!c->single)
        snprintf(processes, sizeof processes, "%zu process%s | ", clients, clients == 1 ? "" : "es");
    fprintf(
        stderr, "\r\033[K%.1f s | %s%s/s | %s events | %s zones | %s samples | %s in use | %s dropped", elapsed,
        processes, tct_format_bytes(rate, elapsed > 0 ? (double)st.bytes_in / elapsed : 0),
        tct_format_count(events, st.events), tct_format_count(zones, st.zones), tct_format_count(samples, st.samples),
        tct_format_bytes(mem, (double)(st.memory + tct_trace_memory(c->trace))), tct_format_count(dropped, st.dropped));
    fflush(stderr);
}

/* "protocol 76 (Tracy 0.13.0-0.13.1)": the version the client accepted. */
static const char *protocol_name(const struct tcd_decoder *dec, char *buf, size_t cap)
{
    uint32_t protocol = tcd_decoder_version(dec);
    snprintf(buf, cap, "protocol %u (Tracy %s)", protocol, tcw_versions[tcw_version_index(protocol)].tracy);
    return buf;
}

static const char *written(const struct args *a, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->output_count && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", a->outputs[i]);
    return buf;
}

static void what_was_missed(const struct tct_source *src, const char *prefix)
{
    char n[TCT_UNITS_BUF], m[TCT_UNITS_BUF];
    if (src->unfinished_zones)
        printf("  %s%s zones were still open; they end at the trace's last event\n", prefix,
               tct_format_count(n, src->unfinished_zones));
    if (src->samples || src->switches)
        printf("  %s%s CPU samples, %s context switches\n", prefix, tct_format_count(n, src->samples),
               tct_format_count(m, src->switches));
    if (src->dropped)
        printf("!! %s%s events were DROPPED by the client: the profile is missing them\n", prefix,
               tct_format_count(n, src->dropped));
    if (src->samples_lost)
        printf("!! %s%s samples were LOST by the client\n", prefix, tct_format_count(n, src->samples_lost));
}

/* One client: as tracyc-capture always said it. */
static void short_summary_one(const struct capture *c, const struct tcs_client *client, int complete)
{
    const struct tct_source *tr = tct_trace_source(c->trace, (uint32_t)client->source);
    char zones[TCT_UNITS_BUF], messages[TCT_UNITS_BUF], span[TCT_UNITS_BUF], protocol[64], files[1024];
    printf("%s: %s zones on %u threads, %s messages, %s of trace; wrote %s\n",
           complete ? "Capture complete" : "Capture incomplete", tct_format_count(zones, tr->zones), tr->thread_count,
           tct_format_count(messages, tr->messages), tct_format_duration(span, tr->last_time),
           written(c->args, files, sizeof files));
    printf("  client: %s\n", protocol_name(client->dec, protocol, sizeof protocol));
    if (!complete && client->why[0])
        printf("  why: %s\n", client->why);
    what_was_missed(tr, "");
}

/* Several: the whole, then a line for each process, how its clock was put on the trace's. */
static void short_summary_many(const struct capture *c, int complete)
{
    uint64_t zones = 0, messages = 0;
    uint32_t threads = 0;
    size_t n = tcs_collector_client_count(c->collector);
    for (size_t i = 0; i < n; i++) {
        const struct tct_source *src =
            tct_trace_source(c->trace, (uint32_t)tcs_collector_client(c->collector, i)->source);
        zones += src->zones;
        messages += src->messages;
        threads += src->thread_count;
    }
    char z[TCT_UNITS_BUF], m[TCT_UNITS_BUF], span[TCT_UNITS_BUF], files[1024];
    printf("%s: %zu processes, %s zones on %u threads, %s messages, %s of trace; wrote %s\n",
           complete ? "Capture complete" : "Capture incomplete", n, tct_format_count(z, zones), threads,
           tct_format_count(m, messages), tct_format_duration(span, tct_trace_end(c->trace)),
           written(c->args, files, sizeof files));
    static const char *const methods[] = {"", "welcome", "clock readings", "round trips"};
    for (size_t i = 0; i < n; i++) {
        const struct tcs_client *client = tcs_collector_client(c->collector, i);
        const struct tct_source *src = tct_trace_source(c->trace, (uint32_t)client->source);
        char label[TCT_SOURCE_LABEL], protocol[64], err[TCT_UNITS_BUF + 32], prefix[TCT_SOURCE_LABEL + 2];
        if (src->clock_error == 0 && i == 0) /* the first gives the trace its clock */
            snprintf(err, sizeof err, "exact");
        else if (src->clock_error >= 0)
            snprintf(err, sizeof err, "+-%s (%s)", tct_format_duration(z, src->clock_error), methods[client->clock]);
        else
            snprintf(err, sizeof err, "unknown");
        printf("  %s: %s, %s zones, clock %s, %s\n", tct_source_label(src, label),
               protocol_name(client->dec, protocol, sizeof protocol), tct_format_count(z, src->zones), err,
               src->incomplete ? src->incomplete : "complete");
        snprintf(prefix, sizeof prefix, "%s: ", label);
        what_was_missed(src, prefix);
    }
}

static void explain_error(const char *err)
{
    fprintf(stderr, "tracyc-capture: %s\n", err);
    /* The client refuses with a status byte only: its own version stays unknown. */
    if (strstr(err, "protocol version"))
        fprintf(stderr, "tracyc-capture: it records clients of Tracy 0.10 to 0.14.0 (protocols 64 to 82) and "
                        "tracyc; this client is of another release\n");
}

/* --pid: waits until the process listens on a port a Tracy client takes (PORT to PORT+19),
 * within the time limit (*waited: how long that took). The port, or 0 when it says on
 * stderr why there is none. PORT is read from its environment at every look: `./app &`
 * gives a pid that may still be the shell about to exec app with another environment. */
static uint16_t port_of_process(const struct args *a, double *waited)
{
    double start = tcs_now_s();
    for (;;) {
        int base = a->port_given ? a->port : procinfo_tracy_port(a->pid);
        uint16_t ports[64];
        int n = procinfo_listening_ports(a->pid, ports, 64);
        if (n < 0 && errno != ESRCH) {
            fprintf(stderr, "tracyc-capture: cannot see the ports of process %d: %s\n", (int)a->pid, strerror(errno));
            return 0;
        }
        for (int i = 0; i < n; i++)
            if (ports[i] >= base && ports[i] - base < 20) {
                *waited = tcs_now_s() - start;
                return ports[i];
            }
        if (n < 0 || !procinfo_running(a->pid)) {
            fprintf(stderr, "tracyc-capture: no process %d (or it ended before it listened on ports %d-%d)\n",
                    (int)a->pid, base, base + 19);
            return 0;
        }
        if (stop_requested) {
            fprintf(stderr, "tracyc-capture: stopped before process %d listened on ports %d-%d\n", (int)a->pid, base,
                    base + 19);
            return 0;
        }
        if (a->seconds > 0 && tcs_now_s() - start >= a->seconds) {
            fprintf(stderr, "tracyc-capture: process %d did not listen on ports %d-%d within the time limit of %g s\n",
                    (int)a->pid, base, base + 19, a->seconds);
            return 0;
        }
        nanosleep(&(struct timespec){0, 10 * 1000000L}, NULL);
    }
}

/* Where the clients are, into the collector: 0, or -1 after saying why. */
static int add_sources(struct capture *c, const struct args *a)
{
    char err[512];
    if (a->listen) {
        uint16_t bound = 0;
        const char *host = a->listen_host[0] ? a->listen_host : NULL;
        if (tcs_collector_listen(c->collector, host, a->listen_port, &bound, err, sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            return -1;
        }
        say(c, "tracyc-capture: listening on %s port %u for clients (TRACYC_CONNECT=%s:%u)\n",
            host ? host : "127.0.0.1", bound,
            host && strcmp(host, "0.0.0.0") && strcmp(host, "::") ? host : "127.0.0.1", bound);
    }
    if (c->single) {
        if (tcs_collector_connect(c->collector, c->host, c->port, a->protocol, 1e9, err, sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            return -1;
        }
        return 0;
    }
    for (size_t i = 0; i < a->target_count; i++) {
        const struct capture_target *t = &a->targets[i];
        if (a->all && !t->port)
            continue; /* a host to scan */
        if (tcs_collector_connect(c->collector, t->host, t->port ? t->port : a->port, a->protocol, 1e9, err,
                                  sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            return -1;
        }
    }
    for (size_t i = 0; a->all && i < (a->target_count ? a->target_count : 1); i++) {
        const char *host = a->target_count ? a->targets[i].host : "127.0.0.1";
        if (tcs_collector_scan(c->collector, host, a->scan_first, a->scan_last, err, sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            return -1;
        }
    }
    return 0;
}

/* Whether every client that was expected has come and finished. */
static int expected_done(const struct capture *c)
{
    size_t n = tcs_collector_client_count(c->collector);
    if (!c->args->expect || n < (size_t)c->args->expect)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (tcs_collector_client(c->collector, i)->state != TCS_SESSION_ENDED)
            return 0;
    return 1;
}

/* --serve: waits for the Tracy server to connect (the clients are recorded from then on):
 * 0, or -1 after saying why. */
static int serve_start(struct capture *c, const struct args *a, double time_limit)
{
    char err[512];
    uint16_t bound = 0;
    const char *host = a->serve_host[0] ? a->serve_host : NULL;
    if (tcs_serve_listen(c->serve, host, a->serve_port, &bound, err, sizeof err) != 0) {
        fprintf(stderr, "tracyc-capture: --serve: %s\n", err);
        return -1;
    }
    say(c, "tracyc-capture: waiting for a Tracy server on %s port %u (tracy-capture -a %s -p %u, or the GUI)\n",
        host ? host : "127.0.0.1", bound, host && strcmp(host, "0.0.0.0") && strcmp(host, "::") ? host : "127.0.0.1",
        bound);
    double end = time_limit > 0 ? tcs_now_s() + time_limit : 0;
    while (!tcs_serve_connected(c->serve)) {
        if (stop_requested || (end > 0 && tcs_now_s() >= end)) {
            fprintf(stderr, "tracyc-capture: --serve: no Tracy server connected to port %u%s\n", bound,
                    stop_requested ? "" : " within the time limit");
            return -1;
        }
        tcs_serve_step(c->serve, 100);
    }
    tcs_serve_attach(c->serve, c->collector);
    say(c, "tracyc-capture: serving a Tracy server (protocol %u); recording the clients\n",
        tcs_serve_protocol(c->serve));
    return 0;
}

/* --serve, once the trace has finished: the last items, Terminate, and the server's last
 * queries. 0 when the server has everything, -1 after saying why not. */
static int serve_finish(struct capture *c)
{
    if (!c->serve)
        return 0;
    if (!tcs_serve_gone(c->serve))
        tcs_serve_finish(c->serve);
    while (!tcs_serve_done(c->serve))
        tcs_serve_step(c->serve, 100);
    if (!tcs_serve_why(c->serve)[0])
        return 0;
    fprintf(stderr, "tracyc-capture: the Tracy server may not have everything: %s\n", tcs_serve_why(c->serve));
    return -1;
}

/* Records until the clients are done, the user stops, or the time limit. */
static void record(struct capture *c, double time_limit)
{
    double end = time_limit > 0 ? tcs_now_s() + time_limit : 0;
    int stopped = 0;
    while (stopped ? tcs_collector_live(c->collector) > 0 : tcs_collector_open(c->collector)) {
        if (!stopped && (stop_requested || (end > 0 && tcs_now_s() >= end) || expected_done(c))) {
            char why[512];
            size_t clients = tcs_collector_client_count(c->collector);
            if (stop_requested)
                snprintf(why, sizeof why, clients ? "stopped by the user" : "stopped before a client connected");
            else if (end > 0 && tcs_now_s() >= end && c->single && !clients)
                snprintf(why, sizeof why, "no client connected to %s port %u within the time limit of %g s", c->host,
                         c->port, c->args->seconds);
            else if (end > 0 && tcs_now_s() >= end)
                snprintf(why, sizeof why, "time limit of %g s reached", c->args->seconds);
            else
                snprintf(why, sizeof why, "the %ld clients expected have finished", c->args->expect);
            tcs_collector_stop(c->collector, why);
            stopped = 1;
        }
        struct pollfd fds[2];
        size_t nfds = c->serve ? tcs_serve_pollfds(c->serve, fds, 2) : 0;
        if (tcs_collector_step_with(c->collector, 100, fds, nfds) != 0) {
            fprintf(stderr, "tracyc-capture: poll: %s\n", strerror(errno));
            tcs_collector_stop(c->collector, "the capture failed");
            stopped = 1;
        }
        if (c->serve) {
            tcs_serve_handle(c->serve, fds, nfds);
            if (!stopped && tcs_serve_gone(c->serve)) {
                say(c, "tracyc-capture: the Tracy server: %s\n", tcs_serve_why(c->serve));
                tcs_collector_stop(c->collector, "the Tracy server went away");
                stopped = 1;
            }
        }
        status(c);
    }
    if (c->status_line)
        fputs("\r\033[K", stderr);
}

/* Every client's capture complete: EXIT_COMPLETE; else EXIT_INCOMPLETE, saying which (one
 * client that failed: EXIT_ERROR, as tracy-capture). Call after tcs_collector_finish. */
static int clients_status(const struct capture *c)
{
    int status = EXIT_COMPLETE;
    for (size_t i = 0; i < tcs_collector_client_count(c->collector); i++) {
        const struct tcs_client *client = tcs_collector_client(c->collector, i);
        const struct tct_source *src = tct_trace_source(c->trace, (uint32_t)client->source);
        if (!src->incomplete)
            continue;
        status = EXIT_INCOMPLETE;
        if (c->single && client->result == TCS_ERROR) {
            explain_error(client->why);
            status = EXIT_ERROR;
        } else if (!c->single) {
            char label[TCT_SOURCE_LABEL];
            fprintf(stderr, "tracyc-capture: the capture of %s is incomplete: %s\n", client_label(c, client, label),
                    src->incomplete);
        }
    }
    return status;
}

static int write_outputs(struct capture *c, struct tct_output **outputs)
{
    const struct args *a = c->args;
    tcs_collector_finish(c->collector);
    int status = clients_status(c);
    tct_trace_finish(c->trace);
    if (serve_finish(c) != 0 && status == EXIT_COMPLETE)
        status = EXIT_INCOMPLETE;
    int stdout_written = 0, failed = 0;
    for (size_t i = 0; i < a->output_count || (i == 0 && !a->output_count); i++) {
        char err[512];
        struct tct_output *out = outputs[i];
        outputs[i] = NULL;
        if (tct_output_close(out, err, sizeof err) != 0) {
            fprintf(stderr, "tracyc-capture: %s\n", err);
            failed = 1;
        }
        stdout_written |= !a->output_count || strcmp(a->outputs[i], "-") == 0;
    }
    const struct tcs_client *first = tcs_collector_client(c->collector, 0);
    if (failed) /* said above; the other outputs are written: the capture is short of one */
        return status == EXIT_ERROR ? EXIT_ERROR : EXIT_INCOMPLETE;
    if (!stdout_written && c->single)
        short_summary_one(c, first, status == EXIT_COMPLETE);
    else if (!stdout_written)
        short_summary_many(c, status == EXIT_COMPLETE);
    else if (c->single && tcd_decoder_version(first->dec) != TCW_PROTOCOL_VERSION) {
        char protocol[64];
        fprintf(stderr, "tracyc-capture: the client speaks %s\n", protocol_name(first->dec, protocol, sizeof protocol));
    }
    return status;
}

int main(int argc, char **argv)
{
    struct args a;
    if (capture_args_parse(argc, argv, &a) != 0 || capture_args_check_outputs(&a) != 0)
        return EXIT_ERROR;

    struct capture c = {.trace = tct_trace_new(),
                        .args = &a,
                        .single = capture_args_single(&a),
                        .host = a.target_count ? a.targets[0].host : "127.0.0.1",
                        .port = a.target_count && a.targets[0].port ? a.targets[0].port : a.port,
                        .status_line = isatty(STDERR_FILENO)};
    raise_descriptor_limit();
    const struct tcs_collector_options options = {
        .trace = c.trace, .on_client = on_client, .on_end = on_end, .on_accept_failed = on_accept_failed, .user = &c};
    c.collector = c.trace ? tcs_collector_new(&options) : NULL;
    if (c.collector && a.serve)
        c.serve = tcs_serve_new(c.trace);
    struct tct_output *outputs[CAPTURE_MAX_OUTPUTS] = {0};
    char err[512] = "out of memory";
    int failed = !c.collector || (a.serve && !c.serve);
    for (size_t i = 0; !failed && (i < a.output_count || (i == 0 && !a.output_count)); i++)
        failed = !(outputs[i] = tct_output_open(c.trace, a.output_count ? a.outputs[i] : "-", &a.csv, err, sizeof err));
    if (failed)
        fprintf(stderr, "tracyc-capture: %s\n", err);

    /* Stop cleanly and still write everything received. */
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    double waited = 0;
    if (!failed && a.pid) {
        if (c.status_line)
            fprintf(stderr, "Waiting for process %d to listen...", (int)a.pid);
        c.port = port_of_process(&a, &waited);
        if (c.status_line)
            fputs("\r\033[K", stderr);
        failed = !c.port;
    }
    if (!failed && c.status_line && c.single)
        fprintf(stderr, "Connecting to %s:%u...", c.host, c.port);
    failed = failed || (c.serve && serve_start(&c, &a, a.seconds) != 0) || add_sources(&c, &a) != 0;
    int status = EXIT_ERROR;
    if (!failed) {
        record(&c, a.seconds > 0 ? (a.seconds > waited + 1e-3 ? a.seconds - waited : 1e-3) : 0);
        if (!tcs_collector_client_count(c.collector)) {
            /* Only a capture that never had a client (no connection, refused handshake)
             * writes nothing. */
            if (!c.failure[0] && stop_requested)
                snprintf(c.failure, sizeof c.failure, "stopped before a client connected");
            else if (!c.failure[0])
                snprintf(c.failure, sizeof c.failure, "no client connected within the time limit of %g s", a.seconds);
            explain_error(c.failure);
            serve_finish(&c);
        } else {
            status = write_outputs(&c, outputs);
        }
    }
    for (size_t i = 0; i < CAPTURE_MAX_OUTPUTS; i++)
        tct_output_free(outputs[i]);
    tcs_serve_free(c.serve); /* before the collector: its answers come from the decoders */
    tct_trace_free(c.trace);
    tcs_collector_free(c.collector);
    return status;
}

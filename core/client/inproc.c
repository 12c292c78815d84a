/* inproc.c - the in-process capture. The worker talks to it as to a TCP server: the
 * handshake goes in through send(), frames through send_items() (their items, not
 * compressed: both ends are in this process), queries come back through recv(). Both
 * ends run on the worker thread, so no locking is needed. The decoder's events go into a
 * trace whose sinks are those of the output (trace/export.h): nothing else of the capture
 * is kept. */
#include "client/inproc.h"

#include "capture/clock.h"
#include "capture/collector.h"
#include "capture/sockets.h"
#include "trace/export.h"
#include "trace/names.h"
#include "trace/trace.h"
#include "util/array.h"
#include "decode/decode.h"
#include "wire/protocol.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tc_inproc {
    struct tc_transport base;
    char *path;
    struct tcd_decoder *dec;
    struct tct_trace *trace;
    struct tct_output *output;
    char why[320];    /* why the capture is incomplete, "" when it is not */
    uint8_t *pending; /* query bytes not yet read by the client */
    size_t pending_len, pending_cap, pending_read;
    int handshake_sent;
    /* The program's children, recorded into the same trace (tc_inproc_collect), on the
     * program's clock: the line through its readings of the clock extension (§28), kept
     * from the first one on, which comes with the handshake, before there are children. */
    struct tcs_collector *children;
    struct tcs_clock program;
};

/* The trace's clock is the program's: a reading pairs its time on it with
 * CLOCK_MONOTONIC_RAW; the line through the first and the latest is the reference the
 * children are put on. From the first reading on, so that a child's events lie between
 * readings: placed from a later first reading, they would be placed by extrapolation,
 * where an error in the latest reading's rate grows with the distance. */
static void give_reference(struct tc_inproc *ip)
{
    struct tcs_clock_line line;
    if (!ip->children || !ip->program.kept_count || tcs_clock_line(&ip->program, &line) != 0)
        return;
    tcs_clock_bound_error(&line, tct_trace_source(ip->trace, 0)->last_time);
    tcs_collector_set_reference(ip->children, &line);
}

/* Out of line: its frame would be set up for every event otherwise. */
__attribute__((noinline)) static void on_clock_sync(struct tc_inproc *ip, const struct tcd_event *ev)
{
    tct_trace_on_event(ip->trace, 0, ev);
    /* the program's own: its raw clock is the children's collector's (this process's) */
    tcs_clock_same_host_reading(&ip->program, ev->time, (int64_t)ev->value);
    give_reference(ip);
}

static void on_event(void *user, const struct tcd_event *ev)
{
    struct tc_inproc *ip = user;
    if (ev->kind == TCD_CLOCK_SYNC)
        on_clock_sync(ip, ev);
    else
        tct_trace_on_event(ip->trace, 0, ev); /* can be a jump: the trace returns to the decoder */
}

static void push_bytes(struct tc_inproc *ip, const uint8_t *data, size_t len)
{
    if (ip->pending_read == ip->pending_len)
        ip->pending_read = ip->pending_len = 0;
    uint8_t *grown = tcu_grow(NULL, ip->pending, &ip->pending_cap, ip->pending_len + len, 1);
    if (!grown)
        return;
    ip->pending = grown;
    memcpy(ip->pending + ip->pending_len, data, len);
    ip->pending_len += len;
}

static void on_query(void *user, const uint8_t packet[13])
{
    push_bytes(user, packet, 13);
}

static int fed(struct tc_inproc *ip, enum tcd_state s)
{
    if (s == TCD_STATE_FAILED)
        return -1;
    if (s == TCD_STATE_DONE && ip->pending_read == ip->pending_len) {
        static const uint8_t terminate[13] = {TCW_QUERY_TERMINATE};
        push_bytes(ip, terminate, sizeof terminate);
    }
    return 0;
}

static int ip_send(struct tc_transport *t, const void *data, size_t len)
{
    struct tc_inproc *ip = (struct tc_inproc *)t;
    return fed(ip, tcd_decoder_feed(ip->dec, data, len));
}

/* The client's frames come uncompressed: no LZ4 on either end of the same thread. */
static int ip_send_items(struct tc_transport *t, const void *items, size_t len)
{
    struct tc_inproc *ip = (struct tc_inproc *)t;
    return fed(ip, tcd_decoder_feed_items(ip->dec, items, len));
}

/* The most frequent events, zone begins and ends, skip the items altogether. */
static int ip_zone_begin(struct tc_transport *t, int64_t time, uint64_t srcloc)
{
    struct tc_inproc *ip = (struct tc_inproc *)t;
    return fed(ip, tcd_decoder_zone_begin(ip->dec, time, srcloc));
}

static int ip_zone_end(struct tc_transport *t, int64_t time)
{
    struct tc_inproc *ip = (struct tc_inproc *)t;
    return fed(ip, tcd_decoder_zone_end(ip->dec, time));
}

static long ip_recv(struct tc_transport *t, void *buf, size_t cap, int timeout_ms)
{
    struct tc_inproc *ip = (struct tc_inproc *)t;
    (void)timeout_ms; /* both ends run on this thread: waiting cannot bring more bytes */
    if (!ip->handshake_sent) {
        uint8_t hello[12];
        tcd_handshake_request(hello);
        push_bytes(ip, hello, sizeof hello);
        ip->handshake_sent = 1;
    }
    if (tcd_decoder_state(ip->dec) == TCD_STATE_FAILED)
        return -1;
    size_t n = ip->pending_len - ip->pending_read;
    if (n > cap)
        n = cap;
    memcpy(buf, ip->pending + ip->pending_read, n);
    ip->pending_read += n;
    return (long)n;
}

static void ip_close(struct tc_transport *t)
{
    (void)t; /* the capture outlives the connection: tc_inproc_finish writes it */
}

int tc_inproc_check_path(const char *path, char *err, size_t errlen)
{
    return tct_export_check_path(path, err, errlen);
}

char *tc_inproc_absolute_path(const char *path)
{
    char cwd[4096];
    if (strcmp(path, "-") == 0 || path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return strdup(path);
    size_t len = strlen(cwd) + strlen(path) + 2;
    char *abs = malloc(len);
    if (abs)
        snprintf(abs, len, "%s/%s", cwd, path);
    return abs;
}

struct tc_inproc *tc_inproc_open(const char *path, char *err, size_t errlen)
{
    struct tc_inproc *ip = calloc(1, sizeof *ip);
    if (!ip) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    err[0] = '\0';
    static const struct tcd_callbacks callbacks = {on_event, on_query};
    ip->base.send = ip_send;
    ip->base.send_items = ip_send_items;
    ip->base.zone_begin = ip_zone_begin;
    ip->base.zone_end = ip_zone_end;
    ip->base.recv = ip_recv;
    ip->base.close = ip_close;
    ip->base.fd = -1; /* its queries come while the worker sends, never in between */
    tcs_clock_init(&ip->program, 0);
    ip->path = strdup(path);
    ip->dec = tcd_decoder_new(&callbacks, ip, NULL);
    ip->trace = tct_trace_new();
    struct tct_names names;
    if (ip->dec)
        tct_names_from_decoder(&names, ip->dec);
    if (!ip->path || !ip->dec || !ip->trace || tct_trace_add_source(ip->trace, &names, 0) != 0 ||
        !(ip->output = tct_output_open(ip->trace, path, NULL, err, errlen))) {
        if (ip->trace && !ip->output && !err[0])
            snprintf(err, errlen, "out of memory");
        tc_inproc_finish(ip);
        return NULL;
    }
    return ip;
}

struct tc_transport *tc_inproc_transport(struct tc_inproc *ip)
{
    return &ip->base;
}

int tc_inproc_collect(struct tc_inproc *ip)
{
    if (!ip->children) {
        ip->children = tcs_collector_new(&(struct tcs_collector_options){.trace = ip->trace});
        give_reference(ip);
    }
    return ip->children ? 0 : -1;
}

int tc_inproc_takes_children(const struct tc_inproc *ip)
{
    return ip->children && ip->program.kept_count;
}

void tc_inproc_adopt(struct tc_inproc *ip, int fd)
{
    tcs_collector_adopt(ip->children, fd, "127.0.0.1", 0); /* closes fd when it cannot */
}

int tc_inproc_step(struct tc_inproc *ip, int timeout_ms)
{
    return tc_inproc_step_with(ip, timeout_ms, NULL, 0);
}

int tc_inproc_step_with(struct tc_inproc *ip, int timeout_ms, struct pollfd *fds, size_t n)
{
    if (!ip->children) {
        if (n)
            poll(fds, n, timeout_ms);
        return 0;
    }
    tcs_collector_step_with(ip->children, timeout_ms, fds, n);
    return (int)tcs_collector_live(ip->children);
}

/* At the end: children still connected are told to stop (their later events are theirs
 * alone), and those that do not finish within CHILDREN_STOP_MS are cut. */
#define CHILDREN_STOP_MS 2000

static void finish_children(struct tc_inproc *ip)
{
    tcs_collector_stop(ip->children, "the program that collected it ended first");
    double end = tcs_now_s() + CHILDREN_STOP_MS / 1000.0;
    while (tcs_collector_live(ip->children) && tcs_now_s() < end)
        tcs_collector_step(ip->children, 10);
    tcs_collector_finish(ip->children);
}

int tc_inproc_finish(struct tc_inproc *ip)
{
    int rc = 0;
    if (ip->children && ip->output)
        finish_children(ip);
    if (ip->output) {
        /* A failed decoder stopped reading: what came after is missing, and the file says so. */
        if (tcd_decoder_state(ip->dec) == TCD_STATE_FAILED) {
            snprintf(ip->why, sizeof ip->why, "the capture failed, later events are missing: %s",
                     tcd_decoder_error(ip->dec));
            fprintf(stderr, "tracyc: in-process capture: %s\n", ip->why);
            tct_trace_source_incomplete(ip->trace, 0, ip->why);
            rc = -1;
        }
        struct tct_names names;
        tct_names_from_decoder(&names, ip->dec); /* the welcome has come since */
        tct_trace_set_source_names(ip->trace, 0, &names);
        tct_trace_finish(ip->trace);
        char err[512];
        struct tct_output *output = ip->output;
        ip->output = NULL;
        if (tct_output_close(output, err, sizeof err) != 0) {
            /* A summary for a stdout whose reader has gone (prog | head) is nobody's loss. */
            if (!(errno == EPIPE && strcmp(ip->path, "-") == 0))
                fprintf(stderr, "tracyc: %s\n", err);
            rc = -1;
        }
    }
    tct_output_free(ip->output);
    if (ip->children) /* after the outputs: the children's names live in its decoders */
        tcs_collector_free(ip->children);
    if (ip->trace)
        tct_trace_free(ip->trace);
    if (ip->dec)
        tcd_decoder_free(ip->dec);
    free(ip->pending);
    free(ip->path);
    free(ip);
    return rc;
}

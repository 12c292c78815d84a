/* A client placed by clock probes that never answers its probe, then terminates, ends its
 * capture by itself with a collector stepped untimed (tcs_collector_step(c, -1)), as an owner
 * that waits for nothing but sockets steps it.
 *
 * The probe is given up after TCS_CLOCK_GIVE_UP_NS; the decoder, awaiting nothing else after
 * the client's Terminate, is then done without new data (tcd_decoder_probe_lost), and its
 * session ends at that step. Before, probe_clock (core/capture/collector.c) returned -1 there
 * (the done decoder refuses the next probe), so the step's poll waited forever for a client
 * that sends nothing more: the session never ended. tracyc-capture steps every 100 ms and did
 * not show it. The hang guard: a phase of 60 s (test_phase.h).
 *
 * The client is a fake on a thread of the test: it dials out to the collector's listening
 * socket and replays tests/c/fixtures/streams/py_pipeline.stream (protocol 82; its clock
 * readings are another boot's or hours old, so the collector places it by probes; it holds
 * its answers to every query but a probe, in the order the collector asks them). It sends the
 * stream frame by frame, reading the collector's queries between frames, until a clock probe
 * comes; then the rest, the Terminate's frame with it; then it reads and drops every query,
 * answering none, until the collector closes the connection. As SilentToProbes in
 * tests/e2e/test_collect.py. */
#include "test_phase.h"
#include "test_util.h"

#include "capture/clock.h"
#include "capture/collector.h"
#include "capture/session.h"
#include "decode/decode.h"
#include "trace/trace.h"
#include "util/monotonic.h"
#include "wire/protocol.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define WELCOME_SIZE 1170 /* py_pipeline's welcome, protocol 82 */
#define ZONES 3020        /* py_pipeline's zones */

/* The fake client: its stream, and what it saw (read by the main thread once it is joined,
 * but for the atomics, which the watchdog's report reads too). */
struct client {
    uint16_t port;
    const uint8_t *data; /* the stream after its protocol byte: handshake byte, welcome, frames */
    size_t len;
    uint64_t received;       /* bytes of queries read */
    atomic_int parts_sent;   /* the handshake and welcome, then each frame */
    atomic_int probed_after; /* parts sent when the probe came; -1 before */
    atomic_int drained;      /* the collector closed the connection */
    int parts;               /* of the stream */
    char failed[256];        /* what went wrong, "" nothing */
};

/* What the collector said of the client's end (on_end, on the main thread). */
struct ended {
    atomic_int count;
    int source;
    int result;
    char why[256];
};

static atomic_int steps;

/* The length of the part of the stream at `at`: the handshake byte and welcome first, then
 * each LZ4 frame whole (a u32 little-endian compressed size, then that many bytes); 0 when it
 * runs past the stream's end. */
static size_t part_len(const uint8_t *data, size_t len, size_t at)
{
    if (at == 0)
        return len >= 1 + WELCOME_SIZE ? 1 + WELCOME_SIZE : 0;
    if (len - at < 4)
        return 0;
    uint32_t size =
        (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 | (uint32_t)data[at + 2] << 16 | (uint32_t)data[at + 3] << 24;
    return size <= len - at - 4 ? 4 + (size_t)size : 0;
}

static int send_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads the collector's queries for at most wait_ms: 1 once a clock probe has come (every
 * query is TCW_QUERY_SIZE bytes, its type first), 0 when none came in time, -1 when the
 * connection ended. */
static int probed(struct client *cl, int fd, int wait_ms)
{
    int64_t end = tcu_monotonic_ns() + wait_ms * 1000000LL;
    for (;;) {
        int64_t left = end - tcu_monotonic_ns();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = left > 0 ? poll(&p, 1, (int)(left / 1000000) + 1) : 0;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        uint8_t buf[4096];
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        int probe = 0;
        for (ssize_t i = 0; i < n; i++)
            probe |= (cl->received + (uint64_t)i) % TCW_QUERY_SIZE == 0 && buf[i] == TCW_QUERY_TRACYC_CLOCK_PROBE;
        cl->received += (uint64_t)n;
        if (probe)
            return 1;
    }
}

static void converse(struct client *cl, int fd)
{
    uint8_t hello[TCW_SHIBBOLETH_SIZE + 4];
    size_t got = 0;
    while (got < sizeof hello) {
        ssize_t n = recv(fd, hello + got, sizeof hello - got, 0);
        if (n <= 0) {
            snprintf(cl->failed, sizeof cl->failed, "the collector's hello cut off after %zu bytes", got);
            return;
        }
        got += (size_t)n;
    }
    uint32_t protocol;
    memcpy(&protocol, hello + TCW_SHIBBOLETH_SIZE, 4);
    if (memcmp(hello, TCW_SHIBBOLETH, TCW_SHIBBOLETH_SIZE) != 0 || protocol != 82) {
        snprintf(cl->failed, sizeof cl->failed, "not the hello of protocol 82 (%u)", protocol);
        return;
    }
    /* Every part but the last (the Terminate's), until the probe comes. */
    size_t at = 0;
    int sent = 0, seen = 0;
    while (!seen && sent + 1 < cl->parts) {
        size_t n = part_len(cl->data, cl->len, at);
        if (send_all(fd, cl->data + at, n) != 0) {
            snprintf(cl->failed, sizeof cl->failed, "sending part %d: %s", sent, strerror(errno));
            return;
        }
        at += n;
        atomic_store(&cl->parts_sent, ++sent);
        seen = probed(cl, fd, 50);
        if (seen < 0) {
            snprintf(cl->failed, sizeof cl->failed, "the collector closed the connection after part %d", sent);
            return;
        }
    }
    if (!seen && probed(cl, fd, 30000) != 1) {
        snprintf(cl->failed, sizeof cl->failed, "no clock probe came before the Terminate's frame");
        return;
    }
    atomic_store(&cl->probed_after, sent);
    if (send_all(fd, cl->data + at, cl->len - at) != 0) {
        snprintf(cl->failed, sizeof cl->failed, "sending the rest: %s", strerror(errno));
        return;
    }
    atomic_store(&cl->parts_sent, cl->parts);
    uint8_t buf[4096];
    for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) != 0;)
        if (n < 0 && errno != EINTR)
            break; /* reset: closed too */
    atomic_store(&cl->drained, 1);
}

static void *client_thread(void *arg)
{
    struct client *cl = arg;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(cl->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0)
        snprintf(cl->failed, sizeof cl->failed, "connecting to the collector: %s", strerror(errno));
    else
        converse(cl, fd);
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void on_end(void *user, const struct tcs_client *client)
{
    struct ended *e = user;
    e->source = client->source;
    e->result = client->result;
    snprintf(e->why, sizeof e->why, "%s", client->why ? client->why : "");
    atomic_fetch_add(&e->count, 1);
}

struct watched {
    struct client *cl;
    struct ended *ended;
};

static void describe(FILE *out, void *user)
{
    const struct watched *w = user;
    fprintf(out,
            "collector steps: %d; the client sent %d of %d parts, the probe came after %d, drained: %d; "
            "connections ended: %d\n",
            atomic_load(&steps), atomic_load(&w->cl->parts_sent), w->cl->parts, atomic_load(&w->cl->probed_after),
            atomic_load(&w->cl->drained), atomic_load(&w->ended->count));
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "fixtures/streams/py_pipeline.stream";
    size_t len = 0;
    uint8_t *stream = tt_read_bytes(path, &len);
    tt_check(stream && len > 1 + 1 + WELCOME_SIZE && stream[0] == 82, "%s: a recorded stream of protocol 82", path);
    if (!stream || len <= 1 + 1 + WELCOME_SIZE)
        return tt_finish("test_collector_probe_lost");

    struct client cl = {.data = stream + 1, .len = len - 1};
    atomic_init(&cl.parts_sent, 0);
    atomic_init(&cl.probed_after, -1);
    atomic_init(&cl.drained, 0);
    for (size_t at = 0, n; at < cl.len; at += n, cl.parts++)
        if ((n = part_len(cl.data, cl.len, at)) == 0)
            break;
    tt_check(cl.parts > 2, "the stream splits into its welcome and %d frames", cl.parts - 1);

    struct ended ended = {.source = -1, .result = -1};
    atomic_init(&ended.count, 0);
    struct tct_trace *trace = tct_trace_new();
    struct tcs_collector *c =
        tcs_collector_new(&(struct tcs_collector_options){.trace = trace, .on_end = on_end, .user = &ended});
    char err[256] = "";
    tt_check(c && tcs_collector_listen(c, NULL, 0, &cl.port, err, sizeof err) == 0, "the collector listens: %s", err);
    pthread_t thread;
    tt_check(pthread_create(&thread, NULL, client_thread, &cl) == 0, "the client's thread starts");

    struct watched w = {&cl, &ended};
    tt_phase_describe(describe, &w);
    tt_phase("stepping the collector untimed (tcs_collector_step(c, -1)) until the client, its probe unanswered, "
             "has ended",
             60);
    int failed_steps = 0;
    while (atomic_load(&ended.count) == 0) {
        failed_steps += tcs_collector_step(c, -1) != 0;
        atomic_fetch_add(&steps, 1);
    }
    tt_phase("joining the client's thread: the collector has closed its connection", 60);
    pthread_join(thread, NULL);
    tt_phase_done();
    tt_phase_describe(NULL, NULL);

    tt_check(cl.failed[0] == 0, "the client: %s", cl.failed[0] ? cl.failed : "no failure");
    int after = atomic_load(&cl.probed_after);
    tt_check(after > 0 && after < cl.parts, "the probe came after %d of %d parts, before the Terminate's frame", after,
             cl.parts);
    tt_check(atomic_load(&cl.drained), "the collector closed the client's connection");
    tt_check(failed_steps == 0, "every step polled (%d failed)", failed_steps);
    tt_check(atomic_load(&ended.count) == 1 && ended.source == 0, "one connection ended: the client (source %d)",
             ended.source);
    tt_check(ended.result == TCS_COMPLETE, "its capture is complete (result %d: %s)", ended.result, ended.why);
    const struct tcs_client *client = tcs_collector_client_count(c) == 1 ? tcs_collector_client(c, 0) : NULL;
    tt_check(client && client->clock == TCS_CLOCK_PROBES, "it was placed by probes (method %d)",
             client ? (int)client->clock : -1);
    tt_check(tcs_collector_live(c) == 0, "no connection is live");
    struct tcd_stats stats;
    tcs_collector_stats(c, &stats);
    tt_check(stats.zones == ZONES, "all of its %d zones decoded (%llu)", ZONES, (unsigned long long)stats.zones);

    tcs_collector_finish(c);
    tcs_collector_free(c);
    tct_trace_free(trace);
    free(stream);
    return tt_finish("test_collector_probe_lost");
}

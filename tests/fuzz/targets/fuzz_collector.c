/* fuzz_collector - two clients at once into one trace through the collector
 * (core/capture/collector.h): each on a socketpair the collector adopts, as it adopts the
 * connections of clients that dial out, stepped until both have ended; then the trace is
 * finished as tracyc-capture finishes it and written as Chrome JSON (which must parse) and
 * the summary. A hostile client must fail alone, never crash the capture or the other.
 *
 * Input:
 *   u8  flags: bit 0 (1): client A's bytes are a whole stream from its first byte (status,
 *       welcome, frames), not item-frame input (fuzz_util.h) after a good handshake; bit 1
 *       (2): the same for client B; bit 2 (4): B's bytes are fed first
 *   u16 the length of A's part (little endian; cut to fit), then A's part, then B's
 */
#include "fuzz_util.h"
#include "json_check.h"

#include "capture/collector.h"
#include "trace/export.h"
#include "trace/trace.h"
#include "wire/versions.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One client's side of its socketpair: what is left to send. */
struct client {
    int fd;
    uint8_t *bytes;
    size_t len, sent;
};

static uint8_t *client_bytes(const uint8_t *part, size_t len, int raw, size_t *out_len)
{
    if (raw) {
        uint8_t *copy = malloc(len ? len : 1);
        if (!copy)
            abort();
        memcpy(copy, part, len);
        *out_len = len;
        return copy;
    }
    size_t frames_len;
    uint8_t *frames = fz_items_to_stream(part, len, &frames_len);
    uint8_t *stream = malloc(FZ_HANDSHAKE_MAX + frames_len);
    if (!stream)
        abort();
    size_t hs = fz_handshake(stream, FZ_HANDSHAKE_MAX, TCW_V82);
    if (frames_len)
        memcpy(stream + hs, frames, frames_len);
    free(frames);
    *out_len = hs + frames_len;
    return stream;
}

/* Sends what the socket takes, reads (and drops) the hello and queries; closes the
 * writing side once everything is out. */
static void pump(struct client *c)
{
    uint8_t sink[4096];
    while (recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
        ;
    while (c->sent < c->len) {
        ssize_t n = send(c->fd, c->bytes + c->sent, c->len - c->sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                c->sent = c->len; /* the collector hung up */
            return;
        }
        c->sent += (size_t)n;
    }
    if (c->sent == c->len) {
        shutdown(c->fd, SHUT_WR);
        c->sent = c->len + 1; /* done */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len < 3)
        return 0;
    uint8_t flags = data[0];
    size_t a_len = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3;
    len -= 3;
    if (a_len > len)
        a_len = len;

    struct tct_trace *trace = tct_trace_new();
    struct tcd_limits limits = {.max_memory = (size_t)64 << 20};
    struct tcs_collector *collector =
        tcs_collector_new(&(struct tcs_collector_options){.trace = trace, .limits = &limits});
    struct tct_output *json = tct_output_new(trace, TCT_FORMAT_CHROME, NULL);
    struct tct_output *summary = tct_output_new(trace, TCT_FORMAT_SUMMARY, NULL);
    if (!trace || !collector || !json || !summary)
        abort();
    struct client clients[2];
    for (int i = 0; i < 2; i++) {
        int pair[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
            abort();
        fcntl(pair[1], F_SETFL, O_NONBLOCK);
        const uint8_t *part = i == 0 ? data : data + a_len;
        size_t part_len = i == 0 ? a_len : len - a_len;
        clients[i] = (struct client){.fd = pair[0]};
        clients[i].bytes = client_bytes(part, part_len, (flags >> i) & 1, &clients[i].len);
        if (tcs_collector_adopt(collector, pair[1], "fuzz", (uint16_t)i) != 0)
            abort();
    }
    int first = (flags >> 2) & 1;
    pump(&clients[first]);
    pump(&clients[!first]);
    for (int steps = 0; tcs_collector_live(collector) > 0; steps++) {
        if (tcs_collector_step(collector, 0) != 0)
            abort();
        pump(&clients[first]);
        pump(&clients[!first]);
        if (steps == 100000) { /* a session that waits for nothing: the capture ends it */
            tcs_collector_stop(collector, "fuzz input ended");
            steps = 0;
        }
    }
    tcs_collector_finish(collector);
    tct_trace_finish(trace);

    char *text = NULL;
    size_t text_len = 0, where;
    FILE *f = open_memstream(&text, &text_len);
    if (!f)
        abort();
    int rc = tct_output_write_to(json, f);
    fclose(f);
    const char *bad = rc == 0 ? json_check(text, text_len, &where) : NULL;
    if (bad) {
        fprintf(stderr, "Chrome export of two clients is not valid JSON: %s at byte %zu of %zu\n", bad, where,
                text_len);
        abort();
    }
    free(text);
    FILE *devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    tct_output_write_to(summary, devnull);
    fclose(devnull);

    tct_output_free(json);
    tct_output_free(summary);
    tct_trace_free(trace);
    tcs_collector_free(collector);
    for (int i = 0; i < 2; i++) {
        close(clients[i].fd);
        free(clients[i].bytes);
    }
    return 0;
}

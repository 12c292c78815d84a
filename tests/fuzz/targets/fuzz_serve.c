/* fuzz_serve - a hostile Tracy server against tracyc-capture --serve's proxy
 * (core/capture/serve.h): a client's stream is recorded by the collector while the proxy
 * serves a server that sends the fuzz input's query bytes. Neither the server's queries
 * (any type, any id: ids the proxy never gave, ids of processes that do not exist, queries
 * that come before anything was sent) nor the client's stream may crash the proxy or make
 * it read out of bounds; each query gets its reply, the capture ends.
 *
 * Input:
 *   u8  flags: bits 0-2: the server's protocol (a version index of wire/versions.h, modulo
 *       their number); bit 3 (8): the client's bytes are a whole stream from its first byte,
 *       not item-frame input (fuzz_util.h) after a good handshake
 *   u16 the length of the client's part (little endian; cut to fit), then the client's
 *       part, then the server's bytes after its hello (queries, 13 bytes each)
 */
#include "fuzz_util.h"

#include "capture/collector.h"
#include "capture/serve.h"
#include "trace/trace.h"
#include "util/bytes.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The server: its hello and queries sent, then everything the proxy sends read and dropped
 * until the connection closes (a thread: the proxy sends as a client does, waiting for a
 * server that reads). */
struct server {
    int fd;
    uint8_t *bytes;
    size_t len;
};

static void *serve_thread(void *arg)
{
    struct server *sv = arg;
    for (size_t sent = 0; sent < sv->len;) {
        ssize_t n = send(sv->fd, sv->bytes + sent, sv->len - sent, MSG_NOSIGNAL);
        if (n <= 0 && errno != EINTR)
            break;
        if (n > 0)
            sent += (size_t)n;
    }
    uint8_t sink[65536];
    while (recv(sv->fd, sink, sizeof sink, 0) > 0)
        ;
    return NULL;
}

/* The client: as fuzz_collector's, over a socketpair the collector adopts. */
struct client {
    int fd;
    uint8_t *bytes;
    size_t len, sent;
};

static void pump(struct client *c)
{
    uint8_t sink[4096];
    while (recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) > 0)
        ;
    while (c->sent < c->len) {
        ssize_t n = send(c->fd, c->bytes + c->sent, c->len - c->sent, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                c->sent = c->len;
            return;
        }
        c->sent += (size_t)n;
    }
    if (c->sent == c->len) {
        shutdown(c->fd, SHUT_WR);
        c->sent = c->len + 1;
    }
}

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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    if (len < 3)
        return 0;
    uint8_t flags = data[0];
    size_t client_len = (size_t)data[1] | (size_t)data[2] << 8;
    data += 3;
    len -= 3;
    if (client_len > len)
        client_len = len;

    struct tct_trace *trace = tct_trace_new();
    struct tcd_limits limits = {.max_memory = (size_t)64 << 20};
    struct tcs_collector *collector =
        tcs_collector_new(&(struct tcs_collector_options){.trace = trace, .limits = &limits});
    struct tcs_serve *serve = trace ? tcs_serve_new(trace) : NULL;
    if (!trace || !collector || !serve)
        abort();

    /* the server's side: its hello in the chosen version, then the fuzz input's bytes */
    int spair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, spair) != 0)
        abort();
    fcntl(spair[1], F_SETFL, O_NONBLOCK);
    struct server sv = {.fd = spair[0], .len = 12 + len - client_len};
    sv.bytes = malloc(sv.len);
    if (!sv.bytes)
        abort();
    memcpy(sv.bytes, TCW_SHIBBOLETH, TCW_SHIBBOLETH_SIZE);
    tcu_wr32(sv.bytes + TCW_SHIBBOLETH_SIZE, tcw_versions[(flags & 7) % TCW_VERSION_COUNT].protocol);
    memcpy(sv.bytes + 12, data + client_len, len - client_len);
    pthread_t thread;
    if (pthread_create(&thread, NULL, serve_thread, &sv) != 0)
        abort();
    tcs_serve_adopt(serve, spair[1]);
    while (!tcs_serve_connected(serve) && !tcs_serve_gone(serve))
        tcs_serve_step(serve, 10);
    tcs_serve_attach(serve, collector);

    int cpair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, cpair) != 0)
        abort();
    fcntl(cpair[1], F_SETFL, O_NONBLOCK);
    struct client client = {.fd = cpair[0]};
    client.bytes = client_bytes(data, client_len, (flags >> 3) & 1, &client.len);
    if (tcs_collector_adopt(collector, cpair[1], "fuzz", 1) != 0)
        abort();
    pump(&client);
    for (int steps = 0; tcs_collector_live(collector) > 0; steps++) {
        struct pollfd fds[2];
        size_t n = tcs_serve_pollfds(serve, fds, 2);
        if (tcs_collector_step_with(collector, 0, fds, n) != 0)
            abort();
        tcs_serve_handle(serve, fds, n);
        pump(&client);
        if (steps == 100000) { /* a session that waits for nothing: the capture ends it */
            tcs_collector_stop(collector, "fuzz input ended");
            steps = 0;
        }
    }
    tcs_collector_finish(collector);
    tct_trace_finish(trace);
    if (!tcs_serve_gone(serve))
        tcs_serve_finish(serve);
    /* the server's last queries are answered; then it hangs up */
    for (int steps = 0; steps < 100; steps++)
        tcs_serve_step(serve, 0);
    shutdown(spair[0], SHUT_RDWR);
    while (!tcs_serve_done(serve))
        tcs_serve_step(serve, 10);
    pthread_join(thread, NULL);

    tcs_serve_free(serve);
    tct_trace_free(trace);
    tcs_collector_free(collector);
    close(spair[0]);
    close(client.fd);
    free(client.bytes);
    free(sv.bytes);
    return 0;
}

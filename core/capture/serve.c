/* serve.c - the proxy's face (serve.h): a server accepted, its hello, the end. */
#include "capture/serve.h"
#include "capture/serve_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/sockets.h"
#include "util/fd.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define FINAL_QUIET_S 10.0 /* finishing: a server silent this long has what it wants */

struct tcs_serve *tcs_serve_new(struct tct_trace *tr)
{
    struct tcs_serve *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->trace = tr;
    s->listen_fd = s->fd = -1;
    s->sink = serve_sink_new(s);
    if (!s->sink || tct_trace_add_sink(tr, (struct tct_sink *)s->sink) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

void tcs_serve_free(struct tcs_serve *s)
{
    if (!s)
        return;
    if (s->sink)
        serve_sink_detach(s->sink);
    if (s->listen_fd >= 0)
        close(s->listen_fd);
    if (s->fd >= 0)
        close(s->fd);
    if (s->enc_ready)
        tcw_enc_free(&s->enc);
    serve_ids_free(s);
    free(s->gpu_held);
    free(s->queries);
    free(s);
}

void tcs_serve_attach(struct tcs_serve *s, const struct tcs_collector *c)
{
    s->collector = c;
}

int tcs_serve_listen(struct tcs_serve *s, const char *host, uint16_t port, uint16_t *bound, char *err, size_t errlen)
{
    s->listen_fd = tcs_listen(host, port, bound, err, errlen);
    if (s->listen_fd < 0)
        return -1;
    s->state = SERVE_LISTENING;
    return 0;
}

void tcs_serve_adopt(struct tcs_serve *s, int fd)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = fd;
    s->hello_len = 0;
    s->state = SERVE_HELLO;
}

size_t tcs_serve_pollfds(const struct tcs_serve *s, struct pollfd *fds, size_t room)
{
    size_t n = 0;
    if (n < room && s->state == SERVE_LISTENING && tcs_now_s() >= s->accept_paused_until)
        fds[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
    if (n < room && s->fd >= 0)
        fds[n++] = (struct pollfd){.fd = s->fd, .events = POLLIN};
    return n;
}

/* One server at a time: the first that connects. */
static void accept_server(struct tcs_serve *s)
{
    char peer[64];
    uint16_t peer_port;
    int fd = tcs_accept(s->listen_fd, peer, sizeof peer, &peer_port);
    if (fd >= 0)
        tcs_serve_adopt(s, fd);
    else if (tcu_fd_accept_starved(errno))
        s->accept_paused_until = tcs_now_s() + TCU_ACCEPT_PAUSE_MS / 1000.0; /* the caller's timeout tries again */
}

/* This server is not the one: wait for the next (an adopted connection has no next). */
static void next_server(struct tcs_serve *s, const char *why)
{
    if (s->listen_fd < 0) {
        serve_gone(s, why);
        return;
    }
    close(s->fd);
    s->fd = -1;
    s->state = SERVE_LISTENING;
}

/* The server's 12 bytes: a version tracyc speaks gets the handshake (its welcome follows
 * before the first item); any other is refused, and the next server may come. */
static void read_hello(struct tcs_serve *s)
{
    ssize_t n = read(s->fd, s->hello + s->hello_len, sizeof s->hello - s->hello_len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        next_server(s, "the server closed the connection during the handshake");
        return;
    }
    s->hello_len += (size_t)n;
    if (s->hello_len < sizeof s->hello)
        return;
    uint32_t protocol;
    memcpy(&protocol, s->hello + TCW_SHIBBOLETH_SIZE, 4);
    int vi = memcmp(s->hello, TCW_SHIBBOLETH, TCW_SHIBBOLETH_SIZE) == 0 ? tcw_version_index(protocol) : -1;
    if (vi < 0) {
        uint8_t status = TCW_HANDSHAKE_PROTOCOL_MISMATCH;
        if (write(s->fd, &status, 1) != 1) {
            /* it is refused either way */
        }
        next_server(s, "the server speaks a protocol tracyc does not");
        return;
    }
    s->vi = vi;
    if (tcw_enc_init(&s->enc, serve_write, s) != 0) {
        serve_gone(s, "out of memory for the server's connection");
        return;
    }
    tcw_enc_set_version(&s->enc, vi);
    s->enc_ready = 1;
    s->state = SERVE_RUNNING;
    close(s->listen_fd); /* one server */
    s->listen_fd = -1;
}

void tcs_serve_handle(struct tcs_serve *s, const struct pollfd *fds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!fds[i].revents)
            continue;
        if (fds[i].fd == s->listen_fd && s->state == SERVE_LISTENING)
            accept_server(s);
        else if (fds[i].fd == s->fd && s->state == SERVE_HELLO)
            read_hello(s);
        else if (fds[i].fd == s->fd && s->fd >= 0)
            serve_receive(s);
    }
    if (s->state != SERVE_RUNNING && s->state != SERVE_FINISHING)
        return;
    if (serve_answer(s)) { /* the server's Terminate */
        serve_gone(s, s->state == SERVE_FINISHING ? "" : "the server ended the capture");
        return;
    }
    if (s->enc_ready && s->welcome_sent && tcw_enc_flush(&s->enc) != 0)
        serve_gone(s, "the connection to the server failed");
}

void tcs_serve_step(struct tcs_serve *s, int timeout_ms)
{
    struct pollfd fds[2];
    size_t n = tcs_serve_pollfds(s, fds, 2);
    if (poll(fds, n, timeout_ms) < 0)
        return;
    tcs_serve_handle(s, fds, n);
    if (s->state == SERVE_FINISHING && tcs_now_s() - s->quiet_since > FINAL_QUIET_S)
        serve_gone(s, "the server did not confirm the end within 10 s");
}

int tcs_serve_connected(const struct tcs_serve *s)
{
    return s->state == SERVE_RUNNING || s->state == SERVE_FINISHING;
}

uint32_t tcs_serve_protocol(const struct tcs_serve *s)
{
    return s->enc_ready ? tcw_versions[s->vi].protocol : 0;
}

int tcs_serve_gone(const struct tcs_serve *s)
{
    return s->state == SERVE_GONE;
}

/* Like a client at its exit: Terminate, then the queries until the server's own. */
void tcs_serve_finish(struct tcs_serve *s)
{
    if (s->state != SERVE_RUNNING) {
        if (s->state != SERVE_GONE)
            serve_gone(s, "no server connected");
        return;
    }
    serve_welcome(s);
    serve_records_flush(s);
    if (serve_answer(s)) {
        serve_gone(s, "the server ended the capture");
        return;
    }
    tcw_enc_byte(&s->enc, TCW_Terminate);
    if (tcw_enc_flush(&s->enc) != 0) {
        serve_gone(s, "the connection to the server failed");
        return;
    }
    s->state = SERVE_FINISHING;
    s->quiet_since = tcs_now_s();
}

int tcs_serve_done(const struct tcs_serve *s)
{
    return s->state == SERVE_GONE;
}

const char *tcs_serve_why(const struct tcs_serve *s)
{
    return s->why;
}

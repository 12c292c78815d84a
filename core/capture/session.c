/* session.c - connect to a Tracy client and pump bytes between it and a decoder. */
#include "capture/session.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/array.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define RECV_CHUNK (256 * 1024)
#define POLL_INTERVAL_MS 100
#define CONNECT_RETRY_MS 10
#define FINAL_SEND_TIMEOUT_S 1.0

struct session {
    int fd;
    uint8_t *out; /* bytes waiting to be sent: handshake, then queries */
    size_t out_len, out_cap;
    bool out_failed; /* the send buffer could not grow */
    char *err;
    size_t errlen;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say(struct session *s, const char *fmt, ...)
{
    if (!s->err || !s->errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, s->errlen, fmt, ap);
    va_end(ap);
}

static void out_append(struct session *s, const void *data, size_t len)
{
    uint8_t *grown = tcu_grow(NULL, s->out, &s->out_cap, s->out_len + len, 1);
    if (!grown) {
        s->out_failed = true;
        return;
    }
    s->out = grown;
    memcpy(s->out + s->out_len, data, len);
    s->out_len += len;
}

static void on_query(void *user, const uint8_t packet[13])
{
    out_append(user, packet, TCW_QUERY_SIZE);
}

/* Sends what it can without blocking. -1 when the connection is broken. */
static int out_flush(struct session *s)
{
    size_t sent = 0;
    while (sent < s->out_len) {
        ssize_t n = send(s->fd, s->out + sent, s->out_len - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        return -1;
    }
    memmove(s->out, s->out + sent, s->out_len - sent);
    s->out_len -= sent;
    return 0;
}

/* Best effort: queue a Terminate query and give the client a moment to take it. */
static void send_terminate(struct session *s)
{
    static const uint8_t terminate[TCW_QUERY_SIZE] = {TCW_QUERY_TERMINATE};
    out_append(s, terminate, sizeof terminate);
    double deadline = now_s() + FINAL_SEND_TIMEOUT_S;
    while (s->out_len > 0 && out_flush(s) == 0) {
        double left = deadline - now_s();
        if (left <= 0)
            break;
        struct pollfd pfd = {.fd = s->fd, .events = POLLOUT};
        poll(&pfd, 1, (int)(left * 1000) + 1);
    }
}

/* One non-blocking connect attempt to one address. It waits until the deadline, but at
 * least 1 s, so that a last attempt to a slow host is not cut short. Sets *error. */
static int connect_one(const struct addrinfo *ai, double deadline, volatile int *stop_flag, int *error)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        *error = errno;
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
        return fd;
    *error = errno;
    double attempt_end = now_s() + 1.0;
    if (attempt_end < deadline)
        attempt_end = deadline;
    while (*error == EINPROGRESS) {
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        int r = poll(&pfd, 1, POLL_INTERVAL_MS);
        if (r > 0) {
            socklen_t len = sizeof *error;
            if (getsockopt(fd, SOL_SOCKET, SO_ERROR, error, &len) != 0)
                *error = errno;
            if (*error == 0)
                return fd;
        } else if (r < 0 && errno != EINTR) {
            *error = errno;
        } else if ((stop_flag && __atomic_load_n(stop_flag, __ATOMIC_RELAXED)) || now_s() >= attempt_end) {
            *error = ETIMEDOUT;
        }
    }
    close(fd);
    return -1;
}

static int connect_retrying(const struct tcs_options *opt, struct session *s)
{
    const char *address = opt->address ? opt->address : "127.0.0.1";
    char port[8];
    snprintf(port, sizeof port, "%u", opt->port ? opt->port : TCW_DEFAULT_PORT);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(address, port, &hints, &res);
    if (gai != 0) {
        say(s, "cannot resolve %s: %s", address, gai_strerror(gai));
        return -1;
    }
    double deadline = now_s() + (opt->connect_timeout_s > 0 ? opt->connect_timeout_s : 0);
    int fd = -1, error = 0;
    for (;;) {
        for (const struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next)
            fd = connect_one(ai, deadline, opt->stop_flag, &error);
        if (fd >= 0 || now_s() >= deadline || (opt->stop_flag && __atomic_load_n(opt->stop_flag, __ATOMIC_RELAXED)))
            break;
        nanosleep(&(struct timespec){0, CONNECT_RETRY_MS * 1000000L}, NULL);
    }
    freeaddrinfo(res);
    if (fd < 0) {
        say(s, "cannot connect to %s port %s: %s", address, port, strerror(error));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void progress(const struct tcs_options *opt, const struct tcd_decoder *dec)
{
    if (!opt->on_progress)
        return;
    struct tcd_stats st;
    tcd_decoder_stats(dec, &st);
    opt->on_progress(opt->user, &st);
}

/* The client went away: the decoder decides whether the capture is complete. */
static int end_of_stream(struct session *s, struct tcd_decoder *dec, const char *why)
{
    bool in_handshake = tcd_decoder_state(dec) == TCD_STATE_HANDSHAKE;
    if (tcd_decoder_close(dec) == TCD_STATE_DONE)
        return TCS_COMPLETE;
    say(s, "%s: %s", why, tcd_decoder_error(dec));
    return in_handshake ? TCS_ERROR : TCS_INCOMPLETE;
}

static int pump(const struct tcs_options *opt, struct session *s, struct tcd_decoder *dec, uint8_t *buf)
{
    double start = now_s(), last_progress = start;
    for (;;) {
        if (opt->stop_flag && __atomic_load_n(opt->stop_flag, __ATOMIC_RELAXED)) {
            send_terminate(s);
            say(s, "stopped by the user");
            return TCS_INCOMPLETE;
        }
        if (opt->time_limit_s > 0 && now_s() - start >= opt->time_limit_s) {
            send_terminate(s);
            say(s, "time limit of %g s reached", opt->time_limit_s);
            return TCS_INCOMPLETE;
        }
        if (s->out_failed) {
            say(s, "out of memory for the send buffer");
            return TCS_ERROR;
        }
        struct pollfd pfd = {.fd = s->fd, .events = POLLIN | (s->out_len ? POLLOUT : 0)};
        int r = poll(&pfd, 1, POLL_INTERVAL_MS);
        if (r < 0 && errno != EINTR) {
            say(s, "poll: %s", strerror(errno));
            return TCS_ERROR;
        }
        if (r > 0 && (pfd.revents & POLLOUT) && out_flush(s) != 0)
            return end_of_stream(s, dec, "connection lost while sending");
        if (r > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = recv(s->fd, buf, RECV_CHUNK, 0);
            if (n == 0)
                return end_of_stream(s, dec, "the client closed the connection");
            if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
                return end_of_stream(s, dec, strerror(errno));
            if (n > 0) {
                enum tcd_state st = tcd_decoder_feed(dec, buf, (size_t)n);
                if (st == TCD_STATE_DONE) {
                    send_terminate(s);
                    return TCS_COMPLETE;
                }
                if (st == TCD_STATE_FAILED) {
                    if (!tcd_decoder_refused(dec)) /* a refusing client has hung up */
                        send_terminate(s);
                    say(s, "%s", tcd_decoder_error(dec));
                    return TCS_ERROR;
                }
                if (s->out_len && out_flush(s) != 0)
                    return end_of_stream(s, dec, "connection lost while sending");
            }
        }
        if (now_s() - last_progress >= POLL_INTERVAL_MS / 1000.0) {
            last_progress = now_s();
            progress(opt, dec);
        }
    }
}

/* The version to offer after `protocol` was refused, newest first; 0 when none is left. */
static uint32_t next_version(uint32_t protocol)
{
    int vi = tcw_version_index(protocol);
    return vi >= 0 && vi + 1 < TCW_VERSION_COUNT ? tcw_versions[vi + 1].protocol : 0;
}

int tcs_capture(const struct tcs_options *opt, struct tcd_decoder *dec, char *err, size_t errlen)
{
    struct session s = {.fd = -1, .err = err, .errlen = errlen};
    say(&s, "%s", "");
    uint8_t *buf = malloc(RECV_CHUNK);
    if (!buf) {
        say(&s, "out of memory");
        return TCS_ERROR;
    }
    uint32_t protocol = opt->protocol ? opt->protocol : TCW_PROTOCOL_VERSION;
    if (tcd_decoder_set_version(dec, protocol) != 0) {
        say(&s, "protocol %u: not a version tracyc speaks, or the decoder was used before", protocol);
        free(buf);
        return TCS_ERROR;
    }
    int rc = TCS_ERROR;
    tcd_decoder_set_query_handler(dec, on_query, &s);
    /* The server speaks first: offer each version until the client accepts one. A client
     * that refuses closes and waits for the next connection (docs/protocol.md §24.1). */
    for (;;) {
        s.fd = connect_retrying(opt, &s);
        if (s.fd < 0)
            break;
        uint8_t hello[12];
        tcd_decoder_hello(dec, hello);
        s.out_len = 0;
        out_append(&s, hello, sizeof hello);
        rc = pump(opt, &s, dec, buf);
        close(s.fd);
        uint32_t next = next_version(tcd_decoder_version(dec));
        if (rc != TCS_ERROR || !tcd_decoder_refused(dec) || opt->protocol || !next)
            break;
        tcd_decoder_set_version(dec, next);
        say(&s, "%s", "");
    }
    tcd_decoder_set_query_handler(dec, NULL, NULL);
    if (s.fd >= 0)
        progress(opt, dec);
    if (rc == TCS_ERROR && tcd_decoder_refused(dec) && !opt->protocol)
        say(&s, "the client speaks none of the protocol versions tracyc knows (82, 76, 74, 69, 66, 64)");
    free(buf);
    free(s.out);
    return rc;
}

/* session.c - one connection to a Tracy client, pumped without blocking (session.h). */
#include "capture/session.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "capture/sockets.h"
#include "util/array.h"
#include "wire/protocol.h"
#include "wire/versions.h"

#define CONNECT_RETRY_S 0.010
#define CONNECT_ATTEMPT_S 1.0 /* an attempt in progress waits at least this long */
#define FINAL_SEND_S 1.0      /* a Terminate query's time to leave */
#define FINAL_ANSWERS_S 1.0   /* a stopped client's time to answer what it is asked */

struct tcs_session {
    struct tcd_decoder *dec;
    struct tcs_session_hooks hooks;
    enum tcs_session_state state;
    int fd;
    char host[256];
    uint16_t port;
    /* connect mode */
    struct addrinfo *addrs;
    const struct addrinfo *ai; /* the address being tried */
    double retry_end;          /* keep trying until then */
    double attempt_end;        /* the attempt in progress gives up then */
    double retry_at;           /* no attempt in progress: the next one then */
    int connect_error;
    uint32_t fixed_protocol; /* only this version is offered; 0: each in turn */
    /* the conversation */
    double handshake_s, handshake_end; /* the welcome must have come by then (0: no limit) */
    bool welcomed;
    uint8_t *out; /* bytes waiting to be sent: the hello, then queries */
    size_t out_len, out_cap;
    bool out_failed;     /* the send buffer could not grow */
    bool stopping;       /* tcs_session_stop() came while queries were unanswered */
    double stopping_end; /* Terminate is sent once none is, or then */
    double closing_end;
    int result;
    char why[512];
};

static void say(struct tcs_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct tcs_session *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
}

static void out_append(struct tcs_session *s, const void *data, size_t len)
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
static int out_flush(struct tcs_session *s)
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

static void close_socket(struct tcs_session *s)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

/* Ends at once with result; why was said before. */
static void end(struct tcs_session *s, int result)
{
    close_socket(s);
    s->result = result;
    s->state = TCS_SESSION_ENDED;
}

/* Ends with result once a Terminate query has left (or had its second). */
static void terminate(struct tcs_session *s, int result, double now)
{
    static const uint8_t query[TCW_QUERY_SIZE] = {TCW_QUERY_TERMINATE};
    out_append(s, query, sizeof query);
    s->result = result;
    s->state = TCS_SESSION_CLOSING;
    s->closing_end = now + FINAL_SEND_S;
    if (out_flush(s) != 0 || s->out_len == 0)
        end(s, result);
}

static struct tcs_session *session_new(struct tcd_decoder *dec, double handshake_s,
                                       const struct tcs_session_hooks *hooks)
{
    struct tcs_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->dec = dec;
    s->fd = -1;
    s->handshake_s = handshake_s;
    if (hooks)
        s->hooks = *hooks;
    tcd_decoder_set_query_handler(dec, on_query, s);
    return s;
}

/* The connection is made: the server speaks first. */
static void begin_conversation(struct tcs_session *s, double now)
{
    uint8_t hello[12];
    tcd_decoder_hello(s->dec, hello);
    s->out_len = 0;
    out_append(s, hello, sizeof hello);
    s->state = TCS_SESSION_RUNNING;
    s->handshake_end = s->handshake_s > 0 ? now + s->handshake_s : 0;
    if (out_flush(s) != 0) {
        say(s, "connection lost while sending the handshake");
        end(s, TCS_ERROR);
    }
}

/* Starts connecting to the addresses from s->ai on, moving past those that fail at once. */
static void attempt(struct tcs_session *s, double now)
{
    for (; s->ai; s->ai = s->ai->ai_next) {
        s->fd = tcs_connect_start(s->ai, &s->connect_error);
        if (s->fd >= 0) {
            s->attempt_end = now + CONNECT_ATTEMPT_S > s->retry_end ? now + CONNECT_ATTEMPT_S : s->retry_end;
            return;
        }
    }
    /* Every address failed: wait and start over, or give up. */
    if (now >= s->retry_end) {
        say(s, "cannot connect to %s port %u: %s", s->host, s->port, strerror(s->connect_error));
        end(s, TCS_ERROR);
        return;
    }
    s->ai = s->addrs;
    s->retry_at = now + CONNECT_RETRY_S;
}

struct tcs_session *tcs_session_connect(struct tcd_decoder *dec, const char *host, uint16_t port, uint32_t protocol,
                                        double retry_s, double handshake_s, const struct tcs_session_hooks *hooks,
                                        char *err, size_t errlen)
{
    struct addrinfo *addrs = NULL;
    if (tcs_resolve(host, port, &addrs, err, errlen) != 0)
        return NULL;
    uint32_t offer = protocol ? protocol : TCW_PROTOCOL_VERSION;
    if (tcd_decoder_set_version(dec, offer) != 0) {
        snprintf(err, errlen, "protocol %u: not a version tracyc speaks, or the decoder was used before", offer);
        freeaddrinfo(addrs);
        return NULL;
    }
    struct tcs_session *s = session_new(dec, handshake_s, hooks);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        freeaddrinfo(addrs);
        return NULL;
    }
    snprintf(s->host, sizeof s->host, "%s", host);
    s->port = port;
    s->addrs = addrs;
    s->ai = addrs;
    s->fixed_protocol = protocol;
    double now = tcs_now_s();
    s->retry_end = now + (retry_s > 0 ? retry_s : 0);
    s->state = TCS_SESSION_CONNECTING;
    attempt(s, now);
    return s;
}

struct tcs_session *tcs_session_accept(struct tcd_decoder *dec, int fd, const char *host, uint16_t port,
                                       double handshake_s, const struct tcs_session_hooks *hooks)
{
    struct tcs_session *s = session_new(dec, handshake_s, hooks);
    if (!s) {
        close(fd);
        return NULL;
    }
    snprintf(s->host, sizeof s->host, "%s", host);
    s->port = port;
    s->fd = fd;
    begin_conversation(s, tcs_now_s());
    return s;
}

void tcs_session_free(struct tcs_session *s)
{
    if (!s)
        return;
    close_socket(s);
    tcd_decoder_set_query_handler(s->dec, NULL, NULL);
    if (s->addrs)
        freeaddrinfo(s->addrs);
    free(s->out);
    free(s);
}

static int ms_until(double when, double now)
{
    double ms = (when - now) * 1000.0;
    return ms <= 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms + 1;
}

int tcs_session_poll(const struct tcs_session *s, struct pollfd *p, double now)
{
    *p = (struct pollfd){.fd = s->fd};
    switch (s->state) {
    case TCS_SESSION_CONNECTING:
        if (s->fd < 0)
            return ms_until(s->retry_at, now);
        p->events = POLLOUT;
        return ms_until(s->attempt_end, now);
    case TCS_SESSION_RUNNING:
        p->events = POLLIN | (s->out_len ? POLLOUT : 0);
        if (s->stopping)
            return ms_until(s->stopping_end, now);
        return s->handshake_end > 0 && !s->welcomed ? ms_until(s->handshake_end, now) : -1;
    case TCS_SESSION_CLOSING:
        p->events = POLLOUT;
        return ms_until(s->closing_end, now);
    default:
        p->fd = -1;
        return -1;
    }
}

/* The version to offer after `protocol` was refused, newest first; 0 when none is left. */
static uint32_t next_version(uint32_t protocol)
{
    int vi = tcw_version_index(protocol);
    return vi >= 0 && vi + 1 < TCW_VERSION_COUNT ? tcw_versions[vi + 1].protocol : 0;
}

static void connecting(struct tcs_session *s, short revents, double now)
{
    if (s->fd < 0) {
        if (now >= s->retry_at)
            attempt(s, now);
        return;
    }
    if (revents & (POLLOUT | POLLERR | POLLHUP)) {
        s->connect_error = tcs_connect_result(s->fd);
        if (s->connect_error == 0) {
            begin_conversation(s, now);
            return;
        }
    } else if (now < s->attempt_end) {
        return;
    } else {
        s->connect_error = ETIMEDOUT;
    }
    close_socket(s);
    s->ai = s->ai->ai_next;
    attempt(s, now);
}

/* The client went away: the decoder decides whether the capture is complete. */
static void end_of_stream(struct tcs_session *s, const char *why)
{
    bool in_handshake = tcd_decoder_state(s->dec) == TCD_STATE_HANDSHAKE;
    enum tcd_state st = tcd_decoder_close(s->dec);
    if (s->stopping) { /* stopped: the stop's reason stands, whatever the client did then */
        end(s, TCS_INCOMPLETE);
        return;
    }
    if (st == TCD_STATE_DONE) {
        s->why[0] = '\0';
        end(s, TCS_COMPLETE);
        return;
    }
    say(s, "%s: %s", why, tcd_decoder_error(s->dec));
    end(s, in_handshake ? TCS_ERROR : TCS_INCOMPLETE);
}

/* The client refused the version offered: offer the next one on a new connection. */
static void refused(struct tcs_session *s, double now)
{
    close_socket(s);
    uint32_t next = next_version(tcd_decoder_version(s->dec));
    if (s->fixed_protocol || !s->addrs || !next || tcd_decoder_set_version(s->dec, next) != 0) {
        if (!s->fixed_protocol)
            say(s, "the client speaks none of the protocol versions tracyc knows (82, 76, 74, 69, 66, 64)");
        else
            say(s, "%s", tcd_decoder_error(s->dec));
        end(s, TCS_ERROR);
        return;
    }
    s->state = TCS_SESSION_CONNECTING;
    s->ai = s->addrs;
    attempt(s, now);
}

/* Feeds received bytes: the handshake a byte at a time, so that on_welcome runs between
 * the welcome and the first event. */
static enum tcd_state feed(struct tcs_session *s, const uint8_t *data, size_t len, double now)
{
    enum tcd_state st = tcd_decoder_state(s->dec);
    while (len && st == TCD_STATE_HANDSHAKE) {
        st = tcd_decoder_feed(s->dec, data++, 1);
        len--;
    }
    if (!s->welcomed && st != TCD_STATE_HANDSHAKE && st != TCD_STATE_FAILED) {
        s->welcomed = true;
        if (s->hooks.on_welcome &&
            s->hooks.on_welcome(s->hooks.user, s, tcd_decoder_welcome(s->dec), s->why, sizeof s->why) != 0) {
            terminate(s, TCS_ERROR, now);
            return TCD_STATE_FAILED;
        }
    }
    if (len)
        st = tcd_decoder_feed(s->dec, data, len);
    return st;
}

/* The decoder has all it waited for after the client's Terminate. */
static void decoder_done(struct tcs_session *s, double now)
{
    if (!s->stopping)
        s->why[0] = '\0';
    terminate(s, s->stopping ? TCS_INCOMPLETE : TCS_COMPLETE, now);
}

static void running(struct tcs_session *s, short revents, double now, uint8_t *buf, size_t buflen)
{
    if (s->out_failed) {
        say(s, "out of memory for the send buffer");
        end(s, TCS_ERROR);
        return;
    }
    if ((revents & POLLOUT) && out_flush(s) != 0) {
        end_of_stream(s, "connection lost while sending");
        return;
    }
    if (tcd_decoder_state(s->dec) == TCD_STATE_DONE) { /* with no data: a probe given up */
        decoder_done(s, now);
        return;
    }
    if (revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t n = recv(s->fd, buf, buflen, 0);
        if (n == 0) {
            end_of_stream(s, "the client closed the connection");
            return;
        }
        if (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
            end_of_stream(s, strerror(errno));
            return;
        }
        if (n > 0) {
            enum tcd_state st = feed(s, buf, (size_t)n, now);
            if (s->state != TCS_SESSION_RUNNING)
                return; /* refused by on_welcome */
            if (st == TCD_STATE_DONE) {
                decoder_done(s, now);
                return;
            }
            if (st == TCD_STATE_FAILED) {
                if (tcd_decoder_refused(s->dec)) { /* a refusing client has hung up */
                    refused(s, now);
                    return;
                }
                say(s, "%s", tcd_decoder_error(s->dec));
                terminate(s, TCS_ERROR, now);
                return;
            }
            if (s->out_len && out_flush(s) != 0) {
                end_of_stream(s, "connection lost while sending");
                return;
            }
        }
    }
    if (!s->welcomed && s->handshake_end > 0 && now >= s->handshake_end) {
        say(s, "no welcome from the client within %g s of the connection", s->handshake_s);
        end(s, TCS_ERROR);
        return;
    }
    if (s->stopping && (!tcd_decoder_awaiting(s->dec) || now >= s->stopping_end))
        terminate(s, TCS_INCOMPLETE, now);
}

void tcs_session_handle(struct tcs_session *s, short revents, double now, uint8_t *buf, size_t buflen)
{
    switch (s->state) {
    case TCS_SESSION_CONNECTING:
        connecting(s, revents, now);
        break;
    case TCS_SESSION_RUNNING:
        running(s, revents, now, buf, buflen);
        break;
    case TCS_SESSION_CLOSING:
        if (out_flush(s) != 0 || s->out_len == 0 || now >= s->closing_end)
            end(s, s->result);
        break;
    default:
        break;
    }
}

void tcs_session_stop(struct tcs_session *s, const char *why)
{
    if (s->state == TCS_SESSION_ENDED || s->state == TCS_SESSION_CLOSING || s->stopping)
        return;
    say(s, "%s", why);
    double now = tcs_now_s();
    if (s->state == TCS_SESSION_CONNECTING) {
        end(s, TCS_ERROR);
    } else if (s->welcomed && tcd_decoder_awaiting(s->dec)) {
        /* Stopped a moment after the client's first events, the capture would have them
         * without their names: the client answers what it is asked first (the events that
         * come meanwhile are kept, and their names asked for too: a source location's
         * answer brings the questions for its strings). A client streaming new names all
         * the time is stopped after the second. */
        s->stopping = true;
        s->stopping_end = now + FINAL_ANSWERS_S;
    } else {
        terminate(s, TCS_INCOMPLETE, now);
    }
}

bool tcs_session_stopped(const struct tcs_session *s)
{
    return s->stopping || s->state == TCS_SESSION_CLOSING || s->state == TCS_SESSION_ENDED;
}

enum tcs_session_state tcs_session_state(const struct tcs_session *s)
{
    return s->state;
}

int tcs_session_result(const struct tcs_session *s)
{
    return s->result;
}

const char *tcs_session_why(const struct tcs_session *s)
{
    return s->why;
}

/* test_collector.c - the collector thread of dial-out tests (test_collector.h). */
#include "test_collector.h"

#include "client/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct tcol {
    int listen_fd;
    uint16_t port;
    int wake[2]; /* written to wake the thread from poll: a probe asked for, or stop */
    pthread_t thread;
    pthread_mutex_t lock; /* everything below, and every client's fields */
    pthread_cond_t changed;
    int stop;
    struct tcol_client **clients;
    size_t n, cap;
    /* a probe asked for by tcol_probe_clock, handled by the thread */
    int probe_asked, probe_done, probe_result;
    size_t probe_client;
    uint32_t probe_id;
    int64_t probe_sent;
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct tcol_client *cl = user;
    if (cl->len == cl->cap) {
        cl->cap = cl->cap ? cl->cap * 2 : 1024;
        cl->events = realloc(cl->events, cl->cap * sizeof *cl->events);
        cl->arrived = realloc(cl->arrived, cl->cap * sizeof *cl->arrived);
    }
    struct tt_event *e = &cl->events[cl->len];
    cl->arrived[cl->len++] = cl->read_at;
    e->ev = *ev;
    e->text = NULL;
    if (ev->text) {
        e->text = malloc(ev->text_len + 1);
        memcpy(e->text, ev->text, ev->text_len);
        e->text[ev->text_len] = 0;
    }
    e->ev.text = e->text;
}

static void queue_bytes(struct tcol_client *cl, const void *data, size_t len)
{
    if (cl->out_len + len > cl->out_cap) {
        cl->out_cap = (cl->out_len + len) * 2;
        cl->out = realloc(cl->out, cl->out_cap);
    }
    memcpy(cl->out + cl->out_len, data, len);
    cl->out_len += len;
}

static void on_query(void *user, const uint8_t packet[13])
{
    queue_bytes(user, packet, 13);
}

/* Sends what is queued, as much as the socket takes now. */
static void flush(struct tcol_client *cl)
{
    while (cl->out_len && cl->fd >= 0) {
        ssize_t n = send(cl->fd, cl->out, cl->out_len, MSG_NOSIGNAL);
        if (n <= 0)
            return; /* full (the client reads later) or gone (the read says so) */
        memmove(cl->out, cl->out + n, cl->out_len - (size_t)n);
        cl->out_len -= (size_t)n;
    }
}

static void end_client(struct tcol_client *cl, int end, const char *why)
{
    if (cl->fd >= 0)
        close(cl->fd);
    cl->fd = -1;
    cl->end = end;
    snprintf(cl->err, sizeof cl->err, "%s", why);
}

static void take_client(struct tcol *c)
{
    int fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct tcol_client *cl = calloc(1, sizeof *cl);
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    cl->dec = tcd_decoder_new(&callbacks, cl, NULL);
    tcd_decoder_set_query_handler(cl->dec, on_query, cl);
    cl->fd = fd;
    uint8_t hello[12];
    tcd_decoder_hello(cl->dec, hello);
    queue_bytes(cl, hello, sizeof hello);
    flush(cl);
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        c->clients = realloc(c->clients, c->cap * sizeof *c->clients);
    }
    c->clients[c->n++] = cl;
}

static void read_client(struct tcol_client *cl)
{
    uint8_t buf[65536];
    ssize_t n = recv(cl->fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    cl->read_at = tc_clock_monotonic_raw_ns();
    if (n <= 0) {
        int done = tcd_decoder_close(cl->dec) == TCD_STATE_DONE;
        end_client(cl, done ? TCOL_COMPLETE : TCOL_INCOMPLETE, tcd_decoder_error(cl->dec));
        return;
    }
    enum tcd_state st = tcd_decoder_feed(cl->dec, buf, (size_t)n);
    if (!cl->pid && st != TCD_STATE_HANDSHAKE)
        cl->pid = tcd_decoder_welcome(cl->dec)->pid;
    if (st == TCD_STATE_DONE) {
        static const uint8_t terminate[13] = {0};
        queue_bytes(cl, terminate, sizeof terminate);
        flush(cl);
        end_client(cl, TCOL_COMPLETE, "");
    } else if (st == TCD_STATE_FAILED) {
        end_client(cl, TCOL_INCOMPLETE, tcd_decoder_error(cl->dec));
    }
}

static void answer_probe(struct tcol *c)
{
    if (!c->probe_asked)
        return;
    c->probe_asked = 0;
    struct tcol_client *cl = c->probe_client < c->n ? c->clients[c->probe_client] : NULL;
    c->probe_result = -1;
    if (cl && cl->fd >= 0) {
        c->probe_sent = tc_clock_monotonic_raw_ns();
        c->probe_result = tcd_decoder_probe_clock(cl->dec, c->probe_id);
        flush(cl);
    }
    c->probe_done = 1;
}

static void *run(void *arg)
{
    struct tcol *c = arg;
    struct pollfd *fds = NULL;
    size_t *which = NULL; /* the client of fds[2 + k] */
    for (;;) {
        pthread_mutex_lock(&c->lock);
        if (c->stop) {
            pthread_mutex_unlock(&c->lock);
            break;
        }
        fds = realloc(fds, (2 + c->n) * sizeof *fds);
        which = realloc(which, (2 + c->n) * sizeof *which);
        size_t nfds = 0;
        fds[nfds++] = (struct pollfd){c->wake[0], POLLIN, 0};
        fds[nfds++] = (struct pollfd){c->listen_fd, POLLIN, 0};
        for (size_t i = 0; i < c->n; i++) {
            if (c->clients[i]->fd < 0)
                continue;
            which[nfds] = i;
            fds[nfds++] =
                (struct pollfd){c->clients[i]->fd, (short)(POLLIN | (c->clients[i]->out_len ? POLLOUT : 0)), 0};
        }
        pthread_mutex_unlock(&c->lock);
        if (poll(fds, nfds, -1) < 0 && errno != EINTR)
            break;
        pthread_mutex_lock(&c->lock);
        if (fds[0].revents) {
            char drain[64];
            if (read(c->wake[0], drain, sizeof drain) < 0)
                perror("test_collector: wake");
        }
        for (size_t k = 2; k < nfds; k++) {
            struct tcol_client *cl = c->clients[which[k]];
            if (fds[k].revents & POLLOUT)
                flush(cl);
            if (cl->fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                read_client(cl);
            if (cl->fd >= 0)
                flush(cl);
        }
        if (fds[1].revents & POLLIN)
            take_client(c);
        answer_probe(c);
        pthread_cond_broadcast(&c->changed);
        pthread_mutex_unlock(&c->lock);
    }
    free(fds);
    free(which);
    return NULL;
}

struct tcol *tcol_start(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &len) != 0) {
        perror("tcol_start");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct tcol *c = calloc(1, sizeof *c);
    c->listen_fd = fd;
    c->port = ntohs(addr.sin_port);
    if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
        perror("tcol_start: pipe");
        exit(2);
    }
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->changed, NULL);
    pthread_create(&c->thread, NULL, run, c);
    return c;
}

uint16_t tcol_port(const struct tcol *c)
{
    return c->port;
}

static void wake(struct tcol *c)
{
    if (write(c->wake[1], "w", 1) < 0)
        perror("test_collector: wake");
}

void tcol_stop(struct tcol *c)
{
    if (c->listen_fd < 0)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_mutex_unlock(&c->lock);
    wake(c);
    pthread_join(c->thread, NULL);
    close(c->listen_fd);
    c->listen_fd = -1;
    for (size_t i = 0; i < c->n; i++)
        if (c->clients[i]->fd >= 0)
            end_client(c->clients[i], TCOL_INCOMPLETE, "the collector stopped");
}

void tcol_free(struct tcol *c)
{
    tcol_stop(c);
    for (size_t i = 0; i < c->n; i++) {
        struct tcol_client *cl = c->clients[i];
        for (size_t k = 0; k < cl->len; k++)
            free(cl->events[k].text);
        free(cl->events);
        free(cl->arrived);
        free(cl->out);
        tcd_decoder_free(cl->dec);
        free(cl);
    }
    free(c->clients);
    close(c->wake[0]);
    close(c->wake[1]);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->changed);
    free(c);
}

void tcol_wait_ended(struct tcol *c, size_t count)
{
    pthread_mutex_lock(&c->lock);
    for (;;) {
        size_t ended = 0;
        for (size_t i = 0; i < c->n; i++)
            ended += c->clients[i]->end != TCOL_OPEN;
        if (ended >= count || c->stop)
            break;
        pthread_cond_wait(&c->changed, &c->lock);
    }
    pthread_mutex_unlock(&c->lock);
}

/* An event's text. A literal message carries a pointer, not its text: its text is the
 * decoder's string for it, "" (or TCD_UNKNOWN_NAME) until the client has answered the
 * decoder's query. Under c->lock, which the collector's thread feeds the decoder under. */
static const char *event_text(const struct tcol_client *cl, const struct tt_event *e)
{
    if (e->text && e->text[0])
        return e->text;
    if (e->ev.kind == TCD_MESSAGE || e->ev.kind == TCD_CRASH)
        return tcd_string(cl->dec, e->ev.id);
    return "";
}

size_t tcol_wait_text(struct tcol *c, enum tcd_event_kind kind, const char *text)
{
    pthread_mutex_lock(&c->lock);
    for (;;) {
        for (size_t i = 0; i < c->n; i++) {
            struct tcol_client *cl = c->clients[i];
            for (size_t k = 0; k < cl->len; k++) {
                if (cl->events[k].ev.kind == kind && strcmp(event_text(cl, &cl->events[k]), text) == 0) {
                    pthread_mutex_unlock(&c->lock);
                    return i;
                }
            }
        }
        pthread_cond_wait(&c->changed, &c->lock);
    }
}

size_t tcol_wait_id(struct tcol *c, size_t i, enum tcd_event_kind kind, uint32_t id)
{
    pthread_mutex_lock(&c->lock);
    for (size_t k = 0;; k++) {
        struct tcol_client *cl = c->clients[i];
        while (k >= cl->len)
            pthread_cond_wait(&c->changed, &c->lock);
        if (cl->events[k].ev.kind == kind && cl->events[k].ev.id == id) {
            pthread_mutex_unlock(&c->lock);
            return k;
        }
    }
}

size_t tcol_clients(struct tcol *c)
{
    pthread_mutex_lock(&c->lock);
    size_t n = c->n;
    pthread_mutex_unlock(&c->lock);
    return n;
}

struct tcol_client *tcol_client(struct tcol *c, size_t i)
{
    pthread_mutex_lock(&c->lock);
    struct tcol_client *cl = i < c->n ? c->clients[i] : NULL;
    pthread_mutex_unlock(&c->lock);
    return cl;
}

struct tcol_client *tcol_client_of_pid(struct tcol *c, uint64_t pid)
{
    struct tcol_client *found = NULL;
    pthread_mutex_lock(&c->lock);
    for (size_t i = 0; i < c->n && !found; i++)
        if (c->clients[i]->pid == pid)
            found = c->clients[i];
    pthread_mutex_unlock(&c->lock);
    return found;
}

int tcol_probe_clock(struct tcol *c, size_t i, uint32_t id, int64_t *sent)
{
    pthread_mutex_lock(&c->lock);
    c->probe_asked = 1;
    c->probe_done = 0;
    c->probe_client = i;
    c->probe_id = id;
    wake(c);
    while (!c->probe_done)
        pthread_cond_wait(&c->changed, &c->lock);
    int result = c->probe_result;
    *sent = c->probe_sent;
    pthread_mutex_unlock(&c->lock);
    return result;
}

size_t tcol_count(const struct tcol_client *cl, enum tcd_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < cl->len; i++)
        n += cl->events[i].ev.kind == kind;
    return n;
}

const struct tcd_event *tcol_nth(const struct tcol_client *cl, enum tcd_event_kind kind, size_t n)
{
    for (size_t i = 0; i < cl->len; i++)
        if (cl->events[i].ev.kind == kind && n-- == 0)
            return &cl->events[i].ev;
    return NULL;
}

/* test_capture.c - the in-test capture thread. */
#include "test_capture.h"

#include "capture/session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* A bound on a hang, not on speed: a client's welcome is a few bytes its worker sends at once.
 * Whatever else answers on the port, or never does, ends the capture with an error that says so. */
#define HANDSHAKE_S 60

struct sync {
    pthread_mutex_t lock;
    pthread_cond_t changed;
};

static void on_event(void *user, const struct tcd_event *ev)
{
    struct tt_capture *c = user;
    struct sync *s = c->sync;
    pthread_mutex_lock(&s->lock);
    if (c->len == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->events = realloc(c->events, c->cap * sizeof *c->events);
    }
    struct tt_event *e = &c->events[c->len++];
    e->ev = *ev;
    e->text = NULL;
    if (ev->text) {
        e->text = malloc(ev->text_len + 1);
        memcpy(e->text, ev->text, ev->text_len);
        e->text[ev->text_len] = 0;
    }
    e->ev.text = e->text;
    __atomic_store_n(&c->received, c->len, __ATOMIC_RELAXED);
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

static void on_progress(void *user, const struct tcd_stats *stats)
{
    struct tt_capture *c = user;
    __atomic_store_n(&c->bytes_in, stats->bytes_in, __ATOMIC_RELAXED);
}

static int on_welcome(void *user, const struct tcd_welcome *welcome, char *why, size_t whylen)
{
    (void)welcome, (void)why, (void)whylen;
    struct tt_capture *c = user;
    __atomic_store_n(&c->welcomed, 1, __ATOMIC_RELAXED);
    return 0;
}

static void *run(void *arg)
{
    struct tt_capture *c = arg;
    struct tcs_options opt = {0};
    opt.address = "127.0.0.1";
    opt.port = c->port;
    opt.connect_timeout_s = c->connect_timeout_s;
    opt.handshake_timeout_s = HANDSHAKE_S;
    opt.stop_flag = &c->stop;
    opt.protocol = c->protocol;
    opt.on_progress = on_progress;
    opt.on_welcome = on_welcome;
    opt.user = c;
    int result = tcs_capture(&opt, c->dec, c->err, sizeof c->err);
    struct sync *s = c->sync;
    pthread_mutex_lock(&s->lock);
    c->result = result;
    __atomic_store_n(&c->ended, 1, __ATOMIC_RELEASE); /* after result and err: tt_capture_describe */
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

struct tt_capture *tt_capture_start(uint16_t port)
{
    return tt_capture_start_protocol(port, 0);
}

struct tt_capture *tt_capture_start_protocol(uint16_t port, uint32_t protocol)
{
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    struct tt_capture *c = calloc(1, sizeof *c);
    c->port = port;
    c->protocol = protocol;
    c->connect_timeout_s = 30;
    c->dec = tcd_decoder_new(&callbacks, c, NULL);
    struct sync *s = malloc(sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    c->sync = s;
    pthread_t *t = malloc(sizeof *t);
    c->thread = t;
    pthread_create(t, NULL, run, c);
    return c;
}

int tt_wait_text(struct tt_capture *c, enum tcd_event_kind kind, uint32_t thread, const char *text)
{
    struct sync *s = c->sync;
    pthread_mutex_lock(&s->lock);
    size_t seen = 0;
    int found = 0;
    for (;;) {
        for (; seen < c->len && !found; seen++) {
            const struct tcd_event *ev = &c->events[seen].ev;
            found = ev->kind == kind && ev->thread == thread && ev->text && strcmp(ev->text, text) == 0;
        }
        if (found || c->ended)
            break;
        pthread_cond_wait(&s->changed, &s->lock);
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

int tt_capture_join(struct tt_capture *c)
{
    pthread_join(*(pthread_t *)c->thread, NULL);
    return c->result;
}

void tt_capture_free(struct tt_capture *c)
{
    for (size_t i = 0; i < c->len; i++)
        free(c->events[i].text);
    free(c->events);
    tcd_decoder_free(c->dec);
    struct sync *s = c->sync;
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
    free(c->thread);
    free(c);
}

void tt_capture_describe(FILE *out, void *capture)
{
    const struct tt_capture *c = capture;
    int ended = __atomic_load_n(&c->ended, __ATOMIC_ACQUIRE);
    const char *state = ended ? "ended"
                        : __atomic_load_n(&c->welcomed, __ATOMIC_RELAXED)
                            ? "connected"
                            : "connecting (no welcome from the client yet)";
    fprintf(out, "capture of port %u: %s, %llu bytes received, %llu events recorded", c->port, state,
            (unsigned long long)__atomic_load_n(&c->bytes_in, __ATOMIC_RELAXED),
            (unsigned long long)__atomic_load_n(&c->received, __ATOMIC_RELAXED));
    if (ended)
        fprintf(out, ", result %d%s%s", c->result, c->err[0] ? ": " : "", c->err);
    fprintf(out, "\n");
}

size_t tt_count(const struct tt_capture *c, enum tcd_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < c->len; i++)
        n += c->events[i].ev.kind == kind;
    return n;
}

const struct tcd_event *tt_nth(const struct tt_capture *c, enum tcd_event_kind kind, size_t n)
{
    for (size_t i = 0; i < c->len; i++)
        if (c->events[i].ev.kind == kind && n-- == 0)
            return &c->events[i].ev;
    return NULL;
}

const char *tt_text(const struct tt_capture *c, const struct tcd_event *ev)
{
    if (ev->text && ev->text[0])
        return ev->text;
    if (ev->kind == TCD_MESSAGE || ev->kind == TCD_CRASH)
        return tcd_string(c->dec, ev->id);
    return "";
}

const struct tcd_event *tt_find_text(const struct tt_capture *c, enum tcd_event_kind kind, const char *text)
{
    for (size_t i = 0; i < c->len; i++)
        if (c->events[i].ev.kind == kind && strcmp(tt_text(c, &c->events[i].ev), text) == 0)
            return &c->events[i].ev;
    return NULL;
}

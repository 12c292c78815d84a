/* test_capture.c - the in-test capture thread. */
#include "test_capture.h"

#include "capture/session.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void on_event(void *user, const struct tcd_event *ev)
{
    struct tt_capture *c = user;
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
}

static void *run(void *arg)
{
    struct tt_capture *c = arg;
    struct tcs_options opt = {0};
    opt.address = "127.0.0.1";
    opt.port = c->port;
    opt.connect_timeout_s = c->connect_timeout_s;
    opt.stop_flag = &c->stop;
    opt.protocol = c->protocol;
    c->result = tcs_capture(&opt, c->dec, c->err, sizeof c->err);
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
    pthread_t *t = malloc(sizeof *t);
    c->thread = t;
    pthread_create(t, NULL, run, c);
    return c;
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
    free(c->thread);
    free(c);
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

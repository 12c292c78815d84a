/* count_capture.c - the counting capture thread. */
#include "count_capture.h"

#include "capture/session.h"

#include <pthread.h>
#include <stdlib.h>

static struct cc_thread *thread_of(struct cc_capture *c, uint32_t id)
{
    size_t i = (id * 2654435761u) & (CC_MAX_THREADS - 1);
    while (c->threads[i].id && c->threads[i].id != id)
        i = (i + 1) & (CC_MAX_THREADS - 1);
    if (!c->threads[i].id) {
        if (c->thread_count == CC_MAX_THREADS - 1)
            abort(); /* the table must keep a free slot for the probe to stop */
        c->threads[i].id = id;
        c->thread_count++;
    }
    return &c->threads[i];
}

static void on_event(void *user, const struct tcd_event *ev)
{
    struct cc_capture *c = user;
    c->by_kind[ev->kind]++;
    switch (ev->kind) {
    case TCD_ZONE_BEGIN: {
        struct cc_thread *t = thread_of(c, ev->thread);
        t->depth++;
        t->zones++;
        break;
    }
    case TCD_ZONE_END: {
        struct cc_thread *t = thread_of(c, ev->thread);
        if (t->depth)
            t->depth--;
        else
            c->nesting_errors++;
        break;
    }
    case TCD_MESSAGE:
        if (ev->format == 0) /* the program's own, not the client's reports */
            thread_of(c, ev->thread)->messages++;
        break;
    case TCD_PLOT:
        c->plot_sum += ev->dvalue;
        break;
    case TCD_DROPPED:
        c->dropped = ev->value;
        break;
    default:
        break;
    }
}

static void *run(void *arg)
{
    struct cc_capture *c = arg;
    struct tcs_options opt = {.address = "127.0.0.1", .port = c->port, .connect_timeout_s = 60};
    c->result = tcs_capture(&opt, c->dec, c->err, sizeof c->err);
    return NULL;
}

struct cc_capture *cc_start(uint16_t port)
{
    static const struct tcd_callbacks callbacks = {on_event, NULL};
    struct cc_capture *c = calloc(1, sizeof *c);
    c->port = port;
    c->threads = calloc(CC_MAX_THREADS, sizeof *c->threads);
    c->dec = tcd_decoder_new(&callbacks, c, NULL);
    c->thread = malloc(sizeof(pthread_t));
    if (!c->threads || !c->dec || !c->thread || pthread_create(c->thread, NULL, run, c) != 0)
        abort();
    return c;
}

int cc_join(struct cc_capture *c)
{
    pthread_join(*(pthread_t *)c->thread, NULL);
    return c->result;
}

void cc_free(struct cc_capture *c)
{
    tcd_decoder_free(c->dec);
    free(c->threads);
    free(c->thread);
    free(c);
}

/* libffi_events.c - looking up decoded events for the libffi test's checks. */
#include "libffi_sections.h"

#include <string.h>

int zone_span(const struct tt_capture *c, const char *name, int64_t *begin, int64_t *end)
{
    for (size_t i = 0; i < c->len; i++) {
        const struct tcd_event *b = &c->events[i].ev;
        if (b->kind != TCD_ZONE_BEGIN || strcmp(tcd_srcloc(c->dec, b->srcloc)->name, name) != 0)
            continue;
        for (size_t j = i + 1; j < c->len; j++) {
            const struct tcd_event *e = &c->events[j].ev;
            if (e->kind == TCD_ZONE_END && e->thread == b->thread) {
                *begin = b->time;
                *end = e->time;
                return 1;
            }
        }
    }
    return 0;
}

const struct tcd_event *find_id(const struct tt_capture *c, enum tcd_event_kind kind, uint32_t id)
{
    for (size_t i = 0; i < c->len; i++)
        if (c->events[i].ev.kind == kind && c->events[i].ev.id == id)
            return &c->events[i].ev;
    return NULL;
}

const struct tcd_event *find_named(const struct tt_capture *c, enum tcd_event_kind kind, const char *name,
                                   const char *(*name_of)(const struct tcd_decoder *, uint32_t))
{
    for (size_t i = 0; i < c->len; i++)
        if (c->events[i].ev.kind == kind && strcmp(name_of(c->dec, c->events[i].ev.id), name) == 0)
            return &c->events[i].ev;
    return NULL;
}

const struct tcd_event *nth_on_thread(const struct tt_capture *c, enum tcd_event_kind kind, const char *thread_name,
                                      size_t n)
{
    for (size_t i = 0; i < c->len; i++) {
        const struct tcd_event *e = &c->events[i].ev;
        if (e->kind == kind && strcmp(tcd_thread_name(c->dec, e->thread), thread_name) == 0 && n-- == 0)
            return e;
    }
    return NULL;
}

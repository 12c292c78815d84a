/* api_section.c - sections: text spans of a category, entered and left by id. */
#include "client/api.h"

#include <string.h>

static _Atomic uint32_t next_section = 1;

uint32_t tracyc_section_enter(uint16_t category, const char *text, size_t len)
{
    if (!text)
        return 0;
    len = tc_text_fit(text, len, TC_MAX_TEXT);
    struct tc_thread *t;
    struct tc_rec *r = tc_thread_reserve(&t, TC_REC_SECTION_ENTER, len, 0);
    if (!r)
        return 0;
    uint32_t id = atomic_fetch_add_explicit(&next_section, 1, memory_order_relaxed);
    r->u32 = id;
    r->w[0] = (uint64_t)tc_clock_now();
    r->w[1] = category;
    memcpy((char *)tc_rec_text(r), text, len);
    tc_thread_commit(t);
    return id;
}

void tracyc_section_leave(uint32_t id)
{
    if (!id)
        return;
    struct tc_thread *t;
    struct tc_rec *r = tc_thread_reserve(&t, TC_REC_SECTION_LEAVE, 0, 1);
    if (!r)
        return;
    r->u32 = id;
    r->w[0] = (uint64_t)tc_clock_now();
    tc_thread_commit(t);
}

void tracyc_section_setup(uint16_t category, const char *text, size_t len)
{
    if (!text)
        return;
    len = tc_text_fit(text, len, TC_MAX_TEXT);
    struct tc_rec *r = tc_serial_reserve(TC_REC_SECTION_SETUP, len, 0);
    if (!r)
        return;
    r->u32 = category;
    memcpy((char *)tc_rec_text(r), text, len);
    tc_serial_commit();
}

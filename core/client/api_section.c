/* api_section.c - sections: text spans of a category, entered and left by id. */
#include "client/api.h"

static _Atomic uint32_t next_section = 1;

uint32_t tracyc_section_enter(uint16_t category, const char *text, size_t len)
{
    if (!text)
        return 0;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve_text(&t, TC_REC_SECTION_ENTER, text, &len);
    if (!r)
        return 0;
    uint32_t id = atomic_fetch_add_explicit(&next_section, 1, memory_order_relaxed);
    r->section_enter.id = id;
    r->section_enter.time = tc_clock_now();
    r->section_enter.category = category;
    tc_thread_commit(t);
    return id;
}

void tracyc_section_leave(uint32_t id)
{
    if (!id)
        return;
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_SECTION_LEAVE, 0, 1);
    if (!r)
        return;
    r->section_leave.id = id;
    r->section_leave.time = tc_clock_now();
    tc_thread_commit(t);
}

void tracyc_section_setup(uint16_t category, const char *text, size_t len)
{
    if (!text)
        return;
    union tc_rec *r = tc_serial_reserve_text(TC_REC_SECTION_SETUP, text, len, 0);
    if (!r)
        return;
    r->section_setup.category = category;
    tc_serial_commit();
}

/* api_section.c - sections: text spans of a category, entered and left by id.
 *
 * A leave whose section is not open (left already, or never entered) would sit in the
 * server for ever, waiting for its enter: it is refused and reported through
 * tracyc_last_error, as a zone ended out of order is. The ids of the open sections are
 * kept in a set under a lock: sections are coarse spans (a level loading, a phase of a
 * frame), not the hot path, and a section may be left on any thread. */
#include "client/api.h"
#include "util/map.h"

#include <inttypes.h>
#include <pthread.h>

static _Atomic uint32_t next_section = 1;
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tcu_map open_ids; /* id -> 1, for every section entered and not left */

/* A forked child that profiles (TRACYC_FOLLOW_FORK) has none of its parent's sections
 * open, and the lock starts anew (as frame sets: api_plot_frame.c). */
static void sections_forget_after_fork(void)
{
    pthread_mutex_init(&open_lock, NULL);
    tcu_map_clear(&open_ids);
}

__attribute__((constructor)) static void sections_at_fork(void)
{
    pthread_atfork(NULL, NULL, sections_forget_after_fork);
}

/* 1 when the section was open (now no longer), 0 when it was not; put: open it (-1 when
 * out of memory). */
static int open_set(uint32_t id, int put)
{
    pthread_mutex_lock(&open_lock);
    int r = put ? tcu_map_put(&open_ids, id, 1) : tcu_map_remove(&open_ids, id, NULL);
    pthread_mutex_unlock(&open_lock);
    return r;
}

uint32_t tracyc_section_enter(uint16_t category, const char *text, size_t len)
{
    if (!text) {
        tc_set_error("tracyc_section_enter: no text");
        return 0;
    }
    if (!tc_thread_get())
        return 0; /* profiling off: nothing is recorded, and 0 is left as nothing */
    uint32_t id = atomic_fetch_add_explicit(&next_section, 1, memory_order_relaxed);
    if (open_set(id, 1) < 0) {
        tc_set_error("tracyc_section_enter: out of memory");
        return 0;
    }
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve_text(&t, TC_REC_SECTION_ENTER, text, &len);
    if (!r) { /* dropped at the buffer limit */
        open_set(id, 0);
        return 0;
    }
    r->section_enter.id = id;
    r->section_enter.time = tc_clock_now();
    r->section_enter.category = category;
    tc_thread_commit(t);
    return id;
}

int tracyc_section_leave(uint32_t id)
{
    if (!id)
        return 0;
    if (open_set(id, 0) != 1) {
        tc_set_error("section %" PRIu32 " is not open (left already, or never entered)", id);
        return -1;
    }
    struct tc_thread *t;
    union tc_rec *r = tc_thread_reserve(&t, TC_REC_SECTION_LEAVE, 0, 1);
    if (!r)
        return 0; /* profiling stopped meanwhile */
    r->section_leave.id = id;
    r->section_leave.time = tc_clock_now();
    tc_thread_commit(t);
    return 0;
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

/* Fibers carry their zones from thread to thread, as in Tracy's model.
 *
 * Two OS threads hand one fiber back and forth: each turn ends, on one thread, the zone
 * the other thread began in the fiber, and begins a zone the other will end; another zone
 * stays open in the fiber across many turns. Every zone must reach the server, nested in
 * the fiber, in order. (Regression: the innermost-zone check was per OS thread, so the
 * end of a fiber zone on another thread was ignored.) Misuse is still refused: a fiber's
 * zone ended outside the fiber, a thread's zone ended inside a fiber, a zone of one
 * fiber ended in another, ends out of order. */
#include "test_capture.h"
#include "test_phase.h"
#include "test_util.h"
#include "tracyc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define TURNS 2000
#define LONG_ZONE_TURNS 100 /* the long zone is begun and ended every this many turns */

static const struct ___tracy_source_location_data turn_loc = {"turn", "handover", "fiber.c", 1, 0};
static const struct ___tracy_source_location_data long_loc = {"long", "handover", "fiber.c", 2, 0};
static const struct ___tracy_source_location_data inner_loc = {"inner", "handover", "fiber.c", 3, 0};
static const char fiber[] = "handed over";
static const char other_fiber[] = "other";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int turn;              /* whose turn: the turn number's parity is the thread */
static TracyCZoneCtx pending; /* begun by the previous turn, ended by this one */
static TracyCZoneCtx long_zone;
static int refused_ends; /* ends the core refused although they were right */

static void take_turn(int n)
{
    ___tracy_fiber_enter(fiber);
    if (n > 0) {
        ___tracy_emit_zone_end(pending); /* begun on the other thread */
        refused_ends += tracyc_last_error()[0] != 0;
    }
    if (n % LONG_ZONE_TURNS == LONG_ZONE_TURNS - 1) {
        ___tracy_emit_zone_end(long_zone);
        refused_ends += tracyc_last_error()[0] != 0;
    }
    if (n % LONG_ZONE_TURNS == 0)
        long_zone = ___tracy_emit_zone_begin(&long_loc, 1);
    TracyCZoneCtx inner = ___tracy_emit_zone_begin(&inner_loc, 1);
    ___tracy_emit_zone_end(inner);
    if (n + 1 < TURNS)
        pending = ___tracy_emit_zone_begin(&turn_loc, 1);
    ___tracy_fiber_leave();
}

static void *player(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (turn < TURNS && turn % 2 != me)
            pthread_cond_wait(&cond, &lock);
        int n = turn;
        pthread_mutex_unlock(&lock);
        if (n >= TURNS)
            return NULL;
        take_turn(n);
        pthread_mutex_lock(&lock);
        turn++;
        pthread_cond_broadcast(&cond);
        pthread_mutex_unlock(&lock);
    }
}

/* Ends z and says whether the core refused it. */
static int refused(TracyCZoneCtx z)
{
    TracyCZoneCtx bogus = {0xfffff, 1};
    ___tracy_emit_zone_end(bogus); /* a known error first, for a fresh message */
    ___tracy_emit_zone_end(z);
    char want[64];
    snprintf(want, sizeof want, "zone %u is not the innermost", z.id);
    return strstr(tracyc_last_error(), want) != NULL;
}

/* Ends that name a zone other than the innermost of the caller's context. Returns how
 * many were refused; the zones end properly afterwards. */
static int misuse(void)
{
    int n = 0;
    ___tracy_fiber_enter(fiber);
    TracyCZoneCtx in_fiber = ___tracy_emit_zone_begin(&turn_loc, 1);
    ___tracy_fiber_leave();
    n += refused(in_fiber); /* the fiber's zone, outside the fiber */
    TracyCZoneCtx on_thread = ___tracy_emit_zone_begin(&turn_loc, 1);
    ___tracy_fiber_enter(fiber);
    n += refused(on_thread); /* the thread's zone, inside a fiber */
    ___tracy_fiber_enter(other_fiber);
    n += refused(in_fiber); /* one fiber's zone, in another */
    ___tracy_fiber_enter(fiber);
    TracyCZoneCtx inner = ___tracy_emit_zone_begin(&inner_loc, 1);
    n += refused(in_fiber); /* out of order */
    ___tracy_emit_zone_end(inner);
    ___tracy_emit_zone_end(in_fiber);
    ___tracy_fiber_leave();
    ___tracy_emit_zone_end(on_thread);
    return n;
}

int main(void)
{
    uint16_t port = tt_use_free_port();
    setenv("TRACY_NO_EXIT", "1", 1);
    struct tt_capture *cap = tt_capture_start(port);
    tt_phase_describe(tt_capture_describe, cap);
    pthread_t a, b;
    pthread_create(&a, NULL, player, (void *)(intptr_t)0);
    pthread_create(&b, NULL, player, (void *)(intptr_t)1);
    tt_phase("joining the two threads that hand the fiber to each other", 120);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    tt_phase_done();
    tt_check(refused_ends == 0, "no end of a zone handed over was refused (%d were)", refused_ends);
    tt_check(misuse() == 4, "misuse is refused: ends outside the fiber, in another context, out of order");
    tt_phase("in ___tracy_shutdown_profiler: the client sending everything to the capture (TRACY_NO_EXIT)", 120);
    ___tracy_shutdown_profiler();
    tt_phase("joining the capture thread: the capture ending", 120);
    CHECK_EQ_INT(tt_capture_join(cap), 0);
    tt_phase_done();
    if (cap->result)
        fprintf(stderr, "capture: %s\n", cap->err);

    /* Every zone, nested in its context (a fiber or a thread) in order, none left open. */
    uint64_t zones = 2 * TURNS - 1 + TURNS / LONG_ZONE_TURNS + 3;
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_BEGIN), zones);
    CHECK_EQ_INT(tt_count(cap, TCD_ZONE_END), zones);
    CHECK(tt_find_text(cap, TCD_ZONE_TEXT, "still open at exit") == NULL);
    enum { CONTEXTS = 8 };
    struct {
        uint32_t id;
        int depth;
        int64_t open[4];
    } ctx[CONTEXTS] = {{0}};
    int nesting_errors = 0, contexts = 0;
    for (size_t i = 0; i < cap->len; i++) {
        const struct tcd_event *ev = &cap->events[i].ev;
        if (ev->kind != TCD_ZONE_BEGIN && ev->kind != TCD_ZONE_END)
            continue;
        int k = 0;
        while (k < contexts && ctx[k].id != ev->thread)
            k++;
        if (k == contexts && contexts < CONTEXTS)
            ctx[contexts++].id = ev->thread;
        if (k == CONTEXTS)
            continue;
        if (ev->kind == TCD_ZONE_BEGIN) {
            if (ctx[k].depth < 4)
                ctx[k].open[ctx[k].depth] = ev->time;
            ctx[k].depth++;
        } else if (ctx[k].depth == 0) {
            nesting_errors++;
        } else if (--ctx[k].depth < 4 && ev->time < ctx[k].open[ctx[k].depth]) {
            nesting_errors++; /* ends before it began: out of order */
        }
    }
    int open = 0, in_fibers = 0;
    for (int k = 0; k < contexts; k++) {
        open += ctx[k].depth;
        in_fibers += (ctx[k].id & 0x80000000u) != 0;
    }
    CHECK_EQ_INT(nesting_errors, 0);
    CHECK_EQ_INT(open, 0);
    CHECK_EQ_INT(in_fibers, 1);    /* the fiber handed over */
    tt_phase_describe(NULL, NULL); /* (the capture is freed) */
    tt_capture_free(cap);
    return tt_finish("test_fiber_handover");
}

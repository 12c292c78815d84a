/* conn_clock.c - tracyc's clock extension on a connection (docs/protocol.md §28): the
 * client's clocks read together, for a server that took them, so that a collector can put
 * many clients on one clock. */
#include "client/conn.h"

#include "client/clock.h"
#include "client/state.h"
#include "util/host_id.h"

#include <time.h>

#define CLOCK_PERIOD_NS 1000000000LL

static int64_t ns_of(const struct timespec *ts)
{
    return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* A client with TRACYC_TEST_CLOCK_SKEW_NS poses as one on another host. */
static uint64_t host_id(void)
{
    uint64_t id = tcu_host_id();
    return tc_prof.config.clock_skewed ? id ^ 0x9e3779b97f4a7c15ull : id;
}

void tc_conn_send_clock(struct tc_conn *c, uint32_t probe)
{
    struct timespec raw, real;
    /* The event clock is read on both sides of CLOCK_MONOTONIC_RAW: the reading is their
     * middle, within half the time between them (tens of ns) of the raw clock's. */
    int64_t before = tc_clock_now();
    clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
    int64_t after = tc_clock_now();
    clock_gettime(CLOCK_REALTIME, &real);
    int64_t skew = tc_prof.config.clock_skewed ? tc_prof.config.clock_skew_ns : 0;
    tcw_enc_tracyc_clock(&c->enc, before + (after - before) / 2, ns_of(&raw) + skew, ns_of(&real) + skew, host_id(),
                         probe);
    c->clock_sent = ns_of(&raw);
}

void tc_conn_report_clock(struct tc_conn *c, int final)
{
    if (c->clock && (final || tc_clock_monotonic_raw_ns() - c->clock_sent >= CLOCK_PERIOD_NS))
        tc_conn_send_clock(c, 0);
}
